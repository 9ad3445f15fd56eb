#!/usr/bin/env bash
# Instructions a whole WordPress page costs, counted by callgrind, with each object-cache drop-in
# given and with none: repeatable on a busy machine where requests/s is mostly noise. One CLI
# process forks four children one after the other, each rendering the page
# (bench/wp-render-forked.php, bench/wp-render.php: WordPress's front end, as index.php runs it);
# like PHP-FPM's workers they share what their parent mapped: OPcache's shared memory and the
# object cache's (shmcache's region with shmcache.enable_cli, APCu's), so three renders warm
# both and the fourth is counted, from its fork to the start of its request shutdown (the
# request, as an FPM worker serves it: no PHP start-up, no compiling). A row with a cache of its
# own starts with it empty.
#   bash bench/wp-instructions.sh [DROPIN.php...]     (default: wordpress/object-cache.php)
# e.g. the drop-in before and after a change:
#   git show 0adefe3:wordpress/object-cache.php >/tmp/before.php
#   bash bench/wp-instructions.sh /tmp/before.php wordpress/object-cache.php
# Runs on its own stack (own address, port and directory), like bench/wordpress.sh.
# More rows:
#   BENCH_APCU_DROPIN=FILE        an APCu drop-in's object-cache.php (e.g. github.com/l3rady/
#                                 object-cache-apcu's), with APCu loaded for that row only
# and, each with a redis-server of the script's own on a private unix socket:
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

# count PATH -> instructions of the fourth render of PATH (its stderr line, queries and cache,
# in $WORK/last); the renders' children write $WORK/cg.PID and $WORK/cg.PID.1 (the request)
MODE_ARGS=()
count() {
  local path=$1 pids
  rm -f "$WORK"/cg.*
  pids=$(WP_STACK_HOST="$WP_STACK_HOST" valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.%p" \
    --zero-before='*fork' --dump-before=php_request_shutdown \
    php -d extension="$SO" -d shmcache.enable_cli=1 -d opcache.enable_cli=1 "${MODE_ARGS[@]}" \
    "$ROOT/bench/wp-render-forked.php" "$path" 4 2>"$WORK/err") || { grep -v '^==' "$WORK/err" >&2; return 1; }
  grep '^queries=' "$WORK/err" | tail -n 1 >"$WORK/last"
  sed -n 's/^summary: *//p' "$WORK/cg.$(echo "$pids" | tail -n 1).1"
}

# "perfect": bench/perfect-object-cache.php, values from a PHP file that the first render of
# the page wrote and the others find compiled in OPcache's shared memory (an array literal,
# included without a copy): the limit no shared cache can beat (each value is still
# unserialized when the page asks for it).
rows=(none perfect "$@")
if [ -n "${BENCH_APCU_DROPIN:-}" ]; then
  [ -f "$BENCH_APCU_DROPIN" ] || { echo "BENCH_APCU_DROPIN: $BENCH_APCU_DROPIN does not exist" >&2; exit 1; }
  apt_need php8.2-apcu
  rows+=(apcu)
fi
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
for row in "${rows[@]}"; do
  i=$((i + 1))
  MODE_ARGS=()
  label=$row
  rm -f "$WP_STACK_CONF/wp-config-extra.php"
  case $row in
    none) wp_stack_dropin off >&2 ;;
    perfect) WP_STACK_DROPIN_SRC="$ROOT/bench/perfect-object-cache.php" wp_stack_dropin on >&2 ;;
    apcu)
      WP_STACK_DROPIN_SRC=$(readlink -f "$BENCH_APCU_DROPIN") wp_stack_dropin on >&2
      MODE_ARGS=(-d extension=apcu.so -d apc.enable_cli=1)
      label="APCu: $(sed -n 's/^ *\** *Plugin Name: *//p' "$BENCH_APCU_DROPIN" | head -n 1)"
      ;;
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
  line="| $label |"
  for path in / "$single"; do
    # (Read by the perfect row only: one snapshot per page, written by its first render.)
    export SHMCACHE_PERFECT_SNAPSHOT="$WORK/perfect-$i-$(printf %s "$path" | md5sum | cut -c1-8).php"
    counted=$(count "$path")
    line+=" $counted | $(sed -n 's/^queries=\([0-9]*\).*/\1/p' "$WORK/last") |"
  done
  echo "$line"
done
