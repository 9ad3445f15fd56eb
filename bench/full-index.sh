#!/usr/bin/env bash
# Sets of new keys into a full cache (bench/full-index.php), side by side: shmcache with a key
# table of 1 MB (114,688 slots) filled with twice as many keys, so that every insert evicts,
# and APCu with 16 MB of shared memory filled the same way (it expunges when full); with
# BENCH_SO_B, a second shmcache build as well. The variants take turns, rotated each round;
# prints each round's sets/s per variant and the medians.
#   bash bench/full-index.sh        BENCH_ROUNDS (5), BENCH_SO (this build), BENCH_SO_B
source "$(dirname "$0")/../scripts/common.sh"
[ -n "${BENCH_SO:-}" ] || build_release
rounds=${BENCH_ROUNDS:-5}
apcu="$(php-config --extension-dir)/apcu.so"
declare -A cmd
cmd[shmcache]="php -n -d extension=${BENCH_SO:-$SO} -d shmcache.enable_cli=1 -d shmcache.keys_memory_size=1M -d shmcache.values_memory_size=80M $ROOT/bench/full-index.php shmcache"
names=(shmcache)
if [ -n "${BENCH_SO_B:-}" ]; then
  cmd[shmcache_b]="php -n -d extension=$BENCH_SO_B -d shmcache.enable_cli=1 -d shmcache.keys_memory_size=1M -d shmcache.values_memory_size=80M $ROOT/bench/full-index.php shmcache"
  names+=(shmcache_b)
fi
if [ -f "$apcu" ]; then
  cmd[apcu]="php -n -d extension=$apcu -d apc.enable_cli=1 -d apc.shm_size=16M $ROOT/bench/full-index.php apcu"
  names+=(apcu)
fi
declare -A results
for ((r = 0; r < rounds; r++)); do
  order=("${names[@]:r % ${#names[@]}}" "${names[@]:0:r % ${#names[@]}}")
  line="round $((r + 1)):"
  for v in "${order[@]}"; do
    m=$(${cmd[$v]})
    results[$v]+="$m "
    line+=" $v $m M/s"
  done
  echo "$line"
done
for v in "${names[@]}"; do
  echo "$v: median $(printf '%s\n' ${results[$v]} | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}') M sets/s (rounds: ${results[$v]% })"
done
