#!/usr/bin/env bash
# Cache and TLB misses per operation, shmcache vs APCu, from callgrind's cache simulation: this
# machine's perf has no hardware counters (a VM), and a simulation, unlike a timing, gives the
# same count for the same binary and input however busy the machine is. Each operation is one
# pass over KEYS keys (default 100,000) in shuffled order (bench/cache-misses.php); the figures
# are the pass's instructions and misses divided by KEYS. Each cache is sized for the keys as
# bench/scale.sh sizes it (shmcache's key table at about 70% of its slots; APCu's
# entries_hint = KEYS).
# - Cache misses: first-level data read misses, and last-level read and write misses with the
#   last level simulated at BENCH_LL (default 4 MB, 16-way): smaller than a server's, so that
#   the keys do not fit in it, as a busy server's caches are shared with everything else.
# - TLB misses: the same simulation with 4 KiB "lines", i.e. pages: the first level is a
#   first-level data TLB (BENCH_TLB1, default 72 entries, fully associative), the last level a
#   second-level TLB (BENCH_TLB2, default 3,072 entries, 12-way), the sizes of a current server
#   core's (AMD Zen 4: 72 and 3,072 entries). A page is 4 KiB, as shared memory gets on a
#   kernel whose shmem_enabled is `never` (docs/operations.md, huge pages). Instruction fetches
#   share the simulated second level, as they do not in a CPU; a loop's code is a few pages.
# - Branches: conditional branches and those callgrind's branch simulation mispredicts. Its
#   predictor is a plain table of 2-bit counters, far simpler than a CPU's, so the count says
#   which branches depend on data that changes from key to key (a misprediction costs a CPU
#   some tens of cycles), not how many a given CPU mispredicts.
#   bash bench/cache-misses.sh [OP...]     (default: get miss set delete)
source "$(dirname "$0")/../scripts/common.sh"
build_release
apt_need php8.2-apcu valgrind
ops=("$@")
[ ${#ops[@]} -gt 0 ] || ops=(get miss set delete)
keys=${BENCH_KEYS:-100000}
ll=${BENCH_LL:-4194304,16,64}
tlb1=${BENCH_TLB1:-294912,72,4096}
tlb2=${BENCH_TLB2:-12582912,12,4096}
keys_mem=$(( (keys * 64 / 7 * 10 / 7 / 1048576 + 1) * 1048576 ))
values_mem=$(( (keys * 160 / 1048576 + 32) * 1048576 ))
apcu_mem=$(( keys * 400 / 1048576 + 48 ))M
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# run SIM CACHE OP -> "Ir D1mr D1mw DLmr DLmw" of the whole process, then for SIM cache
# "Bc Bcm" (the branch simulation runs with the cache one); SIM: cache | tlb
run() {
  local ini=(-d extension="$SO" -d shmcache.enable_cli=1 -d shmcache.keys_memory_size=$keys_mem -d shmcache.values_memory_size=$values_mem)
  [ "$2" = apcu ] && ini=(-d extension="$(php-config --extension-dir)/apcu.so" -d apc.enable_cli=1 -d apc.shm_size=$apcu_mem -d apc.entries_hint="$keys")
  local sim=(--LL="$ll" --branch-sim=yes)
  [ "$1" = tlb ] && sim=(--D1="$tlb1" --LL="$tlb2")
  valgrind --tool=callgrind --cache-sim=yes "${sim[@]}" --callgrind-out-file=/dev/null \
    php -n -d memory_limit=2G "${ini[@]}" "$ROOT/bench/cache-misses.php" "$2" "$3" "$keys" 2>&1 |
    sed -n 's/.*Collected : *//p' | awk '{print $1, $5, $6, $8, $9, $10, $11}'
}
for sim in cache tlb; do
  for cache in shmcache apcu; do
    run "$sim" "$cache" none >"$tmp/$sim.$cache.none" &
  done
  wait
  for op in "${ops[@]}"; do
    run "$sim" shmcache "$op" >"$tmp/$sim.shmcache.$op" &
    run "$sim" apcu "$op" >"$tmp/$sim.apcu.$op"
    wait
  done
done
# per SIM CACHE OP FIELD [DECIMALS]: that field's count per key, the process without the pass
# subtracted
per() {
  local a b
  a=$(awk -v f="$4" '{print $f}' "$tmp/$1.$2.none")
  b=$(awk -v f="$4" '{print $f}' "$tmp/$1.$2.$3")
  php -r "printf('%.${5:-2}f', ($b - $a) / $keys);"
}
# table SIM HEADER COLUMN...: a markdown table, a row per operation and cache; COLUMN is a field
# of SIM's figures, with ":D" for D decimals (default 2)
table() {
  local sim=$1 header=$2 op cache column decimals row
  shift 2
  echo "| operation | cache | $header |"
  echo "|---|---|$(printf -- '---:|%.0s' "$@")"
  for op in "${ops[@]}"; do
    for cache in shmcache apcu; do
      row="| $op | $cache |"
      for column in "$@"; do
        decimals=2
        [[ $column == *:* ]] && decimals=${column#*:}
        row+=" $(per "$sim" "$cache" "$op" "${column%%:*}" "$decimals") |"
      done
      echo "$row"
    done
  done
}
table cache "instructions | L1 data read misses | last-level read misses | last-level write misses" 1:0 2 4 5
echo
table tlb "first-level data TLB misses (reads) | (writes) | second-level TLB misses (reads) | (writes)" 2 3 4 5
echo
table cache "conditional branches | mispredicted (callgrind's predictor)" 6:1 7
