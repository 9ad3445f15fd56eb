#!/usr/bin/env bash
# Installs the Debian packages of scripts/package.sh the way a user would, each in a clean chroot
# of its suite (php8.2-shmcache on bookworm, php8.4-shmcache on trixie): a minimal Debian with
# that PHP's CLI and FPM from the archive, then `apt install ./php8.4-shmcache_….deb`. Checks
# that the CLI shows it (`php --ri shmcache`) and runs it, that PHP-FPM loads it, that both
# SAPIs have it enabled through phpenmod, and that `apt purge` leaves no file behind that was not
# there before the install.
#
# The clean chroots are kept as tarballs of a fresh debootstrap (target/php-versions/clean-*.tar)
# and unpacked anew for each run. Run by scripts/test.sh; ends with "N passed, N failed".
# Needs root. Usage: scripts/test-packages.sh [8.2|8.4]...   (default: both)
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/chroot.sh"

suite_of() {
  case $1 in
    8.2) echo bookworm ;;
    8.4) echo trixie ;;
    *) echo "no package test for PHP $1 (8.2, 8.4)" >&2; return 1 ;;
  esac
}

# `clean_tarball SUITE`: the path of a tarball of a fresh minbase SUITE (made once, kept).
clean_tarball() {
  local suite=$1 tar="$KEEP/clean-$1.tar"
  if [ ! -f "$tar" ]; then
    mkdir -p "$KEEP"
    make_minbase "$suite" "$KEEP/clean-$suite" "$KEEP/clean-$suite.log" >&2 || return 1
    tar -C "$KEEP/clean-$suite" -cf "$tar.tmp" . && mv "$tar.tmp" "$tar"
    remove_tree "$KEEP/clean-$suite"
  fi
  echo "$tar"
}

# `files ROOT`: every path in the chroot but those that change by themselves on any apt run
# (dpkg's and apt's databases and caches, logs, temporary files).
files() {
  (cd "$1" && find . -xdev \( -path ./proc -o -path ./tmp -o -path ./var/lib/dpkg -o -path ./var/lib/apt \
    -o -path ./var/cache -o -path ./var/log -o -path ./run -o -path ./dev \) -prune -o -print | sort)
}

test_package() {
  local ver=$1 suite deb tar work
  suite=$(suite_of "$ver")
  log "php$ver-shmcache: building the package"
  if ! deb=$(bash "$ROOT/scripts/package.sh" "$ver"); then
    check "php$ver-shmcache: the package builds" false
    return
  fi
  check "php$ver-shmcache: the package builds ($(basename "$deb"))" test -f "$deb"
  if ! tar=$(clean_tarball "$suite"); then
    check "php$ver-shmcache: a clean $suite chroot can be made" false
    return
  fi
  work=$(mktemp -d "$KEEP/package-test-$ver.XXXXXX")
  tar -C "$work" -xf "$tar"
  setup_apt "$work"
  mount_proc "$work"
  local out="$KEEP/package-test-$ver.log"
  : >"$out"
  # What the user has before: PHP's CLI and FPM from the archive.
  log "php$ver-shmcache: a clean $suite with php$ver-cli and php$ver-fpm"
  if ! in_root "$work" sh -c "apt-get update -qq && apt-get install -y -qq php$ver-cli php$ver-fpm" >>"$out" 2>&1; then
    tail -n 20 "$out"
    check "php$ver-shmcache: PHP $ver installs in a clean $suite chroot" false
    undo_mounts; remove_tree "$work"
    return
  fi
  local before after
  before=$(files "$work")
  cp "$deb" "$work/tmp/"
  log "php$ver-shmcache: apt install ./$(basename "$deb")"
  check "php$ver-shmcache: apt install ./$(basename "$deb") in a clean $suite" \
    in_root "$work" sh -c "cd /tmp && apt-get install -y -qq ./$(basename "$deb") >>/tmp/install.log 2>&1"
  cat "$work/tmp/install.log" >>"$out" 2>/dev/null || true
  # (No grep -q: under pipefail, grep quitting early makes php die of SIGPIPE.)
  check "php$ver-shmcache: php --ri shmcache shows it" \
    sh -c "chroot '$work' php$ver --ri shmcache | grep -E '^shmcache support' >/dev/null"
  check "php$ver-shmcache: the CLI stores and reads a value (-d shmcache.enable_cli=1)" \
    sh -c "[ \"\$(chroot '$work' php$ver -d shmcache.enable_cli=1 -r 'shmcache_set(\"k\", 42); echo shmcache_get(\"k\");')\" = 42 ]"
  check "php$ver-shmcache: php-fpm$ver -m lists it" \
    sh -c "chroot '$work' php-fpm$ver -m | grep -x shmcache >/dev/null"
  check "php$ver-shmcache: php-fpm$ver -t accepts the configuration" \
    sh -c "chroot '$work' php-fpm$ver -t >/dev/null 2>&1"
  check "php$ver-shmcache: enabled by phpenmod for cli and fpm (phpquery)" \
    sh -c "chroot '$work' phpquery -v $ver -s cli -m shmcache >/dev/null && chroot '$work' phpquery -v $ver -s fpm -m shmcache >/dev/null"
  log "php$ver-shmcache: apt purge"
  check "php$ver-shmcache: apt purge php$ver-shmcache" \
    sh -c "chroot '$work' /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq php$ver-shmcache >>'$out' 2>&1"
  rm -f "$work/tmp/$(basename "$deb")" "$work/tmp/install.log"
  after=$(files "$work")
  local left
  left=$(diff <(echo "$before") <(echo "$after") || true)
  [ -z "$left" ] || echo "  files that differ after the purge:"$'\n'"$left" | head -n 20
  check "php$ver-shmcache: after apt purge no file is left that was not there before" test -z "$left"
  check "php$ver-shmcache: PHP runs without it after the purge" \
    sh -c "chroot '$work' php$ver -m | grep -x shmcache >/dev/null; [ \$? -eq 1 ]"
  undo_mounts
  remove_tree "$work"
}

[ $# -gt 0 ] || set -- 8.2 8.4
for ver in "$@"; do
  suite_of "$ver" >/dev/null || exit 2
  test_package "$ver"
done
echo "$passed passed, $failed failed"
