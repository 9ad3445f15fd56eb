#!/usr/bin/env bash
# WordPress front page and single post: requests/s, p50 and p95 at concurrency 4 and 8, with no
# object cache and with the shmcache drop-in, plus SQL queries and object-cache calls per page,
# then where each page's CPU time goes (an Excimer profile, bench/wp_profile.py).
# Uses its own stack (own loopback address, port and directory) so it never disturbs another.
export WP_STACK_IP=${WP_STACK_IP:-127.0.0.5} WP_PORT=${WP_PORT:-8095} WP_STACK_PRODUCTION=1
export WP_STACK_DIR=${WP_STACK_DIR:-$(cd "$(dirname "$0")/.." && pwd)/target/wp-stack-bench}
source "$(dirname "$0")/../scripts/wp-stack.sh"
apt_need apache2-utils
# The machine these runs share drifts by tens of percent over minutes, so the two modes are
# interleaved: BENCH_WP_ROUNDS rounds, each running both (in alternating order) for
# BENCH_WP_SECONDS per cell; the table gives each cell's median over the rounds, and the ratio
# lines the median of the rounds' ratios and every one of them.
ROUNDS=${BENCH_WP_ROUNDS:-5}
SECONDS_PER_RUN=${BENCH_WP_SECONDS:-3}
trap 'wp_stack_stop >/dev/null 2>&1 || true' EXIT
wp_stack_start >&2
single=$(wp_stack_eval 'echo wp_make_link_relative(get_permalink(get_posts(["numberposts" => 1, "orderby" => "ID", "order" => "ASC"])[0]));')

stats_header() { # stats_header PATH NAME
  curl -sS -D - -o /dev/null -H 'X-WP-Stack-Stats: 1' "$WP_STACK_URL$1" | tr -d '\r' | sed -n "s/^$2: //Ip"
}
median() { # median NUMBER... -> the middle value (the lower middle of an even count)
  printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'
}
page_name() { [ "$1" = / ] && echo "front page" || echo "single post"; }

declare -A RPS P50 P95 QUERIES CALLS
for round in $(seq 1 "$ROUNDS"); do
  modes=(none shmcache)
  [ $((round % 2)) = 0 ] && modes=(shmcache none)
  for mode in "${modes[@]}"; do
    if [ $mode = none ]; then wp_stack_dropin off >&2; else wp_stack_dropin on >&2; wp_stack_flush >/dev/null; fi
    for path in / "$single"; do
      for _ in $(seq 1 10); do curl -s -o /dev/null "$WP_STACK_URL$path"; done
      QUERIES[$mode$path]=$(stats_header "$path" X-WP-Queries)
      CALLS[$mode$path]=$([ "$mode" = none ] && echo "–" || stats_header "$path" X-WP-Cache-Calls)
      for c in 4 8; do
        out=$(ab -q -k -t "$SECONDS_PER_RUN" -n 1000000 -c "$c" "$WP_STACK_URL$path" 2>&1)
        key=$mode$path$c
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

echo "Median of $ROUNDS rounds of ${SECONDS_PER_RUN} s per cell, the two modes interleaved."
echo
echo "| page | object cache | concurrency | requests/s | p50 ms | p95 ms | SQL queries/page | object-cache calls/page |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
for mode in none shmcache; do
  for path in / "$single"; do
    for c in 4 8; do
      key=$mode$path$c
      # shellcheck disable=SC2086 # the lists are space-separated numbers
      echo "| $(page_name "$path") | $mode | $c | $(median ${RPS[$key]}) | $(median ${P50[$key]}) | $(median ${P95[$key]}) | ${QUERIES[$mode$path]} | ${CALLS[$mode$path]} |"
    done
  done
done
echo
for path in / "$single"; do
  for c in 4 8; do
    # shellcheck disable=SC2206 # the lists are space-separated numbers
    none=(${RPS[none$path$c]}) shm=(${RPS[shmcache$path$c]})
    ratios=()
    for i in "${!none[@]}"; do ratios+=("$(php -r "printf('%.2f', ${shm[$i]} / ${none[$i]});")"); done
    echo "- $(page_name "$path"), concurrency $c: shmcache drop-in / no object cache = $(median "${ratios[@]}")× (median; rounds: $(IFS=,; echo "${ratios[*]}" | sed 's/,/, /g'))"
  done
done

# Where the time goes: a CPU profile of the same pages (Excimer, sampling every 0.25 ms of CPU
# time, only in requests that ask for it; the throughput runs above had no profiler loaded).
apt_need php-excimer
PROFILE_DIR="$ROOT/target/bench/profile"
mkdir -p "$PROFILE_DIR"
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
