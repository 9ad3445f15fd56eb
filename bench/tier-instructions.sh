#!/usr/bin/env bash
# Instructions of a near-cache hit in tiered mode against the same get without the tier,
# counted by callgrind (repeatable on a busy machine, unlike timings). One CLI process,
# bench/ops.php: 5,000 keys set (through Redis when tiered), then read in shuffled order; each
# figure is (instructions of 3 rounds - instructions of 1 round) / reads. A redis-server of its
# own on a private unix socket; emptied before every count.
#   bash bench/tier-instructions.sh [OP...]   (default: get get-int get-array get-object method-get)
# Tiered is counted twice: with `shmcache.redis_resync_interval` long enough that no resync
# falls inside the count but its clock is still read at every call (as in production, where
# requests are shorter than the interval), and with the interval off (no clock read). A
# resync inside the count would apply the writes of the set-up as invalidations.
source "$(dirname "$0")/../scripts/common.sh"
build_release
apt_need valgrind redis-server redis-tools
ops=("$@")
[ ${#ops[@]} -gt 0 ] || ops=(get get-int get-array get-object method-get)
dir=$(mktemp -d)
redis-server --port 0 --unixsocket "$dir/redis.sock" --unixsocketperm 700 --save "" --appendonly no \
  --daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/redis.log"
trap 'kill "$(cat "$dir/redis.pid" 2>/dev/null)" 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 100); do redis-cli -s "$dir/redis.sock" ping >/dev/null 2>&1 && break; sleep 0.05; done
php_cmd=(php -n -d extension="$SO" -d shmcache.enable_cli=1 -d shmcache.keys_memory_size=4M -d shmcache.values_memory_size=256M)
tiered=(-d shmcache.redis="unix://$dir/redis.sock")
count() { # count OP ROUNDS [INI...] -> total instructions
  local op=$1 rounds=$2
  shift 2
  redis-cli -s "$dir/redis.sock" flushall >/dev/null
  callgrind_instructions "${php_cmd[@]}" "$@" "$ROOT/bench/ops.php" shmcache "$op" "$rounds"
}
per_read() { # per_read OP [INI...]
  local op=$1 a b
  shift
  a=$(count "$op" 1 "$@") b=$(count "$op" 3 "$@")
  echo $(((b - a) / 10000))
}
# (The first process to talk to a new redis-server is counted apart: it differs from the rest.)
count get 1 "${tiered[@]}" >/dev/null
echo "| read | without the tier | tiered, interval 3600 s | tiered, interval off | tiered / without |"
echo "|---|---:|---:|---:|---:|"
for op in "${ops[@]}"; do
  local_n=$(per_read "$op")
  long=$(per_read "$op" "${tiered[@]}" -d shmcache.redis_resync_interval=3600000)
  off=$(per_read "$op" "${tiered[@]}" -d shmcache.redis_resync_interval=0)
  echo "| $op | $local_n | $long | $off | $(php -r "printf('%.3f', $long / $local_n);")× |"
done
