#!/usr/bin/env bash
# Instructions a whole WordPress page costs, counted by callgrind, with each object-cache drop-in
# given and with none: repeatable on a busy machine where requests/s is mostly noise. One CLI
# process renders the page (bench/wp-render.php: WordPress's front end, as index.php runs it),
# with shmcache on a named region that every process of the run shares (so the object cache is
# warm, as in PHP-FPM) and OPcache's file cache (so no process compiles the scripts again); three
# renders warm both, then one is counted. The count covers the whole process: PHP start-up,
# WordPress's bootstrap, the query, the theme and the object cache.
#   bash bench/wp-instructions.sh [DROPIN.php...]     (default: wordpress/object-cache.php)
# e.g. the drop-in before and after a change:
#   git show 0adefe3:wordpress/object-cache.php >/tmp/before.php
#   bash bench/wp-instructions.sh /tmp/before.php wordpress/object-cache.php
# Runs on its own stack (own address, port and directory), like bench/wordpress.sh.
# Two more rows, each with a redis-server of the script's own on a private unix socket:
#   BENCH_WPI_TIER=1              our drop-in in tiered mode (shmcache.redis on that server; the
#                                 counted render is a warm page: one sync, near hits)
#   BENCH_REDIS_CACHE_DIR=DIR     Redis Object Cache (DIR: a checkout of the redis-cache plugin),
#                                 with phpredis and igbinary loaded for that row only
export WP_STACK_IP=${WP_STACK_IP:-127.0.0.5} WP_PORT=${WP_PORT:-8095} WP_STACK_PRODUCTION=1
export WP_STACK_DIR=${WP_STACK_DIR:-$(cd "$(dirname "$0")/.." && pwd)/target/wp-stack-bench}
source "$(dirname "$0")/../scripts/wp-stack.sh"
apt_need valgrind
[ $# -gt 0 ] || set -- "$ROOT/wordpress/object-cache.php"
WORK=$(mktemp -d)
OUR_DROPIN="$WP_STACK_DROPIN_SRC"
trap 'WP_STACK_DROPIN_SRC=$OUR_DROPIN; wp_stack_dropin off; wp_stack_stop >/dev/null 2>&1; rm -rf "$WORK"' EXIT
wp_stack_start >&2
single=$(wp_stack_eval 'echo wp_make_link_relative(get_permalink(get_posts(["numberposts" => 1, "orderby" => "ID", "order" => "ASC"])[0]));')

# render REGION PATH [PREFIX...]: one page in a fresh process (under PREFIX, e.g. callgrind_instructions); its stderr line (queries, cache)
MODE_ARGS=()
render() {
  local region=$1 path=$2
  shift 2
  WP_STACK_HOST="$WP_STACK_HOST" "$@" php -d extension="$SO" -d shmcache.region="$region" -d opcache.enable_cli=1 \
    -d opcache.file_cache="$WORK/opcache" -d opcache.file_cache_only=1 "${MODE_ARGS[@]}" "$ROOT/bench/wp-render.php" "$path"
}
count() { # count REGION PATH -> instructions of one render
  render "$1" "$2" callgrind_instructions
}

# "perfect": bench/perfect-object-cache.php, values from a PHP file that an earlier render of
# the page wrote and OPcache keeps compiled. A CLI process has to load that file from OPcache's
# file cache (a copy of the whole array) where an FPM worker would find it in shared memory at
# no cost, so the row also gives its count minus that load ("perfect, loaded for free"),
# counted as a process that includes the file minus one that does not: the limit no shared
# cache can beat (each value is still unserialized when the page asks for it).
rows=(none perfect "$@")
# load_cost FILE -> instructions a CLI process spends including FILE (OPcache file cache warm)
load_cost() {
  local with without
  with=$(callgrind_instructions php -d opcache.enable_cli=1 -d opcache.file_cache="$WORK/opcache" \
    -d opcache.file_cache_only=1 -r "include '$1';")
  without=$(callgrind_instructions php -d opcache.enable_cli=1 -d opcache.file_cache="$WORK/opcache" \
    -d opcache.file_cache_only=1 -r ';')
  echo $((with - without))
}
if [ "${BENCH_WPI_TIER:-0}" = 1 ] || [ -n "${BENCH_REDIS_CACHE_DIR:-}" ]; then
  apt_need redis-server redis-tools
  redis-server --port 0 --unixsocket "$WORK/redis.sock" --unixsocketperm 700 --save "" --appendonly no \
    --daemonize yes --pidfile "$WORK/redis.pid" --logfile "$WORK/redis.log"
  trap 'kill "$(cat "$WORK/redis.pid" 2>/dev/null)" 2>/dev/null; WP_STACK_DROPIN_SRC=$OUR_DROPIN; wp_stack_dropin off; rm -f "$WP_STACK_CONF/wp-config-extra.php"; wp_stack_stop >/dev/null 2>&1; rm -rf "$WORK"' EXIT
  for _ in $(seq 100); do redis-cli -s "$WORK/redis.sock" ping >/dev/null 2>&1 && break; sleep 0.05; done
  [ "${BENCH_WPI_TIER:-0}" = 1 ] && rows+=(tiered)
  if [ -n "${BENCH_REDIS_CACHE_DIR:-}" ]; then
    apt_need php8.2-redis
    rows+=(redis-cache)
  fi
fi

echo "| object cache | front page: instructions | SQL queries | single post: instructions | SQL queries |"
echo "|---|---:|---:|---:|---:|"
i=0
free=""
for row in "${rows[@]}"; do
  i=$((i + 1))
  MODE_ARGS=()
  rm -f "$WP_STACK_CONF/wp-config-extra.php"
  case $row in
    none) wp_stack_dropin off >&2 ;;
    perfect) WP_STACK_DROPIN_SRC="$ROOT/bench/perfect-object-cache.php" wp_stack_dropin on >&2 ;;
    tiered)
      WP_STACK_DROPIN_SRC=$OUR_DROPIN wp_stack_dropin on >&2
      # (No resync inside the counted render, which callgrind slows to seconds: a real one takes
      # milliseconds, far below the interval.)
      MODE_ARGS=(-d shmcache.redis="unix://$WORK/redis.sock" -d shmcache.redis_prefix="wpi$i:" -d shmcache.redis_resync_interval=3600000)
      ;;
    redis-cache)
      WP_STACK_DROPIN_SRC="$BENCH_REDIS_CACHE_DIR/includes/object-cache.php" wp_stack_dropin on >&2
      MODE_ARGS=(-d extension=igbinary.so -d extension=redis.so)
      printf '<?php\ndefine("WP_REDIS_SCHEME", "unix");\ndefine("WP_REDIS_PATH", "%s");\ndefine("WP_REDIS_PREFIX", "wpi%s");\n' \
        "$WORK/redis.sock" "$i" >"$WP_STACK_CONF/wp-config-extra.php"
      ;;
    *) WP_STACK_DROPIN_SRC=$(readlink -f "$row") wp_stack_dropin on >&2 ;;
  esac
  mkdir -p "$WORK/opcache"
  region="$WORK/region-$i" # a new, empty cache for each row
  line="| $row |"
  for path in / "$single"; do
    # (Read by the perfect row only: one snapshot per page, written by its first render.)
    export SHMCACHE_PERFECT_SNAPSHOT="$WORK/perfect-$i-$(printf %s "$path" | md5sum | cut -c1-8).php"
    for _ in 1 2 3; do render "$region" "$path" 2>"$WORK/last" >/dev/null; done
    counted=$(count "$region" "$path")
    line+=" $counted | $(sed -n 's/^queries=\([0-9]*\).*/\1/p' "$WORK/last") |"
    if [ "$row" = perfect ]; then
      free+=" $((counted - $(load_cost "$SHMCACHE_PERFECT_SNAPSHOT"))) | 0 |"
    fi
  done
  echo "$line"
  if [ "$row" = perfect ]; then echo "| perfect, loaded for free |$free"; fi
done
