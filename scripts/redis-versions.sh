#!/usr/bin/env bash
# Builds the other Redis-compatible servers tiered mode is tested against, from Debian's own
# source packages: Redis 6.0 (bullseye; Ubuntu 22.04 ships 6.0.16 too) and Valkey 8.1 (trixie).
# Each is fetched from deb.debian.org and checked along Debian's signed chain (InRelease
# verified with gpgv against debian-archive-keyring, the suite's Sources index by the sha256
# InRelease lists, the upstream tarball by the sha256 the index lists), then built with plain
# `make` and its bundled dependencies into target/redis-versions/. A binary already there is
# not built again.
#
# Prints one line per server: NAME VERSION PATH-OF-ITS-SERVER-BINARY.
# Usage: scripts/redis-versions.sh [redis6|valkey8]...   (default: both)
source "$(dirname "$0")/common.sh"

MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
CACHE="$ROOT/target/redis-versions"
mkdir -p "$CACHE"

# `verified_sources SUITE`: the path of the suite's main Sources index, checked along the chain.
verified_sources() {
  local suite=$1 dir="$CACHE/debian-$1"
  mkdir -p "$dir"
  curl -fsS -m 60 -o "$dir/InRelease" "$MIRROR/dists/$suite/InRelease"
  gpgv --keyring /usr/share/keyrings/debian-archive-keyring.gpg --output "$dir/Release" "$dir/InRelease" 2>"$dir/gpgv.log" || {
    cat "$dir/gpgv.log" >&2
    echo "the $suite InRelease does not verify against debian-archive-keyring" >&2
    return 1
  }
  local want
  want=$(awk '/^SHA256:/{s=1; next} /^[^ ]/{s=0} s && $3 == "main/source/Sources.xz" {print $1}' "$dir/Release")
  [ -n "$want" ] || { echo "no main/source/Sources.xz in the $suite Release" >&2; return 1; }
  if ! echo "$want  $dir/Sources.xz" | sha256sum -c --status 2>/dev/null; then
    curl -fsS -m 300 -o "$dir/Sources.xz" "$MIRROR/dists/$suite/main/source/Sources.xz"
    echo "$want  $dir/Sources.xz" | sha256sum -c --status || { echo "$suite Sources.xz: sha256 mismatch" >&2; return 1; }
  fi
  echo "$dir/Sources.xz"
}

# `orig_tarball SOURCES PACKAGE VERSION-PREFIX`: "SHA256 DIRECTORY FILE" of the upstream tarball
# of the package's version starting with VERSION-PREFIX in that index.
orig_tarball() {
  xz -dc "$1" | awk -v pkg="$2" -v ver="$3" '
    /^Package: / {p = ($2 == pkg); v = 0; dir = ""; sha = ""}
    p && /^Version: / {v = (index($2, ver) == 1 || index($2, ":" ver) > 0)}
    p && /^Directory: / {dir = $2}
    p && /^Checksums-Sha256:/ {s = 1; next}
    /^[^ ]/ {s = 0}
    p && s && $3 ~ /\.orig\.tar\./ {sha = $1; file = $3}
    /^$/ && p && v && sha != "" && !done {print sha, dir, file; done = 1}
    END {if (p && v && sha != "" && !done) print sha, dir, file}' | head -n 1
}

# `build NAME SUITE PACKAGE VERSION-PREFIX BINARY`
build() {
  local name=$1 suite=$2 package=$3 prefix=$4 binary=$5
  local dest="$CACHE/$name-${prefix%.}"
  if [ ! -x "$dest/$binary" ]; then
    local sources sha dir file
    sources=$(verified_sources "$suite")
    read -r sha dir file < <(orig_tarball "$sources" "$package" "$prefix")
    [ -n "${file:-}" ] || { echo "$package $prefix is not in $suite's Sources" >&2; return 1; }
    log "fetching $file ($suite)"
    curl -fsS -m 600 -o "$CACHE/$file" "$MIRROR/$dir/$file"
    echo "$sha  $CACHE/$file" | sha256sum -c --status || { echo "$file: sha256 mismatch" >&2; rm -f "$CACHE/$file"; return 1; }
    log "building $name from $file"
    local src="$CACHE/$name-src"
    rm -rf "$src" && mkdir -p "$src"
    tar -xf "$CACHE/$file" -C "$src" --strip-components=1
    # Plain make with the bundled dependencies; no TLS or systemd (not what is tested), libc's
    # malloc (a quicker build; the tier's behaviour does not depend on the allocator).
    (cd "$src" && make -j"$(nproc)" BUILD_TLS=no USE_SYSTEMD=no MALLOC=libc >"$CACHE/$name-build.log" 2>&1) || {
      tail -n 30 "$CACHE/$name-build.log" >&2
      echo "building $name failed (log: $CACHE/$name-build.log)" >&2
      return 1
    }
    mkdir -p "$dest"
    cp "$src/src/$binary" "$dest/$binary"
    rm -rf "$src" "$CACHE/$file"
  fi
  echo "$name $("$dest/$binary" --version | sed -n 's/.* v=\([^ ]*\).*/\1/p') $dest/$binary"
}

# (apt_need logs to stderr; stdout is only the lines above.)
apt_need curl xz-utils gpgv debian-archive-keyring make gcc libc6-dev pkg-config >&2
[ $# -gt 0 ] || set -- redis6 valkey8
for which in "$@"; do
  case $which in
    redis6) build redis6 bullseye redis 6.0. redis-server ;;
    valkey8) build valkey8 trixie valkey 8.1. valkey-server ;;
    *) echo "unknown server $which (redis6, valkey8)" >&2; exit 1 ;;
  esac
done
