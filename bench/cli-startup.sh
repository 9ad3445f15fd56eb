#!/usr/bin/env bash
# What a CLI process (a cron job, a composer run, a test process) pays for the cache before its
# first line: whole `php -r` runs that make one get, bare PHP beside the extension loaded with no
# region, with enable_cli=1 at the default sizes (an anonymous region mapped per process), with a
# named region, and APCu with apc.enable_cli=1 at its defaults (when installed). The variants
# take turns start by start; each round prints every variant's median wall time and its excess
# over bare PHP's median of the same round, then the medians over the rounds.
#   bash bench/cli-startup.sh          ROUNDS=5 STARTS=20
source "$(dirname "$0")/../scripts/common.sh"
build_release
ROUNDS=${ROUNDS:-5}
STARTS=${STARTS:-20}
dir=$(mktemp -d /dev/shm/shmcache-startup.XXXXXX)
trap 'rm -rf "$dir"' EXIT
apcu="$(php-config --extension-dir 2>/dev/null)/apcu.so"
names=(bare loaded enable_cli named)
declare -A cmd
cmd[bare]="php -n"
cmd[loaded]="php -n -d extension=$SO"
cmd[enable_cli]="php -n -d extension=$SO -d shmcache.enable_cli=1"
cmd[named]="php -n -d extension=$SO -d shmcache.region=$dir/region"
if [ -f "$apcu" ]; then
  names+=(apcu)
  cmd[apcu]="php -n -d extension=$apcu -d apc.enable_cli=1"
fi
code() {
  case $1 in
    bare) echo ';' ;;
    apcu) echo 'apcu_fetch("warm");' ;;
    *) echo 'shmcache_get("warm");' ;;
  esac
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
# The named region's file is created once, as a site's first worker would.
${cmd[named]} -r 'shmcache_set("warm", 1);'
start_us() {
  local t0 t1
  t0=$(date +%s%N)
  ${cmd[$1]} -r "$(code "$1")" >/dev/null
  t1=$(date +%s%N)
  echo $(((t1 - t0) / 1000))
}
echo "median wall time of a start in µs (excess over bare PHP's median of the round)"
echo "round | $(printf '%s | ' "${names[@]}" | sed 's/ | $//')"
for r in $(seq 1 "$ROUNDS"); do
  for n in "${names[@]}"; do : >"$dir/$n.$r"; done
  for i in $(seq 1 "$STARTS"); do
    for n in "${names[@]}"; do start_us "$n" >>"$dir/$n.$r"; done
  done
  bare=$(median <"$dir/bare.$r")
  row="$r"
  for n in "${names[@]}"; do
    m=$(median <"$dir/$n.$r")
    echo "$m" >>"$dir/$n.medians"
    echo "$((${m%.*} - ${bare%.*}))" >>"$dir/$n.excess"
    row+=" | $m ($(printf '%+d' $((${m%.*} - ${bare%.*}))))"
  done
  echo "$row"
done
row="median"
for n in "${names[@]}"; do
  row+=" | $(median <"$dir/$n.medians") ($(median <"$dir/$n.excess" | awk '{printf "%+d", $1}'))"
done
echo "$row"
