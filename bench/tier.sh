#!/usr/bin/env bash
# Tiered mode on two web servers: WordPress front page and single post, requests/s of both
# servers together, Redis round trips per page and CPU time per page, side by side in one
# interleaved run, for each object cache:
#   tier   this project's drop-in, both PHP-FPM masters with shmcache.redis on the bench's
#          redis-server (each server's region a near copy in front of Redis)
#   redis  Redis Object Cache (the redis-cache plugin's drop-in, phpredis) on both servers, on
#          the same redis-server (only with BENCH_REDIS_CACHE_DIR)
#   none   no object-cache drop-in
# Server A is the harness stack (scripts/wp-stack.sh), server B a second FPM master and nginx on
# the same WordPress and MariaDB (scripts/tier-stack.sh). Each cell loads both at once: one ab
# per server, in parallel, for BENCH_TIER_SECONDS. Redis round trips per page are Redis' own
# count (INFO commandstats) over the cell, divided by the requests completed: for the tier its
# scripts (EVALSHA + EVAL; every call of the tier is one script, one round trip), for Redis
# Object Cache every command (it sends one command per round trip, except MGET for several
# keys). CPU per page is user + system time of both FPMs' workers over the requests completed
# (and of MariaDB + redis-server together).
#
# Then a micro part: shmcache_get of a near-cache hit in tiered mode against the same get
# without shmcache.redis (the single-machine mode), each cell a new PHP CLI process, the two
# modes interleaved, for a string, a 20-element array and a WordPress post object.
#
#   BENCH_REDIS_CACHE_DIR      the redis-cache plugin's directory (a checkout of
#                              github.com/rhubarbgroup/redis-cache; not part of this repository)
#   BENCH_TIER_ROUNDS          rounds (default 5); each runs every mode, the order rotated per round
#   BENCH_TIER_SECONDS         seconds per cell (default 8)
#   BENCH_TIER_WORKERS         PHP-FPM workers per server (default 2)
#   BENCH_TIER_CONCURRENCY     ab's concurrency per server (default 2)
#   BENCH_TIER_MICRO_ROUNDS    micro rounds (default 5; 0 skips the micro part)
#   BENCH_TIER_MICRO_SECONDS   seconds per micro cell (default 1)
#   BENCH_TIER_RTT_US          a network round trip between the web servers and Redis, in
#                              microseconds (default 0: Redis on a local unix socket). The kernel
#                              here has no netem, so a proxy (bench/delay-proxy.c, built with
#                              gcc) holds each chunk half of it in each direction; both object
#                              caches then reach Redis through it.
#   WP_STACK_IP, WP_PORT, TIER_B_IP, TIER_B_PORT, WP_STACK_DIR: the two servers' addresses and
#   the stack's directory (defaults 127.0.0.9:8099, 127.0.0.10:8100, target/wp-stack-bench-tier)
export WP_STACK_IP=${WP_STACK_IP:-127.0.0.9} WP_PORT=${WP_PORT:-8099} WP_STACK_PRODUCTION=1
export TIER_B_IP=${TIER_B_IP:-127.0.0.10} TIER_B_PORT=${TIER_B_PORT:-8100}
export WP_STACK_DIR=${WP_STACK_DIR:-$(cd "$(dirname "$0")/.." && pwd)/target/wp-stack-bench-tier}
export WP_FPM_WORKERS=${BENCH_TIER_WORKERS:-2}
source "$(dirname "$0")/../scripts/wp-stack.sh"
source "$ROOT/scripts/tier-stack.sh"
source "$ROOT/bench/wp-lib.sh"
apt_need apache2-utils
ROUNDS=${BENCH_TIER_ROUNDS:-5}
SECONDS_PER_RUN=${BENCH_TIER_SECONDS:-8}
CONCURRENCY=${BENCH_TIER_CONCURRENCY:-2}
MICRO_ROUNDS=${BENCH_TIER_MICRO_ROUNDS:-5}
MICRO_SECONDS=${BENCH_TIER_MICRO_SECONDS:-1}
EXTRA_CONFIG="$WP_STACK_CONF/wp-config-extra.php"
OUR_DROPIN="$WP_STACK_DROPIN_SRC"
RTT_US=${BENCH_TIER_RTT_US:-0}
PROXY_PID=""

cleanup() {
  set +e
  rm -f "$EXTRA_CONFIG"
  WP_STACK_DROPIN_SRC="$OUR_DROPIN"
  wp_stack_dropin off
  tier_b_stop >/dev/null 2>&1
  wp_stack_stop >/dev/null 2>&1
  tier_redis_stop >/dev/null 2>&1
  [ -z "$PROXY_PID" ] || kill "$PROXY_PID" 2>/dev/null
}
trap cleanup EXIT

MODES=(tier)
declare -A LABEL=([tier]="shmcache tiered" [none]="none")
if [ -n "${BENCH_REDIS_CACHE_DIR:-}" ]; then
  REDIS_DROPIN="$BENCH_REDIS_CACHE_DIR/includes/object-cache.php"
  [ -f "$REDIS_DROPIN" ] || { echo "BENCH_REDIS_CACHE_DIR: $REDIS_DROPIN does not exist" >&2; exit 1; }
  apt_need php8.2-redis
  MODES+=(redis)
  LABEL[redis]="Redis Object Cache $(sed -n 's/^ \* Version: *//p' "$REDIS_DROPIN" | head -n 1)"
else
  echo "mode redis: skipped (set BENCH_REDIS_CACHE_DIR to a checkout of the redis-cache plugin)"
fi
MODES+=(none)

tier_redis_start
# Where both object caches reach Redis: its socket, or the delaying proxy in front of it.
REDIS_ENDPOINT=$TIER_REDIS_SOCK
if [ "$RTT_US" -gt 0 ]; then
  mkdir -p "$ROOT/target/bench"
  gcc -O2 -pthread -o "$ROOT/target/bench/delay-proxy" "$ROOT/bench/delay-proxy.c" || exit 1
  REDIS_ENDPOINT="$TIER_REDIS_DIR/delayed.sock"
  rm -f "$REDIS_ENDPOINT"
  "$ROOT/target/bench/delay-proxy" "$REDIS_ENDPOINT" "$TIER_REDIS_SOCK" $((RTT_US / 2)) &
  PROXY_PID=$!
  for _ in $(seq 100); do redis-cli -s "$REDIS_ENDPOINT" ping >/dev/null 2>&1 && break; sleep 0.05; done
  # What one round trip through it costs, as a client sees it (one connection, one PING at a time).
  rtt_seen=$(redis-benchmark -s "$REDIS_ENDPOINT" -n 2000 -c 1 -t ping_mbulk --csv 2>/dev/null |
    awk -F'"' 'NR == 2 {printf "%.0f µs median, %.0f µs mean", $10 * 1000, $6 * 1000}')
  echo "Redis through the proxy: one PING round trip takes $rtt_seen" >&2
fi
TIER_INI="-d shmcache.redis=unix://$REDIS_ENDPOINT -d shmcache.redis_prefix=wp:"
wp_stack_dropin off
wp_stack_start >&2
single=$(wp_stack_eval 'echo wp_make_link_relative(get_permalink(get_posts(["numberposts" => 1, "orderby" => "ID", "order" => "ASC"])[0]));')
tier_b_start >&2
URLS=("$WP_STACK_URL" "$TIER_B_URL")

stats_header() { # stats_header URL NAME
  curl -sS -D - -o /dev/null -H 'X-WP-Stack-Stats: 1' "$1" | tr -d '\r' | sed -n "s/^$2: //Ip"
}
# redis_calls MODE: the commands Redis has run so far that count as the mode's round trips.
redis_calls() {
  redis-cli -s "$TIER_REDIS_SOCK" info commandstats | tr -d '\r' | awk -F'[:=,]' -v mode="$1" '
    /^cmdstat_/ {
      cmd = substr($1, 9)
      if (mode == "tier" && (cmd == "evalsha" || cmd == "eval")) n += $3
      if (mode == "redis" && cmd != "info") n += $3
    }
    END { print n + 0 }'
}
php_pids() { echo "$(pgrep -P "$(cat "$WP_STACK_RUN/php-fpm.pid")" | tr '\n' ' ')$(tier_b_fpm_pids)"; }
server_pids() { cat "$WP_STACK_RUN/mysqld.pid" "$TIER_REDIS_DIR/redis.pid"; }

# use_mode MODE: its drop-in and settings, fresh FPMs on both servers (new regions: empty near
# copies), an empty Redis; checks that each server runs the object cache asked for (and for the
# tier, that it is on), then warms every worker.
use_mode() {
  local mode=$1 fpm_args="" want_ext=1 url
  rm -f "$EXTRA_CONFIG"
  case $mode in
    none) want_ext=0 ;;
    tier) fpm_args=$TIER_INI ;;
    redis)
      fpm_args="-d extension=igbinary.so -d extension=redis.so"
      printf '<?php\ndefine("WP_REDIS_SCHEME", "unix");\ndefine("WP_REDIS_PATH", "%s");\n' "$REDIS_ENDPOINT" >"$EXTRA_CONFIG"
      ;;
  esac
  case $mode in
    none) wp_stack_dropin off >&2 ;;
    tier) WP_STACK_DROPIN_SRC=$OUR_DROPIN wp_stack_dropin on >&2 ;;
    redis) WP_STACK_DROPIN_SRC=$REDIS_DROPIN wp_stack_dropin on >&2 ;;
  esac
  tier_b_fpm_stop >&2
  wp_stack_fpm_stop >&2
  redis-cli -s "$TIER_REDIS_SOCK" flushall >/dev/null
  WP_STACK_FPM_ARGS=$fpm_args wp_stack_fpm_start >&2
  # shellcheck disable=SC2086 # several -d arguments
  tier_b_fpm_start $fpm_args >&2
  for url in "${URLS[@]}"; do
    if [ "$(stats_header "$url/" X-WP-Ext-Cache)" != "$want_ext" ]; then
      echo "mode $mode: $url runs another object cache (class $(stats_header "$url/" X-WP-Cache-Class))" >&2
      exit 1
    fi
    probe=$(curl -s "$url/__wp-stack/probe.php")
    if [ "$mode" = tier ] && ! echo "$probe" | grep -q '"tier_redis": "unix'; then
      echo "mode tier: $url's workers are not on the tier: $probe" >&2
      exit 1
    fi
    # phpredis in another mode's FPM would make that mode pay for an extension it does not use.
    if ! echo "$probe" | grep -q "\"redis_loaded\": $([ "$mode" = redis ] && echo true || echo false)"; then
      echo "mode $mode: $url's workers have phpredis where they should not, or lack it: $probe" >&2
      exit 1
    fi
  done
  local path
  for path in / "$single"; do
    for url in "${URLS[@]}"; do ab -q -n 40 -c 4 "$url$path" >/dev/null 2>&1; done
  done
}

ab_field() { sed -n "s/^$2: *\([0-9.]*\).*/\1/p" "$1"; }
OUT="$ROOT/target/bench/tier"
mkdir -p "$OUT"
declare -A RPS RPS_A RPS_B TRIPS PHPCPU SRVCPU
for round in $(seq 1 "$ROUNDS"); do
  n=${#MODES[@]}
  order=()
  for i in $(seq 0 $((n - 1))); do order+=("${MODES[$(((i + round - 1) % n))]}"); done
  echo "round $round: ${order[*]} ($(cut -d' ' -f1-3 /proc/loadavg))" >&2
  for mode in "${order[@]}"; do
    use_mode "$mode"
    for path in / "$single"; do
      workers=$(php_pids) servers=$(server_pids)
      # shellcheck disable=SC2086 # lists of pids
      php0=$(cpu_ticks $workers) srv0=$(cpu_ticks $servers) calls0=$(redis_calls "$mode")
      ab -q -k -t "$SECONDS_PER_RUN" -n 1000000 -c "$CONCURRENCY" "$WP_STACK_URL$path" >"$OUT/a.txt" 2>&1 &
      ab_a=$!
      ab -q -k -t "$SECONDS_PER_RUN" -n 1000000 -c "$CONCURRENCY" "$TIER_B_URL$path" >"$OUT/b.txt" 2>&1 &
      ab_b=$!
      # (not a bare wait: the stack's MariaDB is a child of this shell too)
      wait "$ab_a" "$ab_b"
      # shellcheck disable=SC2086
      php1=$(cpu_ticks $workers) srv1=$(cpu_ticks $servers) calls1=$(redis_calls "$mode")
      done_requests=$(($(ab_field "$OUT/a.txt" 'Complete requests') + $(ab_field "$OUT/b.txt" 'Complete requests')))
      ra=$(ab_field "$OUT/a.txt" 'Requests per second') rb=$(ab_field "$OUT/b.txt" 'Requests per second')
      key=$mode$path
      RPS_A[$key]+=" $ra"
      RPS_B[$key]+=" $rb"
      RPS[$key]+=" $(php -r "printf('%.1f', $ra + $rb);")"
      TRIPS[$key]+=" $(php -r "printf('%.2f', ($calls1 - $calls0) / max(1, $done_requests));")"
      PHPCPU[$key]+=" $(php -r "printf('%.1f', ($php1 - $php0) * 1000 / $CLK_TCK / max(1, $done_requests));")"
      SRVCPU[$key]+=" $(php -r "printf('%.1f', ($srv1 - $srv0) * 1000 / $CLK_TCK / max(1, $done_requests));")"
      for f in a b; do
        failed=$(ab_field "$OUT/$f.txt" 'Failed requests') non2xx=$(ab_field "$OUT/$f.txt" 'Non-2xx responses')
        if [ "${failed:-0}" != 0 ] || [ -n "$non2xx" ]; then
          echo "  (ab reported failed=$failed non-2xx=${non2xx:-0} on server ${f^^} for $mode $path)" >&2
        fi
      done
    done
  done
done

echo "Two servers (each $WP_FPM_WORKERS PHP-FPM workers, ab concurrency $CONCURRENCY per server, both loaded at once)," \
  "one MariaDB, one redis-server ($([ "$RTT_US" -gt 0 ] && echo "reached through a proxy adding $RTT_US µs per round trip; a PING round trip measured $rtt_seen" || echo "on a local unix socket")); median of $ROUNDS rounds of $SECONDS_PER_RUN s per cell, the modes interleaved" \
  "(order rotated each round). Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
echo
echo "| page | object cache | requests/s, A + B | A | B | Redis round trips/page | PHP CPU ms/page | MariaDB + Redis CPU ms/page |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
for path in / "$single"; do
  for mode in "${MODES[@]}"; do
    key=$mode$path
    # shellcheck disable=SC2086 # the lists are space-separated numbers
    echo "| $(page_name "$path") | ${LABEL[$mode]} | $(median ${RPS[$key]}) | $(median ${RPS_A[$key]}) | $(median ${RPS_B[$key]}) | $(median ${TRIPS[$key]}) | $(median ${PHPCPU[$key]}) | $(median ${SRVCPU[$key]}) |"
  done
done
echo
echo "Every round, requests/s of A + B (Redis round trips/page; PHP CPU ms/page):"
echo
header="| page | object cache |"
rule="|---|---|"
for round in $(seq 1 "$ROUNDS"); do header+=" round $round |"; rule+="---:|"; done
echo "$header"
echo "$rule"
for path in / "$single"; do
  for mode in "${MODES[@]}"; do
    key=$mode$path
    # shellcheck disable=SC2206 # the lists are space-separated numbers
    rps=(${RPS[$key]}) trips=(${TRIPS[$key]}) cpu=(${PHPCPU[$key]})
    row="| $(page_name "$path") | ${LABEL[$mode]} |"
    for i in "${!rps[@]}"; do row+=" ${rps[$i]} (${trips[$i]}; ${cpu[$i]}) |"; done
    echo "$row"
  done
done
echo
# ratio_lines A B: per round, requests/s of A over B and PHP CPU per page of A over B; the
# median and every round.
ratio_lines() {
  local a=$1 b=$2 path i
  for path in / "$single"; do
    # shellcheck disable=SC2206 # the lists are space-separated numbers
    local x=(${RPS[$a$path]}) y=(${RPS[$b$path]}) u=(${PHPCPU[$a$path]}) v=(${PHPCPU[$b$path]}) ratios=() cpu=()
    for i in "${!x[@]}"; do
      ratios+=("$(php -r "printf('%.2f', ${x[$i]} / max(0.1, ${y[$i]}));")")
      cpu+=("$(php -r "printf('%.2f', ${u[$i]} / max(0.1, ${v[$i]}));")")
    done
    echo "- $(page_name "$path"): ${LABEL[$a]} / ${LABEL[$b]}: requests/s $(median "${ratios[@]}")× (rounds: $(IFS=,; echo "${ratios[*]}" | sed 's/,/, /g')); PHP CPU per page $(median "${cpu[@]}")× (rounds: $(IFS=,; echo "${cpu[*]}" | sed 's/,/, /g'))"
  done
}
for mode in "${MODES[@]}"; do
  [ "$mode" = tier ] || ratio_lines tier "$mode"
done
[[ " ${MODES[*]} " != *" redis "* ]] || ratio_lines redis none

[ "$MICRO_ROUNDS" -gt 0 ] || exit 0
# ---------------------------------------------------------------------------------- micro
# The WordPress servers are stopped first: they would only add noise.
tier_b_stop >&2
wp_stack_stop >&2
redis-cli -s "$TIER_REDIS_SOCK" flushall >/dev/null
declare -A MICRO HITS
MICRO_MODES=(single tier)
for round in $(seq 1 "$MICRO_ROUNDS"); do
  for value in string array object; do
    for i in 0 1; do
      mode=${MICRO_MODES[$(((i + round) % 2))]}
      args=(-n -d "extension=$SO" -d shmcache.enable_cli=1)
      # (a prefix of its own: the micro part's keys never meet the site's; no resync within the
      # cell: it would apply the cell's own 5,000 writes as invalidations, more than
      # shmcache.redis_max_apply, and empty the near copy it measures. The interval stays on,
      # long, so that every get still reads its clock, as in production.)
      # shellcheck disable=SC2206 # several -d arguments
      [ "$mode" = single ] || args+=($TIER_INI -d shmcache.redis_prefix=micro: -d shmcache.redis_resync_interval=3600000)
      read -r rate hits < <(php "${args[@]}" "$ROOT/bench/tier-micro.php" "$value" "$MICRO_SECONDS")
      MICRO[$mode$value]+=" $rate"
      HITS[$mode$value]+=" $hits"
    done
  done
done
echo
echo "shmcache_get of a near-cache hit (5,000 keys, shuffled order), gets/s, median of $MICRO_ROUNDS rounds of" \
  "$MICRO_SECONDS s, each cell a new PHP CLI process, the modes interleaved:"
echo
echo "| value | single machine | tiered (near hit) | tiered / single | tiered rounds / single rounds | near hits per get (tiered) |"
echo "|---|---:|---:|---:|---|---:|"
for value in string array object; do
  # shellcheck disable=SC2206 # the lists are space-separated numbers
  s=(${MICRO[single$value]}) t=(${MICRO[tier$value]}) ratios=()
  for i in "${!s[@]}"; do ratios+=("$(php -r "printf('%.2f', ${t[$i]} / ${s[$i]});")"); done
  rounds=""
  for i in "${!s[@]}"; do rounds+="${t[$i]} / ${s[$i]}, "; done
  # shellcheck disable=SC2086
  echo "| $value | $(median ${MICRO[single$value]}) | $(median ${MICRO[tier$value]}) | $(median "${ratios[@]}")× | ${rounds%, } | $(median ${HITS[tier$value]}) |"
done
