# What the WordPress benchmarks (bench/wordpress.sh, bench/tier.sh) share. Sourced.

median() { # median NUMBER... -> the middle value (the lower middle of an even count)
  printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'
}
page_name() { [ "$1" = / ] && echo "front page" || echo "single post"; }
# CPU time is what a page costs; throughput on this shared machine mostly measures how long the
# workers wait for a core. cpu_ticks PID...: user + system clock ticks the processes have used.
CLK_TCK=$(getconf CLK_TCK)
cpu_ticks() {
  local p t=0
  for p in "$@"; do
    # (after the ") " that ends the command name, which may hold spaces: utime and stime are fields 12 and 13)
    [ -r "/proc/$p/stat" ] && t=$((t + $(sed 's/.*) //' "/proc/$p/stat" | awk '{print $12 + $13}')))
  done
  echo "$t"
}
