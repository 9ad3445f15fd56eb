<?php
// shmcache_get of a near-cache hit, for bench/tier.sh: one process, one mode (the caller runs it
// with or without shmcache.redis and interleaves the modes over processes).
//   php tier-micro.php VALUE SECONDS     VALUE: string | array | object
// Prints "gets/s near_hits_per_get": the second figure is shmcache_info()'s tier_near_hits over
// the timed gets (1 in tiered mode when every get was a near hit, 0 without the tier).
[$_, $kind, $seconds] = $argv + [null, 'string', '1'];
require __DIR__ . '/values.php';
$value = match ($kind) {
    'array' => values()['20-element mixed array'],
    'object' => wp_post_object(42),
    default => 'hello world, this is a small cached string',
};
$n = 5000;
$keys = [];
for ($i = 0; $i < $n; $i++) {
    $keys[] = "m:$i";
}
mt_srand(12345);
shuffle($keys);
// Each set is a Redis write in tiered mode; it leaves the value in the near copy.
foreach ($keys as $k) {
    if (!shmcache_set($k, $value)) {
        fwrite(STDERR, "shmcache_set failed\n");
        exit(1);
    }
}
foreach ($keys as $k) { // untimed: the first pass warms the CPU's caches alike in both modes
    $x = shmcache_get($k);
}
$hits0 = shmcache_info()['tier_near_hits'] ?? 0;
$gets = 0;
$t0 = hrtime(true);
do {
    foreach ($keys as $k) {
        $x = shmcache_get($k);
    }
    $gets += $n;
} while (hrtime(true) - $t0 < $seconds * 1e9);
$elapsed = (hrtime(true) - $t0) / 1e9;
$hits = (shmcache_info()['tier_near_hits'] ?? 0) - $hits0;
if ($x !== $value && !($value instanceof stdClass && $x == $value)) {
    fwrite(STDERR, "the last get did not return the value\n");
    exit(1);
}
printf("%.0f %.3f\n", $gets / $elapsed, $hits / $gets);
