# Shared by the scripts that work in Debian chroots (scripts/php-versions.sh, scripts/package.sh,
# scripts/test-packages.sh): mounts that are always undone, deleting a chroot without ever
# deleting through a mount, debootstrap. Source it after common.sh; it sets the EXIT trap.

MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
# Chroots and their logs are kept here between runs (a fresh CI machine makes them).
KEEP=${PHP_VERSIONS_DIR:-$ROOT/target/php-versions}

if [ "$(id -u)" -ne 0 ]; then
  echo "$(basename "$0") needs root (debootstrap, chroot and mount)" >&2
  exit 1
fi

# --- mounts: every one is recorded, and undone in reverse order on exit, however we exit -----
MOUNTS=()
undo_mounts() {
  local i
  for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
    # Lazy as a last resort: a process still inside (a php-fpm that outlived its test) must not
    # keep the host's toolchain mounted in a directory someone may delete.
    umount "${MOUNTS[i]}" 2>/dev/null || umount -l "${MOUNTS[i]}" 2>/dev/null || true
  done
  MOUNTS=()
}
trap undo_mounts EXIT
trap 'exit 130' INT TERM

# `mounts_under DIR`: the mount points at or below DIR (deepest first).
mounts_under() {
  findmnt -rn -o TARGET | awk -v d="$1" '$0 == d || index($0, d "/") == 1' | sort -r
}

# `stale_mounts_off DIR`: a run killed with SIGKILL could not undo its mounts: undo them now.
stale_mounts_off() {
  local m
  mounts_under "$1" | while read -r m; do umount "$m" 2>/dev/null || umount -l "$m"; done
}

# `remove_tree DIR`: rm -rf, but never through a mount (that would delete the host's toolchain,
# its cargo cache or the source tree, which are bind-mounted inside while a build runs).
remove_tree() {
  [ -e "$1" ] || return 0
  stale_mounts_off "$1"
  if [ -n "$(mounts_under "$1")" ]; then
    echo "refusing to delete $1: something is still mounted below it" >&2
    return 1
  fi
  rm -rf --one-file-system "$1"
}

# `bind SRC DST [ro]`
bind() {
  mkdir -p "$2"
  mount --bind "$1" "$2"
  MOUNTS+=("$2")
  if [ "${3:-}" = ro ]; then mount -o remount,bind,ro "$2"; fi
}

# `mount_proc ROOT`: maintainer scripts and PHP's tests expect /proc.
mount_proc() {
  mount -t proc proc "$1/proc"
  MOUNTS+=("$1/proc")
}

# `in_root ROOT COMMAND...`: runs a command inside the chroot, as root, with a plain environment
# (nothing of the host's leaks in) plus the variables in EXTRA_ENV (an array, NAME=value).
EXTRA_ENV=()
in_root() {
  local root=$1
  shift
  chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "${EXTRA_ENV[@]}" "$@"
}

# `make_minbase SUITE DIR LOG`: debootstraps a minimal SUITE into DIR. It is made in DIR.tmp and
# renamed when complete, so that a run stopped half way leaves nothing that looks finished.
make_minbase() {
  local suite=$1 dir=$2 log=$3
  remove_tree "$dir" || return 1
  remove_tree "$dir.tmp" || return 1
  apt_need debootstrap debian-archive-keyring >&2
  log "debootstrap $suite (minbase) into $dir"
  if ! debootstrap --variant=minbase "$suite" "$dir.tmp" "$MIRROR" >"$log" 2>&1; then
    tail -n 20 "$log" >&2
    echo "debootstrap of $suite failed (log: $log)" >&2
    return 1
  fi
  setup_apt "$dir.tmp"
  touch "$dir.tmp/.debootstrap-done"
  mv "$dir.tmp" "$dir"
}

# `setup_apt ROOT`: apt and dpkg settings for a chroot (written again on every use: idempotent).
setup_apt() {
  # sid's and experimental's Release files are often past their Valid-Until (the archive signs
  # them again only when they change); no recommends, as on a server.
  printf '%s\n' 'Acquire::Check-Valid-Until "false";' 'APT::Install-Recommends "false";' \
    >"$1/etc/apt/apt.conf.d/90shmcache"
  # Packages must not start their services (php-fpm) in a chroot: a daemon left running would
  # outlive the run and keep its mounts busy.
  printf '#!/bin/sh\n# shmcache scripts: no service starts in this chroot.\nexit 101\n' >"$1/usr/sbin/policy-rc.d"
  chmod 755 "$1/usr/sbin/policy-rc.d"
  # The machine's resolver, to reach Debian's archive (and crates.io) from inside, and its host
  # names (debootstrap writes no /etc/hosts; mariadb-install-db refuses a host name it cannot
  # resolve).
  cp -L /etc/resolv.conf "$1/etc/resolv.conf"
  cp -L /etc/hosts "$1/etc/hosts"
}
