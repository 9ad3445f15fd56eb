#!/usr/bin/env bash
# The drop-in's set() of a short string and of a small array, for several versions of the drop-in
# side by side: instructions per call counted by callgrind (repeatable on a busy machine; the
# count of 30,000 calls minus that of 10,000, over 20,000), then nanoseconds per call, one CLI
# process per version and round, the versions interleaved round by round, medians of ROUNDS.
#   bash bench/set.sh DROPIN.php...      ROUNDS=7 CALLS=200000
# e.g. the drop-in of the previous commit against the working tree's:
#   git show HEAD:wordpress/object-cache.php >/tmp/head.php
#   bash bench/set.sh /tmp/head.php wordpress/object-cache.php
source "$(dirname "$0")/../scripts/common.sh"
build_release
apt_need valgrind
[ $# -gt 0 ] || { echo "usage: bench/set.sh DROPIN.php..." >&2; exit 2; }
ROUNDS=${ROUNDS:-7}
CALLS=${CALLS:-200000}
run=(php -n -d extension="$SO" -d shmcache.enable_cli=1 "$ROOT/bench/set.php")
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
count() { # count DROPIN CALLS KIND -> instructions of the whole process
  callgrind_instructions "${run[@]}" "$1" "$2" "$3"
}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo "| drop-in | scalar: instructions/call | array: instructions/call |"
echo "|---|---:|---:|"
for f in "$@"; do
  row="| $f |"
  for kind in scalar array; do
    a=$(count "$f" 10000 "$kind") b=$(count "$f" 30000 "$kind")
    row+=" $(((b - a) / 20000)) |"
  done
  echo "$row"
done
echo
for r in $(seq 1 "$ROUNDS"); do
  i=0
  for f in "$@"; do
    i=$((i + 1))
    line=$("${run[@]}" "$f" "$CALLS")
    echo "$line" >>"$dir/$i.txt"
    echo "round $r, $f: $line"
  done
done
echo
echo "| drop-in | scalar: ns/call (median of $ROUNDS) | array: ns/call |"
echo "|---|---:|---:|"
i=0
for f in "$@"; do
  i=$((i + 1))
  echo "| $f | $(cut -d' ' -f2 "$dir/$i.txt" | median) | $(cut -d' ' -f4 "$dir/$i.txt" | median) |"
done
