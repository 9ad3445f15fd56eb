#!/usr/bin/env bash
# Builds a Debian package of shmcache for one PHP version: phpX.Y-shmcache, with
#   - the extension in that PHP's extension dir (`php-config --extension-dir`),
#   - /etc/php/X.Y/mods-available/shmcache.ini (a conffile: an admin's edits survive upgrades),
#     enabled for every SAPI (CLI, FPM, ...) by the postinst with phpenmod, disabled on removal
#     with phpdismod, its state and links gone on purge,
#   - /usr/share/doc/phpX.Y-shmcache/ with the README, configuration and operations docs.
# It depends on phpapi-NNNNNNNN, the API the extension was built against, which only that PHP
# provides: apt refuses it on a PHP it would not load in.
#
# 8.2 is built on this machine (bookworm); 8.4 in the trixie chroot of scripts/php-versions.sh.
# The package lands in target/packages/. scripts/test-packages.sh installs it in a clean chroot.
#
# Usage: scripts/package.sh 8.2|8.4      prints the path of the .deb
source "$(dirname "$0")/common.sh"

VER=${1:?usage: scripts/package.sh 8.2|8.4}
PKG="php$VER-shmcache"
OUT="$ROOT/target/packages"
VERSION=$(sed -n 's/^version = "\(.*\)"/\1/p' "$ROOT/Cargo.toml" | head -n 1)
ARCH=$(dpkg --print-architecture)

case $VER in
  8.2)
    # Bookworm's own PHP: the host's release build (the one scripts/test.sh tests).
    build_release
    so=$SO
    ext_dir=$(php-config8.2 --extension-dir)
    phpapi=$(php-config8.2 --phpapi)
    ;;
  8.4 | 8.5 | 8.6)
    # Built (or found built) in that PHP's chroot. A PHP of experimental gets a package too,
    # but only 8.2 and 8.4 are installed and tested by scripts/test-packages.sh.
    read -r so ext_dir phpapi < <(bash "$ROOT/scripts/php-versions.sh" --build "$VER")
    ;;
  *) echo "no package for PHP $VER (8.2, 8.4)" >&2; exit 2 ;;
esac
[ -f "${so:-}" ] && [ -n "${ext_dir:-}" ] && [ -n "${phpapi:-}" ] || {
  echo "could not build the extension for PHP $VER" >&2
  exit 1
}

STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
chmod 755 "$STAGE" # mktemp's 700 would be the mode of the package's "./"
mkdir -p "$STAGE/DEBIAN" "$STAGE$ext_dir" "$STAGE/etc/php/$VER/mods-available" "$STAGE/usr/share/doc/$PKG"

# The extension, without its debug information (a quarter of the size; the build keeps it for
# profiling, not needed in production).
objcopy --strip-debug "$so" "$STAGE$ext_dir/libshmcache.so"
chmod 644 "$STAGE$ext_dir/libshmcache.so"

cat >"$STAGE/etc/php/$VER/mods-available/shmcache.ini" <<EOF
; shmcache: a shared-memory object cache for PHP, one region per PHP-FPM master.
; Installed by the $PKG package: enabled for every SAPI by phpenmod. To turn it off for one
; SAPI: phpdismod -v $VER -s fpm shmcache (or -s cli), then restart php$VER-fpm.
; Settings, their defaults and sizes: /usr/share/doc/$PKG/configuration.md
; Production notes (named regions, several sites, upgrades): /usr/share/doc/$PKG/operations.md
; priority=20
extension=libshmcache.so

; The region's sizes are fixed when PHP-FPM starts (restart it after a change):
;shmcache.keys_memory_size = 4M
;shmcache.values_memory_size = 64M
; The CLI gets no region unless asked (php -d shmcache.enable_cli=1, or a named region):
;shmcache.enable_cli = 0
EOF
echo "/etc/php/$VER/mods-available/shmcache.ini" >"$STAGE/DEBIAN/conffiles"

cp "$ROOT/README.md" "$ROOT/docs/configuration.md" "$ROOT/docs/operations.md" "$STAGE/usr/share/doc/$PKG/"
cat >"$STAGE/usr/share/doc/$PKG/copyright" <<EOF
shmcache $VERSION, a PHP extension written in Rust. License: MIT (see the project's Cargo.toml).
Built from the project's source for PHP $VER (PHP API $phpapi).
EOF

# Maintainer scripts: phpenmod/phpdismod from php-common keep each SAPI's conf.d link and a state
# file saying who enabled it. -m records the package as having done it, so that an admin's
# phpdismod is kept on upgrade.
cat >"$STAGE/DEBIAN/postinst" <<EOF
#!/bin/sh
# Enables shmcache for every SAPI of PHP $VER (restart php$VER-fpm to load it there).
set -e
if [ "\$1" = configure ]; then
  phpenmod -v $VER -s ALL -m shmcache
fi
EOF
cat >"$STAGE/DEBIAN/prerm" <<EOF
#!/bin/sh
# Disables shmcache before its .so goes away, so that no PHP starts with a link to a missing file.
set -e
if [ "\$1" = remove ] && command -v phpdismod >/dev/null; then
  phpdismod -v $VER -s ALL -m shmcache
fi
EOF
cat >"$STAGE/DEBIAN/postrm" <<EOF
#!/bin/sh
# On purge (the ini is gone by now), forget the enable/disable state phpenmod/phpdismod recorded
# for each SAPI and drop any conf.d link still pointing at shmcache.ini.
set -e
if [ "\$1" = purge ]; then
  for state in /var/lib/php/modules/$VER/*/; do
    [ -d "\$state" ] || continue
    for kind in enabled_by_maint enabled_by_admin disabled_by_maint disabled_by_admin; do
      rm -f "\$state\$kind/shmcache"
      # phpdismod made the directory for this state file: gone with it when nothing else is in it.
      [ -d "\$state\$kind" ] && rmdir --ignore-fail-on-non-empty "\$state\$kind"
    done
  done
  for link in /etc/php/$VER/*/conf.d/*-shmcache.ini; do
    [ -L "\$link" ] && rm -f "\$link"
  done
fi
exit 0
EOF
chmod 755 "$STAGE/DEBIAN/postinst" "$STAGE/DEBIAN/prerm" "$STAGE/DEBIAN/postrm"

cat >"$STAGE/DEBIAN/control" <<EOF
Package: $PKG
Version: $VERSION
Architecture: $ARCH
Maintainer: shmcache developers <shmcache@localhost>
Section: php
Priority: optional
Depends: phpapi-$phpapi, php-common, libc6
Installed-Size: $(du -sk --exclude=DEBIAN "$STAGE" | cut -f1)
Description: shared-memory object cache for PHP $VER (shmcache)
 A PHP extension written in Rust: one shared-memory region per PHP-FPM master,
 read and written directly by every worker, lock-free. Functions shmcache_*,
 class ShmCache, optional apcu_* compatibility; a WordPress drop-in is in the
 project's source.
EOF

mkdir -p "$OUT"
deb="$OUT/${PKG}_${VERSION}_$ARCH.deb"
dpkg-deb --root-owner-group -Zxz --build "$STAGE" "$deb" >/dev/null
echo "$deb"
