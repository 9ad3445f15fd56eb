#!/usr/bin/env bash
# Instructions per operation of the apcu_* functions, counted by callgrind (repeatable on a
# busy machine, unlike timings; not a speed), three ways on the same bench/ops.php input:
#   apcu_* served by shmcache (shmcache.apcu_compat=1, APCu not loaded),
#   apcu_* served by APCu (Debian's php8.2-apcu, shmcache not loaded),
#   the equivalent shmcache_* functions (for what the apcu_* glue adds).
# Each figure is (instructions of 3 rounds - instructions of 1 round) / operations.
#   bash bench/apcu-instructions.sh [OP...]   (default: get miss incr delete-and-add set multi-get)
#   BENCH_SO=/path/to/libshmcache.so counts another build (an older commit's, for before/after).
source "$(dirname "$0")/../scripts/common.sh"
if [ -n "${BENCH_SO:-}" ]; then SO=$BENCH_SO; else build_release; fi
apt_need php8.2-apcu valgrind
ops=("$@")
[ ${#ops[@]} -gt 0 ] || ops=(get miss incr delete-and-add set multi-get)
APCU_SO="$(php-config --extension-dir)/apcu.so"
shm=(php -n -d extension="$SO" -d shmcache.enable_cli=1 -d shmcache.keys_memory_size=4M -d shmcache.values_memory_size=256M)
compat=("${shm[@]}" -d shmcache.apcu_compat=1)
apcu=(php -n -d extension="$APCU_SO" -d apc.enable_cli=1 -d apc.shm_size=256M -d apc.entries_hint=200000)
count() { # count SIDE OP ROUNDS -> total instructions
  local cmd cache=apcu
  case $1 in shm) cmd=("${shm[@]}") cache=shmcache ;; compat) cmd=("${compat[@]}") ;; apcu) cmd=("${apcu[@]}") ;; esac
  callgrind_instructions "${cmd[@]}" "$ROOT/bench/ops.php" "$cache" "$2" "$3"
}
per_op() { # per_op SIDE OP
  local a b n=10000
  case $2 in delete-and-add) n=20000 ;; esac  # multi-get: per key
  a=$(count "$1" "$2" 1) b=$(count "$1" "$2" 3)
  echo $(((b - a) / n))
}
ratio() { [ -n "$1" ] && [ -n "$2" ] && [ "$2" -gt 0 ] && php -n -r "printf('%.2f', $1 / $2);" || echo –; }
echo "| operation | apcu_* on shmcache | apcu_* on APCu | shmcache_* | APCu / apcu_* on shmcache |"
echo "|---|---:|---:|---:|---:|"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for op in "${ops[@]}"; do
  # A count does not depend on what else runs: two at a time.
  per_op compat "$op" >"$tmp/c" &
  per_op apcu "$op" >"$tmp/a"
  wait
  per_op shm "$op" >"$tmp/s"
  c=$(cat "$tmp/c") a=$(cat "$tmp/a") s=$(cat "$tmp/s")
  echo "| $op | $c | $a | $s | $(ratio "$a" "$c")× |"
done
