#!/usr/bin/env bash
# WordPress front page and single post: requests/s, p50 and p95 at concurrency 4 and 8, side by
# side in one interleaved run, for each object cache:
#   none       no object-cache drop-in (core's per-request cache)
#   shmcache   this project's drop-in (wordpress/object-cache.php)
#   before     this project's drop-in as it was at BENCH_WP_BEFORE (a commit), on the same
#              extension build: the drop-in's own cost, before and after (only with BENCH_WP_BEFORE)
#   redis      Redis Object Cache (the redis-cache plugin's drop-in) with phpredis, on a
#              redis-server the bench starts on a unix socket (only with BENCH_REDIS_CACHE_DIR)
#   apcu       an APCu object-cache drop-in, with APCu loaded (only with BENCH_APCU_DROPIN)
# plus the CPU time a page costs (user + system time of the PHP-FPM workers during a cell, over
# the requests it completed; the same for MariaDB and redis-server together), SQL queries per
# page, then where each page's CPU time goes (an Excimer profile of none and shmcache,
# bench/wp_profile.py). On a loaded machine requests/s mostly measures waiting for a core; the
# CPU time per page moves much less with the load.
#
# The other projects' drop-ins are not part of this repository: give their source, e.g. a
# checkout of github.com/rhubarbgroup/redis-cache and of github.com/l3rady/object-cache-apcu.
#   BENCH_REDIS_CACHE_DIR   the redis-cache plugin's directory (with includes/object-cache.php)
#   BENCH_APCU_DROPIN       an APCu drop-in's object-cache.php
#   BENCH_WP_BEFORE         a commit of this repository whose wordpress/object-cache.php runs as
#                           the mode "before"
#   BENCH_WP_ROUNDS         rounds (default 5); each runs every mode, the order rotated per round
#   BENCH_WP_SECONDS        seconds per cell (default 3)
#   BENCH_WP_PROFILE        0: skip the CPU profile (default 1)
# A mode whose setting is not given is skipped, with a line saying so. Each FPM is started for
# its mode only: phpredis (and igbinary, which it needs) only for redis, APCu only for apcu; the
# shmcache extension is loaded in every mode, as on a server that has it installed.
# Uses its own stack (own loopback address, port and directory) so it never disturbs another.
export WP_STACK_IP=${WP_STACK_IP:-127.0.0.5} WP_PORT=${WP_PORT:-8095} WP_STACK_PRODUCTION=1
export WP_STACK_DIR=${WP_STACK_DIR:-$(cd "$(dirname "$0")/.." && pwd)/target/wp-stack-bench}
source "$(dirname "$0")/../scripts/wp-stack.sh"
source "$(dirname "$0")/wp-lib.sh"
apt_need apache2-utils
# The machine these runs share drifts by tens of percent over minutes, so the modes are
# interleaved: BENCH_WP_ROUNDS rounds, each running every mode (in rotated order) for
# BENCH_WP_SECONDS per cell; the table gives each cell's median over the rounds, the next one
# every round, and the ratio lines the median of the rounds' ratios and every one of them.
ROUNDS=${BENCH_WP_ROUNDS:-5}
SECONDS_PER_RUN=${BENCH_WP_SECONDS:-3}
EXTRA_CONFIG="$WP_STACK_CONF/wp-config-extra.php"
REDIS_DIR="$WP_STACK_DIR/redis"
REDIS_SOCKET="$REDIS_DIR/redis.sock"
OUR_DROPIN="$WP_STACK_DROPIN_SRC"

cleanup() {
  set +e
  rm -f "$EXTRA_CONFIG"
  WP_STACK_DROPIN_SRC="$OUR_DROPIN"
  wp_stack_dropin off
  wp_stack_stop >/dev/null 2>&1
  if [ -f "$REDIS_DIR/redis.pid" ]; then
    kill "$(cat "$REDIS_DIR/redis.pid")" 2>/dev/null
    rm -f "$REDIS_DIR/redis.pid"
  fi
}
trap cleanup EXIT

# ------------------------------------------------------------------------------------- modes
MODES=(none shmcache)
declare -A LABEL=([none]="none" [shmcache]="shmcache")
if [ -n "${BENCH_WP_BEFORE:-}" ]; then
  BEFORE_DROPIN="$ROOT/target/bench/object-cache-before.php"
  mkdir -p "$ROOT/target/bench"
  git -C "$ROOT" show "$BENCH_WP_BEFORE:wordpress/object-cache.php" >"$BEFORE_DROPIN"
  MODES+=(before)
  LABEL[before]="shmcache, drop-in of $(git -C "$ROOT" rev-parse --short "$BENCH_WP_BEFORE")"
else
  echo "mode before: skipped (set BENCH_WP_BEFORE to a commit to compare the drop-in with)"
fi
if [ -n "${BENCH_REDIS_CACHE_DIR:-}" ]; then
  REDIS_DROPIN="$BENCH_REDIS_CACHE_DIR/includes/object-cache.php"
  [ -f "$REDIS_DROPIN" ] || { echo "BENCH_REDIS_CACHE_DIR: $REDIS_DROPIN does not exist" >&2; exit 1; }
  apt_need redis-server php8.2-redis
  MODES+=(redis)
  LABEL[redis]="Redis Object Cache $(sed -n 's/^ \* Version: *//p' "$REDIS_DROPIN" | head -n 1)"
else
  echo "mode redis: skipped (set BENCH_REDIS_CACHE_DIR to a checkout of the redis-cache plugin)"
fi
if [ -n "${BENCH_APCU_DROPIN:-}" ]; then
  [ -f "$BENCH_APCU_DROPIN" ] || { echo "BENCH_APCU_DROPIN: $BENCH_APCU_DROPIN does not exist" >&2; exit 1; }
  apt_need php8.2-apcu
  MODES+=(apcu)
  LABEL[apcu]="APCu: $(sed -n 's/^Plugin Name: *//p' "$BENCH_APCU_DROPIN" | head -n 1) $(sed -n 's/^Version: *//p' "$BENCH_APCU_DROPIN" | head -n 1)"
else
  echo "mode apcu: skipped (set BENCH_APCU_DROPIN to an APCu drop-in's object-cache.php)"
fi

if [[ " ${MODES[*]} " == *" redis "* ]]; then
  mkdir -p "$REDIS_DIR"
  rm -f "$REDIS_SOCKET"
  redis-server --port 0 --unixsocket "$REDIS_SOCKET" --unixsocketperm 770 --save '' --appendonly no \
    --daemonize yes --pidfile "$REDIS_DIR/redis.pid" --logfile "$REDIS_DIR/redis.log" --dir "$REDIS_DIR"
  for _ in $(seq 50); do [ -S "$REDIS_SOCKET" ] && break; sleep 0.1; done
  [ -S "$REDIS_SOCKET" ] || { echo "redis-server did not come up (see $REDIS_DIR/redis.log)" >&2; exit 1; }
fi

wp_stack_start >&2
single=$(wp_stack_eval 'echo wp_make_link_relative(get_permalink(get_posts(["numberposts" => 1, "orderby" => "ID", "order" => "ASC"])[0]));')

stats_header() { # stats_header PATH NAME
  curl -sS -D - -o /dev/null -H 'X-WP-Stack-Stats: 1' "$WP_STACK_URL$1" | tr -d '\r' | sed -n "s/^$2: //Ip"
}
php_pids() { pgrep -P "$(cat "$WP_STACK_RUN/php-fpm.pid")" | tr '\n' ' '; }
server_pids() { # the database, and redis-server when it runs
  cat "$WP_STACK_RUN/mysqld.pid"
  [ ! -f "$REDIS_DIR/redis.pid" ] || cat "$REDIS_DIR/redis.pid"
}

# use_mode MODE: its drop-in, its settings, a fresh FPM with its extensions, an empty cache; then
# checks that the drop-in is the one in use (and persistent), and warms every worker.
use_mode() {
  local mode=$1 fpm_args="" dropin="" class want_ext=1
  rm -f "$EXTRA_CONFIG"
  case $mode in
    none) want_ext=0 ;;
    shmcache) dropin=$OUR_DROPIN ;;
    before) dropin=$BEFORE_DROPIN ;;
    redis)
      dropin=$REDIS_DROPIN
      fpm_args="-d extension=igbinary.so -d extension=redis.so"
      printf '<?php\ndefine("WP_REDIS_SCHEME", "unix");\ndefine("WP_REDIS_PATH", "%s");\n' "$REDIS_SOCKET" >"$EXTRA_CONFIG"
      ;;
    apcu)
      dropin=$BENCH_APCU_DROPIN
      fpm_args="-d extension=apcu.so -d apc.enabled=1"
      ;;
  esac
  if [ -n "$dropin" ]; then
    WP_STACK_DROPIN_SRC=$dropin wp_stack_dropin on >&2
  else
    wp_stack_dropin off >&2
  fi
  wp_stack_fpm_stop >&2
  WP_STACK_FPM_ARGS=$fpm_args wp_stack_fpm_start >&2
  [ "$mode" != redis ] || redis-cli -s "$REDIS_SOCKET" flushall >/dev/null
  class=$(stats_header / X-WP-Cache-Class)
  if [ "$(stats_header / X-WP-Ext-Cache)" != "$want_ext" ]; then
    echo "mode $mode: the object cache is not the one asked for (class $class, external cache: $(stats_header / X-WP-Ext-Cache))" >&2
    exit 1
  fi
  local path
  for path in / "$single"; do ab -q -n 40 -c 4 "$WP_STACK_URL$path" >/dev/null 2>&1; done
}

declare -A RPS P50 P95 QUERIES PHPCPU SRVCPU
for round in $(seq 1 "$ROUNDS"); do
  n=${#MODES[@]}
  order=()
  for i in $(seq 0 $((n - 1))); do order+=("${MODES[$(((i + round - 1) % n))]}"); done
  echo "round $round: ${order[*]}" >&2
  for mode in "${order[@]}"; do
    use_mode "$mode"
    for path in / "$single"; do
      QUERIES[$mode$path]=$(stats_header "$path" X-WP-Queries)
      for c in 4 8; do
        workers=$(php_pids) servers=$(server_pids)
        # shellcheck disable=SC2086 # lists of pids
        php0=$(cpu_ticks $workers) srv0=$(cpu_ticks $servers)
        out=$(ab -q -k -t "$SECONDS_PER_RUN" -n 1000000 -c "$c" "$WP_STACK_URL$path" 2>&1)
        # shellcheck disable=SC2086
        php1=$(cpu_ticks $workers) srv1=$(cpu_ticks $servers)
        done_requests=$(echo "$out" | sed -n 's/^Complete requests: *\([0-9]*\).*/\1/p')
        key=$mode$path$c
        PHPCPU[$key]+=" $(php -r "printf('%.1f', ($php1 - $php0) * 1000 / $CLK_TCK / max(1, ${done_requests:-0}));")"
        SRVCPU[$key]+=" $(php -r "printf('%.1f', ($srv1 - $srv0) * 1000 / $CLK_TCK / max(1, ${done_requests:-0}));")"
        RPS[$key]+=" $(echo "$out" | sed -n 's/^Requests per second: *\([0-9.]*\).*/\1/p')"
        P50[$key]+=" $(echo "$out" | sed -n 's/^ *50% *\([0-9]*\).*/\1/p')"
        P95[$key]+=" $(echo "$out" | sed -n 's/^ *95% *\([0-9]*\).*/\1/p')"
        failed=$(echo "$out" | sed -n 's/^Failed requests: *\([0-9]*\).*/\1/p')
        non2xx=$(echo "$out" | sed -n 's/^Non-2xx responses: *\([0-9]*\).*/\1/p')
        if [ "${failed:-0}" != 0 ] || [ -n "$non2xx" ]; then
          echo "  (ab reported failed=$failed non-2xx=${non2xx:-0} for $mode $path c=$c)" >&2
        fi
      done
    done
  done
done

echo "Median of $ROUNDS rounds of ${SECONDS_PER_RUN} s per cell, the modes interleaved (order rotated each round)."
echo
echo "| page | object cache | concurrency | requests/s | p50 ms | p95 ms | PHP CPU ms/page | MariaDB + Redis CPU ms/page | SQL queries/page |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
for path in / "$single"; do
  for c in 4 8; do
    for mode in "${MODES[@]}"; do
      key=$mode$path$c
      # shellcheck disable=SC2086 # the lists are space-separated numbers
      echo "| $(page_name "$path") | ${LABEL[$mode]} | $c | $(median ${RPS[$key]}) | $(median ${P50[$key]}) | $(median ${P95[$key]}) | $(median ${PHPCPU[$key]}) | $(median ${SRVCPU[$key]}) | ${QUERIES[$mode$path]} |"
    done
  done
done
echo
echo "Every round, requests/s (p95 ms; PHP CPU ms/page):"
echo
header="| page | concurrency | object cache |"
rule="|---|---:|---|"
for round in $(seq 1 "$ROUNDS"); do header+=" round $round |"; rule+="---:|"; done
echo "$header"
echo "$rule"
for path in / "$single"; do
  for c in 4 8; do
    for mode in "${MODES[@]}"; do
      key=$mode$path$c
      # shellcheck disable=SC2206 # the lists are space-separated numbers
      rps=(${RPS[$key]}) p95=(${P95[$key]}) cpu=(${PHPCPU[$key]})
      row="| $(page_name "$path") | $c | ${LABEL[$mode]} |"
      for i in "${!rps[@]}"; do row+=" ${rps[$i]} (${p95[$i]}; ${cpu[$i]}) |"; done
      echo "$row"
    done
  done
done
echo
# ratio_lines A B: per round, requests/s of A over B and PHP CPU per page of A over B, for each
# page and concurrency; the median and every round.
ratio_lines() {
  local a=$1 b=$2 path c i
  for path in / "$single"; do
    for c in 4 8; do
      # shellcheck disable=SC2206 # the lists are space-separated numbers
      local x=(${RPS[$a$path$c]}) y=(${RPS[$b$path$c]}) u=(${PHPCPU[$a$path$c]}) v=(${PHPCPU[$b$path$c]}) ratios=() cpu=()
      for i in "${!x[@]}"; do
        ratios+=("$(php -r "printf('%.2f', ${x[$i]} / ${y[$i]});")")
        cpu+=("$(php -r "printf('%.2f', ${u[$i]} / max(0.1, ${v[$i]}));")")
      done
      echo "- $(page_name "$path"), concurrency $c: ${LABEL[$a]} / ${LABEL[$b]}: requests/s $(median "${ratios[@]}")× (rounds: $(IFS=,; echo "${ratios[*]}" | sed 's/,/, /g')); PHP CPU per page $(median "${cpu[@]}")× (rounds: $(IFS=,; echo "${cpu[*]}" | sed 's/,/, /g'))"
    done
  done
}
for mode in "${MODES[@]}"; do
  [ "$mode" = none ] || ratio_lines "$mode" none
done
for mode in "${MODES[@]}"; do
  case $mode in before | redis | apcu) ratio_lines shmcache "$mode" ;; esac
done

[ "${BENCH_WP_PROFILE:-1}" = 1 ] || exit 0
# Where the time goes: a CPU profile of the same pages (Excimer, sampling every 0.25 ms of CPU
# time, only in requests that ask for it; the throughput runs above had no profiler loaded).
apt_need php-excimer
PROFILE_DIR="$ROOT/target/bench/profile"
mkdir -p "$PROFILE_DIR"
rm -f "$EXTRA_CONFIG"
WP_STACK_DROPIN_SRC=$OUR_DROPIN
export WP_STACK_FPM_ARGS="-d extension=excimer.so -d auto_prepend_file=$ROOT/wordpress/stack/profile-prepend.php"
wp_stack_fpm_start >&2
profile_page() { # profile_page PATH OUT
  local i
  for i in $(seq 5); do curl -s -o /dev/null "$WP_STACK_URL$1"; done
  : >"$2"
  for i in $(seq "${BENCH_WP_PROFILE_REQUESTS:-100}"); do
    curl -s -H 'X-WP-Stack-Profile: 1' "$WP_STACK_URL$1" | sed -n '/^<!-- wp-stack-profile$/,/^-->$/p' | sed '1d;$d' >>"$2"
  done
}
profiles=()
for mode in none shmcache; do
  if [ $mode = none ]; then wp_stack_dropin off >&2; else wp_stack_dropin on >&2; wp_stack_flush >/dev/null; fi
  for path in / "$single"; do
    name=$([ "$path" = / ] && echo "front page" || echo "single post")
    profile_page "$path" "$PROFILE_DIR/${name// /-}-$mode.txt"
    profiles+=("$name, $([ $mode = none ] && echo 'no object cache' || echo 'shmcache drop-in')=$PROFILE_DIR/${name// /-}-$mode.txt")
  done
done
echo
echo "Where a page's CPU time goes (Excimer samples of ${BENCH_WP_PROFILE_REQUESTS:-100} requests per column, one at a time):"
echo
python3 "$ROOT/bench/wp_profile.py" "${profiles[@]}"
