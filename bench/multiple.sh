#!/usr/bin/env bash
# The drop-in's set_multiple/get_multiple/delete_multiple of 50 keys, microseconds per call, in
# one CLI process per round: OLD (a drop-in file, e.g. an earlier version from git show) and the
# working tree's wordpress/object-cache.php alternating round by round, medians of ROUNDS.
#   bash bench/multiple.sh OLD.php     ROUNDS=7 SECONDS_PER_OP=0.5 KEYS=50
source "$(dirname "$0")/../scripts/common.sh"
build_release
OLD=${1:?usage: bench/multiple.sh OLD-object-cache.php}
ROUNDS=${ROUNDS:-7}
SECONDS_PER_OP=${SECONDS_PER_OP:-0.5}
KEYS=${KEYS:-50}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
run=(php -n -d extension="$SO" -d shmcache.enable_cli=1 -d shmcache.values_memory_size=64M "$ROOT/bench/multiple.php")
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
for r in $(seq 1 "$ROUNDS"); do
  echo "round $r old: $("${run[@]}" "$OLD" "$SECONDS_PER_OP" "$KEYS" | tee -a "$dir/old.txt")"
  echo "round $r new: $("${run[@]}" "$ROOT/wordpress/object-cache.php" "$SECONDS_PER_OP" "$KEYS" | tee -a "$dir/new.txt")"
done
echo "median of $ROUNDS rounds, $KEYS keys, microseconds per call | old | new | new/old"
for f in 2 4 6; do
  op=$(head -n 1 "$dir/old.txt" | cut -d' ' -f$((f - 1)))
  o=$(cut -d' ' -f$f "$dir/old.txt" | median)
  n=$(cut -d' ' -f$f "$dir/new.txt" | median)
  echo "$op | $o | $n | $(awk -v o="$o" -v n="$n" 'BEGIN {printf "%.2f", n / o}')"
done
