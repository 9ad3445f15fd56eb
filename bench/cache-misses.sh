#!/usr/bin/env bash
# Cache misses per operation, shmcache vs APCu, from callgrind's cache simulation: this machine's
# perf has no hardware counters (a VM), and a simulation, unlike a timing, gives the same count
# for the same binary and input however busy the machine is. Each operation is one pass over
# KEYS keys (default 100,000) in shuffled order (bench/cache-misses.php); the figures are the
# pass's instructions, first-level data read misses and last-level read and write misses,
# divided by KEYS. The last level is simulated at BENCH_LL (default 4 MB, 16-way): smaller
# than a server's, so that 100,000 keys (an index of 9 MB and some 10 MB of entries, and
# APCu's table and entries) do not fit, as a busy server's caches are shared with everything
# else. Not simulated: the TLB.
#   bash bench/cache-misses.sh [OP...]     (default: get miss set delete)
source "$(dirname "$0")/../scripts/common.sh"
build_release
apt_need php8.2-apcu valgrind
ops=("$@")
[ ${#ops[@]} -gt 0 ] || ops=(get miss set delete)
keys=${BENCH_KEYS:-100000}
ll=${BENCH_LL:-4194304,16,64}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() { # run CACHE OP -> "Ir D1mr DLmr DLmw" of the whole process
  local ini=(-d extension="$SO" -d shmcache.enable_cli=1 -d shmcache.keys_memory_size=32M -d shmcache.values_memory_size=64M)
  [ "$1" = apcu ] && ini=(-d extension="$(php-config --extension-dir)/apcu.so" -d apc.enable_cli=1 -d apc.shm_size=128M -d apc.entries_hint="$keys")
  valgrind --tool=callgrind --cache-sim=yes --LL="$ll" --callgrind-out-file=/dev/null \
    php -n "${ini[@]}" "$ROOT/bench/cache-misses.php" "$1" "$2" "$keys" 2>&1 |
    sed -n 's/.*Collected : *//p' | awk '{print $1, $5, $8, $9}'
}
for cache in shmcache apcu; do
  run "$cache" none >"$tmp/$cache.none" &
done
wait
echo "| operation | cache | instructions | L1 data read misses | last-level read misses | last-level write misses |"
echo "|---|---|---:|---:|---:|---:|"
for op in "${ops[@]}"; do
  run shmcache "$op" >"$tmp/shmcache.$op" &
  run apcu "$op" >"$tmp/apcu.$op"
  wait
  for cache in shmcache apcu; do
    read -r i0 d0 r0 w0 <"$tmp/$cache.none"
    read -r i1 d1 r1 w1 <"$tmp/$cache.$op"
    php -r "printf(\"| %s | %s | %.0f | %.2f | %.2f | %.2f |\n\", '$op', '$cache', ($i1 - $i0) / $keys, ($d1 - $d0) / $keys, ($r1 - $r0) / $keys, ($w1 - $w0) / $keys);"
  done
done
