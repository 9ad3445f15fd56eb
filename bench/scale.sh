#!/usr/bin/env bash
# shmcache against APCu at 1k, 10k, 100k and 1M keys (bench/scale.php), each cache sized for
# the keys as its documentation recommends: APCu's apc.entries_hint = the keys and a
# shm_size that holds them; shmcache's key table at about 70% of its slots (7 slots per 64
# bytes) and a value ring that holds them; then the get cells once more with shmcache at its
# default sizes (up to 100k keys). BENCH_SIZES, BENCH_ROUNDS, BENCH_SECONDS, BENCH_CELLS (a
# regex of cell names) narrow or lengthen a run; BENCH_DEFAULTS=0 drops the defaults run.
# BENCH_SO: another build. The first lines say which CPU ran it and what a read of memory costs.
source "$(dirname "$0")/../scripts/common.sh"
[ -n "${BENCH_SO:-}" ] || build_release
apt_need php8.2-apcu
APCU_SO=$(php-config --extension-dir)/apcu.so
# The ratios depend on the CPU (docs/benchmarks.md has runs on two): say which one this is.
echo "CPU: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(nproc) cores;" \
  "PHP $(php -n -r 'echo PHP_VERSION;'), APCu $(php -n -d extension="$APCU_SO" -r 'echo phpversion("apcu");')"
# And what one random read of memory costs here (bench/latency.c): past the CPU's caches a
# shuffled get is mostly such reads, for both caches, so the ratio there depends on it.
mkdir -p "$ROOT/target/bench"
gcc -O2 -o "$ROOT/target/bench/latency" "$ROOT/bench/latency.c" || exit 1
echo "One random read of shared memory: $("$ROOT/target/bench/latency" 4 16 64 | paste -sd';' | sed 's/;/; /g')"
for n in ${BENCH_SIZES:-1000 10000 100000 1000000}; do
  # 2n keys (strings and ints) plus n more for the delete cell; 16 MB more in each cache for
  # the cells of 200 50 KB values.
  keys=$((3 * n))
  keys_mem=$(( (keys * 64 / 7 * 10 / 7 / 1048576 + 1) * 1048576 ))
  values_mem=$(( (keys * 160 / 1048576 + 32) * 1048576 ))
  php -n \
    -d extension="$APCU_SO" -d apc.enable_cli=1 -d apc.shm_size=$(( keys * 400 / 1048576 + 48 ))M -d apc.entries_hint=$keys \
    -d extension="${BENCH_SO:-$SO}" -d shmcache.enable_cli=1 -d shmcache.keys_memory_size=$keys_mem \
    -d shmcache.values_memory_size=$values_mem -d memory_limit=2G \
    "$ROOT/bench/scale.php" "$n" "${BENCH_ROUNDS:-5}" "${BENCH_SECONDS:-0.15}"
  # The get cells again with shmcache at its default sizes (no keys_memory_size or
  # values_memory_size set: a 4 MB key table and 64 MB of values), APCu sized as above. The
  # defaults hold up to about 300,000 keys, so this runs up to 100k (3 x 100k keys stored);
  # BENCH_DEFAULTS=0 skips it.
  if [ "${BENCH_DEFAULTS:-1}" = 1 ] && [ "$n" -le 100000 ]; then
    BENCH_LABEL="shmcache at its default sizes" BENCH_CELLS="${BENCH_DEFAULTS_CELLS:-^get}" php -n \
      -d extension="$APCU_SO" -d apc.enable_cli=1 -d apc.shm_size=$(( keys * 400 / 1048576 + 48 ))M -d apc.entries_hint=$keys \
      -d extension="${BENCH_SO:-$SO}" -d shmcache.enable_cli=1 -d memory_limit=2G \
      "$ROOT/bench/scale.php" "$n" "${BENCH_ROUNDS:-5}" "${BENCH_SECONDS:-0.15}"
  fi
done
