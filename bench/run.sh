#!/usr/bin/env bash
# Side-by-side PHP benchmark: shmcache, APCu and Yac 2.3 from Debian, all loaded in one CLI.
source "$(dirname "$0")/../scripts/common.sh"
build_release
apt_need php8.2-apcu
# php8.2-yac conflicts with php8.2-apcu as a package: extract its yac.so instead of installing.
YAC_DIR="$ROOT/target/peers/yac"
if [ ! -f "$YAC_DIR/yac.so" ]; then
  log "extracting yac.so from Debian's php8.2-yac"
  tmp=$(mktemp -d)
  (cd "$tmp" && apt-get download php8.2-yac >/dev/null 2>&1 && dpkg -x php8.2-yac_*.deb x)
  mkdir -p "$YAC_DIR"
  cp "$(find "$tmp/x" -name yac.so | head -n 1)" "$YAC_DIR/yac.so"
  rm -rf "$tmp"
fi
APCU_SO=$(php-config --extension-dir)/apcu.so
exec php -n \
  -d extension="$APCU_SO" -d apc.enable_cli=1 -d apc.shm_size=256M -d apc.entries_hint=200000 \
  -d extension="$YAC_DIR/yac.so" -d yac.enable_cli=1 -d yac.keys_memory_size=16M -d yac.values_memory_size=256M \
  -d extension="$SO" -d shmcache.enable_cli=1 -d shmcache.keys_memory_size=2M -d shmcache.values_memory_size=256M \
  -d memory_limit=1G \
  "$ROOT/bench/micro.php" "$@"
