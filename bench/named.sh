#!/usr/bin/env bash
# A named region against the anonymous one, side by side: get and set of small strings in one
# CLI process, the two variants alternating round by round (ROUNDS, default 7), medians and
# ratios; then what opening the region costs a new process (a CLI command or a new FPM worker's
# first request): whole `php -r` runs with a named region, with an anonymous region of the same
# size (enable_cli, mapped and populated per process) and with the extension disabled.
#   bash bench/named.sh            ROUNDS=7 SECONDS_PER_RUN=0.5 STARTS=40
source "$(dirname "$0")/../scripts/common.sh"
build_release
ROUNDS=${ROUNDS:-7}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-0.5}
STARTS=${STARTS:-40}
dir=$(mktemp -d /dev/shm/shmcache-bench.XXXXXX)
trap 'rm -rf "$dir"' EXIT
sizes=(-d shmcache.keys_memory_size=4M -d shmcache.values_memory_size=64M)
anon=(php -n -d extension="$SO" -d shmcache.enable_cli=1 "${sizes[@]}")
named=(php -n -d extension="$SO" -d shmcache.region="$dir/region" "${sizes[@]}")
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
"${named[@]}" -r 'shmcache_set("warm", 1);' # create the file once, as the first worker would
: >"$dir/anon.txt"
: >"$dir/named.txt"
echo "round | anonymous get/s | named get/s | anonymous set/s | named set/s"
for r in $(seq 1 "$ROUNDS"); do
  a=$("${anon[@]}" "$ROOT/bench/named.php" "$SECONDS_PER_RUN")
  n=$("${named[@]}" "$ROOT/bench/named.php" "$SECONDS_PER_RUN")
  echo "$a" >>"$dir/anon.txt"
  echo "$n" >>"$dir/named.txt"
  echo "$r | $(echo "$a" | cut -d' ' -f3) | $(echo "$n" | cut -d' ' -f3) | $(echo "$a" | cut -d' ' -f5) | $(echo "$n" | cut -d' ' -f5)"
done
for op in get set; do
  f=$([ $op = get ] && echo 3 || echo 5)
  ma=$(cut -d' ' -f$f "$dir/anon.txt" | median)
  mn=$(cut -d' ' -f$f "$dir/named.txt" | median)
  echo "median $op: anonymous $ma/s, named $mn/s, named/anonymous $(php -r "printf('%.3f', $mn / $ma);")"
done
echo
echo "Starting a process that makes one get ($STARTS starts each, alternating; median wall time):"
start_ms() { local t0 t1; t0=$(date +%s%N); "$@" -r 'shmcache_get("warm");' >/dev/null; t1=$(date +%s%N); echo $(((t1 - t0) / 1000)); }
: >"$dir/s-named"; : >"$dir/s-anon"; : >"$dir/s-off"
for i in $(seq 1 "$STARTS"); do
  start_ms "${named[@]}" >>"$dir/s-named"
  start_ms "${anon[@]}" >>"$dir/s-anon"
  start_ms php -n -d extension="$SO" >>"$dir/s-off"
done
echo "named region (attach):           $(median <"$dir/s-named") µs"
echo "anonymous region (map+populate): $(median <"$dir/s-anon") µs"
echo "extension loaded, no region:     $(median <"$dir/s-off") µs"
