#!/usr/bin/env bash
# Builds the installable WordPress plugin from wordpress/shmcache-plugin/:
#   target/plugin/shmcache/                    the plugin directory, with its own copy of the
#                                              object-cache drop-in (wordpress/object-cache.php)
#                                              and of wordpress/advanced-cache.php when it exists
#   target/plugin/shmcache-plugin-<version>.zip the same, ready for Plugins → Add New → Upload
# In the repository the plugin reads ../object-cache.php instead (no copy to keep in step).
# Settings: PLUGIN_OUT (default $ROOT/target/plugin). Prints the zip's path last.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

SRC="$ROOT/wordpress/shmcache-plugin"
OUT=${PLUGIN_OUT:-$ROOT/target/plugin}
version=$(sed -n "s/^const SHMCACHE_PLUGIN_VERSION *= *'\([^']*\)';.*/\1/p" "$SRC/shmcache.php")
[ -n "$version" ] || { echo "build-plugin: no SHMCACHE_PLUGIN_VERSION in $SRC/shmcache.php" >&2; exit 1; }
grep -q 'shmcache object cache drop-in' "$ROOT/wordpress/object-cache.php" ||
  { echo "build-plugin: $ROOT/wordpress/object-cache.php is not the drop-in" >&2; exit 1; }

apt_need zip
stage="$OUT/shmcache"
rm -rf "$stage"
mkdir -p "$stage"
cp -R "$SRC/." "$stage/"
cp "$ROOT/wordpress/object-cache.php" "$stage/object-cache.php"
[ ! -f "$ROOT/wordpress/advanced-cache.php" ] || cp "$ROOT/wordpress/advanced-cache.php" "$stage/advanced-cache.php"
find "$stage" -name '*.php' -print0 | xargs -0 -n 1 php -l >/dev/null

zip="$OUT/shmcache-plugin-$version.zip"
rm -f "$zip"
(cd "$OUT" && zip -qr -X "$zip" shmcache)
log "built $zip"
echo "$zip"
