#!/usr/bin/env bash
# Where a shuffled get's time goes when the keys do not fit in the CPU's caches: shmcache and
# APCu, each alone in its own process (sized as bench/scale.sh sizes it), read BENCH_KEYS keys
# (default 1,000,000) in a shuffled order, with the key strings either at random places in
# PHP's memory or laid out in the order they are read, and with the loop bare or padded with
# eight cheap statements (bench/key-order.php). Every round runs the eight combinations one
# after another (the order reversed every other round); printed: every round's ns per get and
# the median, then per cache what the random key strings cost (shuffled - visiting) bare and
# padded. A cost that grows when the loop is padded is a cache miss the CPU was overlapping
# with the get before it, and no longer can.
#   BENCH_KEYS (1000000), BENCH_ROUNDS (5), BENCH_PASSES (3), BENCH_SO (another build)
source "$(dirname "$0")/../scripts/common.sh"
[ -n "${BENCH_SO:-}" ] || build_release
apt_need php8.2-apcu
APCU_SO=$(php-config --extension-dir)/apcu.so
n=${BENCH_KEYS:-1000000}
rounds=${BENCH_ROUNDS:-5}
keys=$((3 * n))
keys_mem=$(((keys * 64 / 7 * 10 / 7 / 1048576 + 1) * 1048576))
values_mem=$(((keys * 160 / 1048576 + 32) * 1048576))
echo "CPU: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(nproc) cores;" \
  "PHP $(php -n -r 'echo PHP_VERSION;'), APCu $(php -n -d extension="$APCU_SO" -r 'echo phpversion("apcu");');" \
  "$n keys, ns per get"
run() { # run CACHE LAYOUT PAD -> ns per get
  local ini=(-d extension="${BENCH_SO:-$SO}" -d shmcache.enable_cli=1 -d shmcache.keys_memory_size=$keys_mem
    -d shmcache.values_memory_size=$values_mem)
  [ "$1" = apcu ] && ini=(-d extension="$APCU_SO" -d apc.enable_cli=1
    -d apc.shm_size=$((keys * 400 / 1048576 + 48))M -d apc.entries_hint=$keys)
  php -n "${ini[@]}" -d memory_limit=4G "$ROOT/bench/key-order.php" "$1" "$n" "$2" "$3" "${BENCH_PASSES:-3}"
}
combos=()
for cache in shmcache apcu; do
  for layout in shuffled visiting; do
    for pad in 0 1; do combos+=("$cache $layout $pad"); done
  done
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for r in $(seq "$rounds"); do
  order=("${combos[@]}")
  if [ $((r % 2)) = 0 ]; then
    order=()
    for ((i = ${#combos[@]} - 1; i >= 0; i--)); do order+=("${combos[$i]}"); done
  fi
  for c in "${order[@]}"; do
    # shellcheck disable=SC2086
    ns=$(run $c) || { echo "key-order.php failed: $c" >&2; exit 1; }
    echo "$ns" >>"$tmp/${c// /-}"
  done
done
php -n -r '
$dir = $argv[1];
$median = function (array $v) { sort($v); $n = count($v); return $n % 2 ? $v[intdiv($n, 2)] : ($v[$n / 2 - 1] + $v[$n / 2]) / 2; };
$read = fn($c, $l, $p) => array_map("floatval", file("$dir/$c-$l-$p", FILE_IGNORE_NEW_LINES));
echo "| cache | key strings | loop | ns per get, each round | median |\n|---|---|---|---|---:|\n";
foreach (["shmcache", "apcu"] as $c) foreach (["shuffled", "visiting"] as $l) foreach ([0, 1] as $p) {
    $v = $read($c, $l, $p);
    printf("| %s | %s | %s | %s | %.1f |\n", $c, $l, $p ? "padded" : "bare", implode(" ", array_map(fn($x) => sprintf("%.1f", $x), $v)), $median($v));
}
echo "\n| cache | random key strings cost, bare loop (ns) | padded loop (ns) |\n|---|---:|---:|\n";
foreach (["shmcache", "apcu"] as $c) {
    $cost = fn($p) => $median(array_map(fn($a, $b) => $a - $b, $read($c, "shuffled", $p), $read($c, "visiting", $p)));
    printf("| %s | %.1f | %.1f |\n", $c, $cost(0), $cost(1));
}
foreach (["shuffled", "visiting"] as $l) {
    $ratio = $median(array_map(fn($a, $s) => $a / $s, $read("apcu", $l, 0), $read("shmcache", $l, 0)));
    printf("\nshmcache / APCu (ops/s), %s key strings, bare loop: %.2fx (median of the rounds)", $l, $ratio);
}
echo "\n";
' "$tmp"
