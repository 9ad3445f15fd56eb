#!/usr/bin/env bash
# Which of a get's instructions wait for the entry's bytes. At scale (keys and values far
# larger than the CPU's caches) an instruction that needs the entry's bytes waits for them in
# the CPU's scheduler, and enough of them keep the CPU from reaching the next get's key and
# starting its memory access meanwhile: in docs/benchmarks.md ("The avalanches dropped"), each
# such instruction cost a shuffled get at 1,000,000 keys about 0.6 to 1 ns, one that does not
# wait about 0.2. This runs bench/waiting.php under gdb, single-steps one get from its
# handler's entry to the next get's (bench/waiting-trace.py), and follows each instruction's
# inputs from the first load of the entry (bench/waiting.py): the count of those that wait,
# per function. Deterministic for one build (the same get of the same key, no timing).
#   bash bench/waiting.sh [-v]   (-v: the whole listing, each waiting instruction marked W)
#   BENCH_SO: another build
source "$(dirname "$0")/../scripts/common.sh"
[ -n "${BENCH_SO:-}" ] || build_release
apt_need gdb
trace=$(mktemp)
trap 'rm -f "$trace"' EXIT
WAITING_TRACE=$trace gdb -q -batch -x "$ROOT/bench/waiting-trace.py" \
  --args php -n -d extension="${BENCH_SO:-$SO}" -d shmcache.enable_cli=1 "$ROOT/bench/waiting.php" >/dev/null 2>&1
grep -q '^I' "$trace" || { echo "waiting.sh: gdb recorded no instruction" >&2; exit 1; }
python3 "$ROOT/bench/waiting.py" "$trace" "$@"
