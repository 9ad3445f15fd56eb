<?php
/**
 * One cache, one way of walking its keys: nanoseconds per get (bench/key-order.sh runs it).
 *
 * Stores N string keys and N int keys as bench/scale.php does, then reads the string keys in
 * a shuffled order (the same permutation as scale.php) for PASSES passes. LAYOUT says where
 * the key strings lie in PHP's memory: `shuffled` reads the strings built in insertion order,
 * so each get's key is a random place in memory (scale.php's "get hit, shuffled" cell);
 * `visiting` builds the strings in the order they are read, so each get's key is next to the
 * last one's (the CPU's prefetcher has it ready, as if the application had just built it).
 * PAD 1 adds eight cheap statements to the loop after each get: work that does not touch
 * memory but takes room in the CPU's window of instructions in flight, which shows how much
 * of the next key's cache miss the CPU overlaps with the get before it.
 *
 * Usage: php ... bench/key-order.php shmcache|apcu N shuffled|visiting 0|1 [PASSES]
 */

[, $cache, $n, $layout, $pad] = $argv + [null, null, null, null, null];
$n = (int)$n;
$passes = (int)($argv[5] ?? 3);
$set = $cache === 'shmcache' ? 'shmcache_set' : 'apcu_store';
if (!function_exists($set) || !in_array($layout, ['shuffled', 'visiting'], true)) {
    fwrite(STDERR, "usage: key-order.php shmcache|apcu N shuffled|visiting 0|1 [PASSES] (the cache's extension loaded)\n");
    exit(1);
}

$keys = [];
for ($i = 0; $i < $n; $i++) {
    $keys[] = "wp:options:$i";
}
foreach ($keys as $i => $k) {
    $set($k, "value-$i");
}
for ($i = 0; $i < $n; $i++) {
    $set("wp:count:$i", $i);
}
$ids = range(0, $n - 1);
mt_srand(42);
shuffle($ids);
$order = [];
foreach ($ids as $i) {
    $order[] = $layout === 'shuffled' ? $keys[$i] : "wp:options:$i";
}
unset($keys);
if ($cache === 'shmcache' ? shmcache_get($order[0]) !== 'value-' . $ids[0] : apcu_fetch($order[0]) !== 'value-' . $ids[0]) {
    fwrite(STDERR, "the cache does not hold the keys (too small?)\n");
    exit(1);
}

$x = 1;
$y = 2;
$t = hrtime(true);
for ($p = 0; $p < $passes; $p++) {
    if ($cache === 'shmcache') {
        if ($pad) {
            foreach ($order as $k) { shmcache_get($k); $z = $x + $y; $z = $x + $y; $z = $x + $y; $z = $x + $y; $z = $x + $y; $z = $x + $y; $z = $x + $y; $z = $x + $y; }
        } else {
            foreach ($order as $k) { shmcache_get($k); }
        }
    } else {
        if ($pad) {
            foreach ($order as $k) { apcu_fetch($k); $z = $x + $y; $z = $x + $y; $z = $x + $y; $z = $x + $y; $z = $x + $y; $z = $x + $y; $z = $x + $y; $z = $x + $y; }
        } else {
            foreach ($order as $k) { apcu_fetch($k); }
        }
    }
}
printf("%.1f\n", (hrtime(true) - $t) / ($passes * $n));
