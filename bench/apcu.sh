#!/usr/bin/env bash
# The apcu_* functions served by shmcache (shmcache.apcu_compat=1) against the same functions
# served by APCu (Debian's php8.2-apcu), side by side: the micro cases of bench/suite.php (every
# value of bench/values.php: get hit, set, add, delete, multi-get of 100, get miss, incr) run
# through apcu_fetch/apcu_store/apcu_add/apcu_delete/apcu_inc in separate CLI processes, one
# with shmcache loaded and APCu not, one with APCu loaded and shmcache not. The two take turns
# round by round (which goes first alternates), every round is printed, then the median of the
# rounds per case and the ratio of the medians (shmcache / APCu: above 1, shmcache is faster).
# Each process's figure for a case is suite.php's: the best of 5 runs of BENCH_SECONDS.
#   bash bench/apcu.sh          ROUNDS=5 BENCH_SECONDS=0.1 MEM=256M
#   BEFORE_SO=/path/to/older/libshmcache.so adds a third side, that build's apcu_* (the three
#   take turns, the order rotating each round), and a second table: this build against it.
source "$(dirname "$0")/../scripts/common.sh"
build_release
apt_need php8.2-apcu
ROUNDS=${ROUNDS:-5}
BENCH_SECONDS=${BENCH_SECONDS:-0.1}
MEM=${MEM:-256M}
APCU_SO="$(php-config --extension-dir)/apcu.so"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# Both get the same value memory; APCu's hint sizes its hash table for the keys the suite stores.
shm=(php -n -d extension="$SO" -d shmcache.enable_cli=1 -d shmcache.apcu_compat=1
  -d shmcache.keys_memory_size=4M -d shmcache.values_memory_size="$MEM")
before=(php -n -d extension="${BEFORE_SO:-}" -d shmcache.enable_cli=1 -d shmcache.apcu_compat=1
  -d shmcache.keys_memory_size=4M -d shmcache.values_memory_size="$MEM")
apcu=(php -n -d extension="$APCU_SO" -d apc.enable_cli=1 -d apc.shm_size="$MEM" -d apc.entries_hint=200000)
"${shm[@]}" -r 'exit(function_exists("apcu_fetch") && (new ReflectionFunction("apcu_fetch"))->getExtensionName() === "shmcache" ? 0 : 1);' \
  || { echo "shmcache does not serve apcu_fetch" >&2; exit 1; }
"${apcu[@]}" -r 'exit(extension_loaded("apcu") && !extension_loaded("shmcache") ? 0 : 1);' \
  || { echo "APCu cannot be loaded from $APCU_SO" >&2; exit 1; }

echo "shmcache $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?') vs APCu $("${apcu[@]}" -r 'echo phpversion("apcu");'), PHP $(php -n -r 'echo PHP_VERSION;'); load: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 1 "$ROUNDS"); do
  order=(shm apcu)
  [ $((r % 2)) -eq 0 ] && order=(apcu shm)
  if [ -n "${BEFORE_SO:-}" ]; then
    case $((r % 3)) in 1) order=(shm before apcu) ;; 2) order=(before apcu shm) ;; 0) order=(apcu shm before) ;; esac
  fi
  for side in "${order[@]}"; do
    case $side in shm) cmd=("${shm[@]}") ;; before) cmd=("${before[@]}") ;; *) cmd=("${apcu[@]}") ;; esac
    BENCH_ONLY=apcu "${cmd[@]}" "$ROOT/bench/suite.php" micro --seconds "$BENCH_SECONDS" --json "$dir/$side-$r.json" >/dev/null \
      || { echo "round $r ($side) failed" >&2; exit 1; }
  done
  echo "round $r done (${order[*]}); load: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
done
php -n "$ROOT/bench/apcu-report.php" "$dir" "$ROUNDS"
if [ -n "${BEFORE_SO:-}" ]; then
  echo
  echo "This build against BEFORE_SO ($BEFORE_SO):"
  php -n "$ROOT/bench/apcu-report.php" "$dir" "$ROUNDS" before
fi
