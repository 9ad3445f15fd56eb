<?php
// Get and set of one region for a fixed time; prints "get OPS set OPS" (operations per second).
// bench/named.sh runs it alternately on an anonymous and a named region.
$seconds = (float) ($argv[1] ?? 0.5);
$value = 'hello world, this is a small cached string';
$keys = [];
for ($i = 0; $i < 5000; $i++) {
    $keys[] = "named-bench:$i";
    shmcache_set("named-bench:$i", $value);
}
mt_srand(7);
shuffle($keys);
// Loops written out: a closure call per operation would cost more than the operation.
$get = function () use ($keys, $seconds): float {
    $n = 0;
    $start = hrtime(true);
    $end = $start + (int) ($seconds * 1e9);
    do {
        foreach ($keys as $k) { $x = shmcache_get($k); }
        $n += count($keys);
    } while (hrtime(true) < $end);
    return $n / ((hrtime(true) - $start) / 1e9);
};
$set = function () use ($keys, $seconds, $value): float {
    $n = 0;
    $start = hrtime(true);
    $end = $start + (int) ($seconds * 1e9);
    do {
        foreach ($keys as $k) { shmcache_set($k, $value); }
        $n += count($keys);
    } while (hrtime(true) < $end);
    return $n / ((hrtime(true) - $start) / 1e9);
};
$info = shmcache_info();
if (!$info['enabled']) {
    fwrite(STDERR, "no region: " . ($info['region_error'] ?? 'disabled') . "\n");
    exit(1);
}
printf("%s get %.0f set %.0f\n", $info['region_opened'], $get(), $set());
