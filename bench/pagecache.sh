#!/usr/bin/env bash
# Front page requests/s and p95 latency with the page cache (wordpress/advanced-cache.php) and
# without it, at concurrency 4 and 8, with wrk over loopback (BENCH_PC_SECONDS each, default 10).
# The object-cache drop-in is on in both runs, so the ratio is what the page cache adds on top.
# Uses its own stack (own loopback address, port and directory) so it never disturbs another;
# stops it at the end. Prints a markdown table.
export WP_STACK_IP=${WP_STACK_IP:-127.0.0.6} WP_PORT=${WP_PORT:-8096}
export WP_STACK_DIR=${WP_STACK_DIR:-$(cd "$(dirname "$0")/.." && pwd)/target/wp-stack-bench-pagecache}
source "$(dirname "$0")/../scripts/wp-stack.sh"
apt_need wrk
SECONDS_PER_RUN=${BENCH_PC_SECONDS:-10}
PAGE=${BENCH_PC_PATH:-/}
LUA=$(mktemp --suffix=.lua)
trap 'wp_stack_pagecache off >/dev/null 2>&1 || true; wp_stack_stop >/dev/null 2>&1 || true; rm -f "$LUA"' EXIT
cat >"$LUA" <<'EOF'
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RPS %.1f\n", summary.requests / (summary.duration / 1e6)))
  io.write(string.format("P50_US %d\nP95_US %d\n", latency:percentile(50), latency:percentile(95)))
  io.write(string.format("ERRORS %d\n", e.connect + e.read + e.write + e.status + e.timeout))
end
EOF

WP_STACK_SHMCACHE=1 wp_stack_start >&2
wp_stack_dropin on >&2

# measure C: "rps p50_ms p95_ms errors" of $PAGE at C connections
measure() {
  local c=$1 threads out
  threads=$(($(nproc) < c ? $(nproc) : c))
  out=$(wrk -t "$threads" -c "$c" -d "${SECONDS_PER_RUN}s" -s "$LUA" "$WP_STACK_URL$PAGE" 2>&1)
  printf '%s %s %s %s\n' \
    "$(echo "$out" | sed -n 's/^RPS //p')" \
    "$(echo "$out" | sed -n 's/^P50_US //p' | awk '{printf "%.2f", $1 / 1000}')" \
    "$(echo "$out" | sed -n 's/^P95_US //p' | awk '{printf "%.2f", $1 / 1000}')" \
    "$(echo "$out" | sed -n 's/^ERRORS //p')"
}
xcache() { curl -sS -D - -o /dev/null "$WP_STACK_URL$PAGE" | tr -d '\r' | sed -n 's/^[Xx]-[Cc]ache: //p'; }

declare -A R
for mode in off on; do
  wp_stack_pagecache "$mode" >&2
  for _ in $(seq 1 20); do curl -s -o /dev/null "$WP_STACK_URL$PAGE"; done
  wrk -t 1 -c 2 -d 2s "$WP_STACK_URL$PAGE" >/dev/null 2>&1 # warm-up (opcache, object cache)
  echo "page cache $mode: X-Cache of $PAGE is '$(xcache)'" >&2
  for c in 4 8; do
    R[$mode$c]=$(measure "$c")
    echo "  c=$c: ${R[$mode$c]}" >&2
  done
done

echo "Front page ($WP_STACK_URL$PAGE), wrk ${SECONDS_PER_RUN} s per cell, $(nproc) CPUs shared by wrk, nginx and $WP_FPM_WORKERS PHP-FPM workers; object-cache drop-in on in both columns."
echo
echo "| concurrency | without page cache: req/s | p95 ms | with page cache: req/s | p95 ms | throughput ratio | p95 ratio |"
echo "|---:|---:|---:|---:|---:|---:|---:|"
for c in 4 8; do
  read -r off_rps off_p50 off_p95 off_err <<<"${R[off$c]}"
  read -r on_rps on_p50 on_p95 on_err <<<"${R[on$c]}"
  ratio=$(awk -v a="$on_rps" -v b="$off_rps" 'BEGIN { printf "%.1f×", (b > 0 ? a / b : 0) }')
  pratio=$(awk -v a="$off_p95" -v b="$on_p95" 'BEGIN { printf "%.1f× lower", (b > 0 ? a / b : 0) }')
  echo "| $c | $off_rps | $off_p95 | $on_rps | $on_p95 | $ratio | $pratio |"
  if [ "${off_err:-0}" != 0 ] || [ "${on_err:-0}" != 0 ]; then
    echo "  (wrk errors at c=$c: without $off_err, with $on_err)" >&2
  fi
done
