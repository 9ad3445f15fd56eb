#!/usr/bin/env bash
# The multi-key writes and deletes (shmcache_set_multi, add_multi, delete_multi; apcu_store,
# apcu_add and apcu_delete of an array), 100 keys a call, on key sets out of the CPU's caches,
# against APCu, each cache warm as a long-running worker finds it (shmcache's ring written
# through once first): bench/batch-writes.php in one CLI process per side, case and round, the sides
# taking turns (the order rotating round by round). Every round is printed (the median of its
# 7 passes, keys/s), then each side's median of the rounds and the ratios.
#   bash bench/batch-writes.sh      ROUNDS=3 SIZES="100000 1000000" OPS="set add delete"
#   BEFORE_SO=/path/to/older/libshmcache.so adds that build as a third side.
#   APCU_FUNCS=1 adds shmcache's apcu_* functions (shmcache.apcu_compat=1) as a side, and the
#   BEFORE_SO build's when it is given.
source "$(dirname "$0")/../scripts/common.sh"
build_release
apt_need php8.2-apcu
ROUNDS=${ROUNDS:-3}
SIZES=${SIZES:-100000 1000000}
OPS=${OPS:-set add delete}
APCU_SO="$(php-config --extension-dir)/apcu.so"
# Each cache sized for 1M keys, as its docs recommend.
side_cmd() { # side_cmd SIDE N
  case $1 in
    shm) echo php -n -d memory_limit=2G -d extension="$SO" -d shmcache.enable_cli=1 -d shmcache.keys_memory_size=64M -d shmcache.values_memory_size=512M ;;
    before) echo php -n -d memory_limit=2G -d extension="$BEFORE_SO" -d shmcache.enable_cli=1 -d shmcache.keys_memory_size=64M -d shmcache.values_memory_size=512M ;;
    shm-apcu) echo php -n -d memory_limit=2G -d extension="$SO" -d shmcache.enable_cli=1 -d shmcache.apcu_compat=1 -d shmcache.keys_memory_size=64M -d shmcache.values_memory_size=512M ;;
    before-apcu) echo php -n -d memory_limit=2G -d extension="$BEFORE_SO" -d shmcache.enable_cli=1 -d shmcache.apcu_compat=1 -d shmcache.keys_memory_size=64M -d shmcache.values_memory_size=512M ;;
    apcu) echo php -n -d memory_limit=2G -d extension="$APCU_SO" -d apc.enable_cli=1 -d apc.shm_size=1G -d apc.entries_hint="$2" ;;
  esac
}
sides=(shm apcu)
[ -n "${BEFORE_SO:-}" ] && sides=(shm before apcu)
if [ "${APCU_FUNCS:-0}" = 1 ]; then
  sides+=(shm-apcu)
  [ -n "${BEFORE_SO:-}" ] && sides+=(before-apcu)
fi
echo "shmcache $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')${BEFORE_SO:+ and $BEFORE_SO} vs APCu, PHP $(php -n -r 'echo PHP_VERSION;'); load: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '| case | keys | side | rounds (median of 7 passes, keys/s) | median |\n|---|---:|---|---|---:|\n'
for op in $OPS; do
  for n in $SIZES; do
    declare -A got=()
    for r in $(seq 1 "$ROUNDS"); do
      k=$(( (r - 1) % ${#sides[@]} ))
      order=("${sides[@]:k}" "${sides[@]:0:k}")
      for side in "${order[@]}"; do
        cache=shmcache
        case $side in *apcu) cache=apcu ;; esac
        out=$($(side_cmd "$side" "$n") "$ROOT/bench/batch-writes.php" "$cache" "$op" "$n") \
          || { echo "$op $n $side round $r failed" >&2; exit 1; }
        got[$side]="${got[$side]:-} $(echo "$out" | cut -d' ' -f2)"
      done
    done
    for side in "${sides[@]}"; do
      med=$(echo ${got[$side]} | tr ' ' '\n' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
      printf '| %s | %s | %s | %s | %s |\n' "$op" "$n" "$side" "$(echo ${got[$side]})" "$med"
      eval "med_${side//-/_}=$med"
    done
    awk -v op="$op" -v n="$n" -v a="$med_shm" -v b="$med_apcu" 'BEGIN { printf "| %s | %s | shmcache / APCu | | %.2f× |\n", op, n, a / b }'
    [ -n "${BEFORE_SO:-}" ] && awk -v op="$op" -v n="$n" -v a="$med_shm" -v b="$med_before" 'BEGIN { printf "| %s | %s | shmcache / before | | %.2f× |\n", op, n, a / b }'
    [ "${APCU_FUNCS:-0}" = 1 ] && awk -v op="$op" -v n="$n" -v a="$med_shm_apcu" -v b="$med_apcu" 'BEGIN { printf "| %s | %s | shmcache apcu_* / APCu | | %.2f× |\n", op, n, a / b }'
    [ "${APCU_FUNCS:-0}" = 1 ] && [ -n "${BEFORE_SO:-}" ] && awk -v op="$op" -v n="$n" -v a="$med_shm_apcu" -v b="$med_before_apcu" 'BEGIN { printf "| %s | %s | shmcache apcu_* / before | | %.2f× |\n", op, n, a / b }'
    true
    unset got
  done
done
