#!/usr/bin/env bash
# Instructions per operation, shmcache vs APCu, counted by callgrind: unlike timings these are
# repeatable on a busy or shared machine (the same binary and input give the same count), so
# they show what a code change did. They are not a speed: memory stalls and atomic
# instructions cost different amounts of time. One CLI process, 5,000 keys read in shuffled
# order; each figure is (instructions of 3 rounds - instructions of 1 round) / operations.
#   bash bench/instructions.sh [OP...]   (default: every op in bench/ops.php)
source "$(dirname "$0")/../scripts/common.sh"
build_release
apt_need php8.2-apcu valgrind
ops=("$@")
[ ${#ops[@]} -gt 0 ] || ops=(get method-get miss get-int set-int get-array set set-array get-object set-object incr decr cas delete-and-add multi-get)
php_cmd=(php -n -d extension="$(php-config --extension-dir)/apcu.so" -d apc.enable_cli=1 -d apc.shm_size=256M
  -d apc.entries_hint=200000 -d extension="$SO" -d shmcache.enable_cli=1 -d shmcache.keys_memory_size=4M
  -d shmcache.values_memory_size=256M)
count() { # count CACHE OP ROUNDS -> total instructions
  callgrind_instructions "${php_cmd[@]}" "$ROOT/bench/ops.php" "$1" "$2" "$3"
}
per_op() { # per_op CACHE OP
  local a b n=10000
  case $2 in delete-and-add) n=20000 ;; method-get) [ "$1" = apcu ] && return ;; esac
  a=$(count "$1" "$2" 1) b=$(count "$1" "$2" 3)
  echo $(((b - a) / n))
}
echo "| operation | shmcache instructions/op | APCu instructions/op | APCu / shmcache |"
echo "|---|---:|---:|---:|"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for op in "${ops[@]}"; do
  # The two caches are counted at the same time (a count does not depend on what else runs).
  per_op shmcache "$op" >"$tmp/s" &
  per_op apcu "$op" >"$tmp/a"
  wait
  s=$(cat "$tmp/s")
  a=$(cat "$tmp/a")
  ratio=$([ -n "$a" ] && [ -n "$s" ] && [ "$s" -gt 0 ] && php -r "printf('%.2f', $a / $s);" || echo –)
  echo "| $op | $s | ${a:-–} | $ratio× |"
done
