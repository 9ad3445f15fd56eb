<?php
/**
 * shmcache against APCu at one key count, every operation, rounds interleaved.
 *
 * Both extensions are loaded in this one CLI process, each sized for the keys (bench/scale.sh
 * sets the INI per key count). Every cell runs ROUNDS rounds; in each round shmcache and APCu
 * take turns (the order alternates round by round), each timed over whole passes of the keys
 * for about CELL_SECONDS. Printed per cell: every round's ratio shmcache/APCu (ops/s), then
 * the median ratio and each cache's median ops/s.
 *
 * Usage: php ... bench/scale.php KEYS [ROUNDS] [CELL_SECONDS]
 */

$n       = (int)($argv[1] ?? 100000);
$rounds  = (int)($argv[2] ?? 5);
$seconds = (float)($argv[3] ?? 0.15);

if (!function_exists('shmcache_get') || !shmcache_info()['enabled'] || !function_exists('apcu_fetch') || !apcu_enabled()) {
    fwrite(STDERR, "both shmcache and APCu must be loaded and enabled\n");
    exit(1);
}

$keys = [];
for ($i = 0; $i < $n; $i++) {
    $keys[] = "wp:options:$i";
}
$shuffled = $keys;
mt_srand(42);
shuffle($shuffled);
// The same order as numbers, for the cell that builds each key as it reads it (shuffle's
// permutation depends only on the seed and the count).
$shuffledIds = range(0, $n - 1);
mt_srand(42);
shuffle($shuffledIds);
$missing = [];
for ($i = 0; $i < $n; $i++) {
    $missing[] = "wp:absent:$i";
}
$intKeys = [];
for ($i = 0; $i < $n; $i++) {
    $intKeys[] = "wp:count:$i";
}
$batches = array_chunk($shuffled, 100);
// 50 KB incompressible values under keys of their own (at most 200: 10 MB in each cache), for
// the operations that must not cost more for a larger value.
$largeKeys = [];
for ($i = 0; $i < min($n, 200); $i++) {
    $largeKeys[] = "wp:large:$i";
}
mt_srand(7);
$large = '';
while (strlen($large) < 51200) {
    $large .= pack('P', mt_rand() << 31 ^ mt_rand());
}

/** Fills a cache: the string keys, then the int keys. */
function fill(string $cache, array $keys, array $intKeys): void {
    foreach ($keys as $i => $k) {
        $cache === 'shmcache' ? shmcache_set($k, "value-$i") : apcu_store($k, "value-$i");
    }
    foreach ($intKeys as $i => $k) {
        $cache === 'shmcache' ? shmcache_set($k, $i) : apcu_store($k, $i);
    }
}

$sGet = fn($k) => shmcache_get($k);
$aGet = fn($k) => apcu_fetch($k);

// Each cell: cache => function(): int (one pass, returns the operations it made). A cell with
// a 'before' runs it untimed before every pass (deletes need keys to delete).
$cells = [
    'get hit, insertion order' => [
        'shmcache' => function () use ($keys) { foreach ($keys as $k) { shmcache_get($k); } return count($keys); },
        'apcu'     => function () use ($keys) { foreach ($keys as $k) { apcu_fetch($k); } return count($keys); },
    ],
    'get hit, shuffled' => [
        'shmcache' => function () use ($shuffled) { foreach ($shuffled as $k) { shmcache_get($k); } return count($shuffled); },
        'apcu'     => function () use ($shuffled) { foreach ($shuffled as $k) { apcu_fetch($k); } return count($shuffled); },
    ],
    'get hit, int values' => [
        'shmcache' => function () use ($intKeys) { foreach ($intKeys as $k) { shmcache_get($k); } return count($intKeys); },
        'apcu'     => function () use ($intKeys) { foreach ($intKeys as $k) { apcu_fetch($k); } return count($intKeys); },
    ],
    'get hit, shuffled, through a closure' => [
        'shmcache' => function () use ($shuffled, $sGet) { foreach ($shuffled as $k) { $sGet($k); } return count($shuffled); },
        'apcu'     => function () use ($shuffled, $aGet) { foreach ($shuffled as $k) { $aGet($k); } return count($shuffled); },
    ],
    // An application builds a key just before it reads it, so the key's string is in the
    // CPU's cache; the cells above read prebuilt strings in shuffled order, each a random
    // access to PHP's own memory that both caches pay before they look anything up.
    'get hit, shuffled, key built per call' => [
        'shmcache' => function () use ($shuffledIds) { foreach ($shuffledIds as $i) { shmcache_get("wp:options:$i"); } return count($shuffledIds); },
        'apcu'     => function () use ($shuffledIds) { foreach ($shuffledIds as $i) { apcu_fetch("wp:options:$i"); } return count($shuffledIds); },
    ],
    'get miss' => [
        'shmcache' => function () use ($missing) { foreach ($missing as $k) { shmcache_get($k); } return count($missing); },
        'apcu'     => function () use ($missing) { foreach ($missing as $k) { apcu_fetch($k); } return count($missing); },
    ],
    'get miss, through a closure' => [
        'shmcache' => function () use ($missing, $sGet) { foreach ($missing as $k) { $sGet($k); } return count($missing); },
        'apcu'     => function () use ($missing, $aGet) { foreach ($missing as $k) { $aGet($k); } return count($missing); },
    ],
    'set (existing key), shuffled' => [
        'shmcache' => function () use ($shuffled) { foreach ($shuffled as $i => $k) { shmcache_set($k, "value-$i"); } return count($shuffled); },
        'apcu'     => function () use ($shuffled) { foreach ($shuffled as $i => $k) { apcu_store($k, "value-$i"); } return count($shuffled); },
    ],
    'add (key present)' => [
        'shmcache' => function () use ($shuffled) { foreach ($shuffled as $k) { shmcache_add($k, 'x'); } return count($shuffled); },
        'apcu'     => function () use ($shuffled) { foreach ($shuffled as $k) { apcu_add($k, 'x'); } return count($shuffled); },
    ],
    'incr' => [
        'shmcache' => function () use ($intKeys) { foreach ($intKeys as $k) { shmcache_incr($k, 1); } return count($intKeys); },
        'apcu'     => function () use ($intKeys) { foreach ($intKeys as $k) { apcu_inc($k, 1); } return count($intKeys); },
    ],
    'decr' => [
        'shmcache' => function () use ($intKeys) { foreach ($intKeys as $k) { shmcache_decr($k, 1); } return count($intKeys); },
        'apcu'     => function () use ($intKeys) { foreach ($intKeys as $k) { apcu_dec($k, 1); } return count($intKeys); },
    ],
    'cas (a failing compare)' => [
        'shmcache' => function () use ($intKeys) { foreach ($intKeys as $k) { shmcache_cas($k, -1, 0); } return count($intKeys); },
        'apcu'     => function () use ($intKeys) { foreach ($intKeys as $k) { apcu_cas($k, -1, 0); } return count($intKeys); },
    ],
    'multi-get of 100' => [
        'shmcache' => function () use ($batches) { foreach ($batches as $b) { shmcache_get_multi($b); } return count($batches); },
        'apcu'     => function () use ($batches) { foreach ($batches as $b) { apcu_fetch($b); } return count($batches); },
    ],
    'add (new key)' => [
        'before'   => [
            'shmcache' => function () use ($missing) { foreach ($missing as $k) { shmcache_delete($k); } },
            'apcu'     => function () use ($missing) { foreach ($missing as $k) { apcu_delete($k); } },
        ],
        'shmcache' => function () use ($missing) { foreach ($missing as $i => $k) { shmcache_add($k, "value-$i"); } return count($missing); },
        'apcu'     => function () use ($missing) { foreach ($missing as $i => $k) { apcu_add($k, "value-$i"); } return count($missing); },
    ],
    'delete (key present)' => [
        'before'   => [
            'shmcache' => function () use ($missing) { foreach ($missing as $i => $k) { shmcache_set($k, "value-$i"); } },
            'apcu'     => function () use ($missing) { foreach ($missing as $i => $k) { apcu_store($k, "value-$i"); } },
        ],
        'shmcache' => function () use ($missing) { foreach ($missing as $k) { shmcache_delete($k); } return count($missing); },
        'apcu'     => function () use ($missing) { foreach ($missing as $k) { apcu_delete($k); } return count($missing); },
    ],
    'delete (key present, 50 KB value)' => [
        'before'   => [
            'shmcache' => function () use ($largeKeys, $large) { foreach ($largeKeys as $k) { shmcache_set($k, $large); } },
            'apcu'     => function () use ($largeKeys, $large) { foreach ($largeKeys as $k) { apcu_store($k, $large); } },
        ],
        'shmcache' => function () use ($largeKeys) { foreach ($largeKeys as $k) { shmcache_delete($k); } return count($largeKeys); },
        'apcu'     => function () use ($largeKeys) { foreach ($largeKeys as $k) { apcu_delete($k); } return count($largeKeys); },
    ],
    'add (key present, 50 KB value)' => [
        'before'   => [
            'shmcache' => function () use ($largeKeys, $large) { foreach ($largeKeys as $k) { shmcache_exists($k) || shmcache_set($k, $large); } },
            'apcu'     => function () use ($largeKeys, $large) { foreach ($largeKeys as $k) { apcu_exists($k) || apcu_store($k, $large); } },
        ],
        'shmcache' => function () use ($largeKeys) { foreach ($largeKeys as $k) { shmcache_add($k, 'x'); } return count($largeKeys); },
        'apcu'     => function () use ($largeKeys) { foreach ($largeKeys as $k) { apcu_add($k, 'x'); } return count($largeKeys); },
    ],
];

fill('shmcache', $keys, $intKeys);
fill('apcu', $keys, $intKeys);

// A hit cell measures hits only if each cache still holds the keys after the fill (a cache too
// small for them drops some, and its "hits" become misses): said before the cells.
$held = ['shmcache' => 0, 'apcu' => 0];
foreach (array_merge($keys, $intKeys) as $k) {
    $held['shmcache'] += shmcache_exists($k) ? 1 : 0;
    $held['apcu'] += apcu_exists($k) ? 1 : 0;
}

function median(array $xs): float {
    sort($xs);
    $m = intdiv(count($xs), 2);
    return count($xs) % 2 ? $xs[$m] : ($xs[$m - 1] + $xs[$m]) / 2;
}

$only = getenv('BENCH_CELLS') ?: '';
$label = getenv('BENCH_LABEL') ?: 'each cache sized for the keys';
printf("%d keys, %d rounds, %.2f s per cache per round, %s (after the fill shmcache holds %d of the %d keys, APCu %d)\n",
    $n, $rounds, $seconds, $label, $held['shmcache'], 2 * $n, $held['apcu']);
foreach ($cells as $name => $cell) {
    if ($only !== '' && !preg_match("/$only/", $name)) {
        continue;
    }
    $rates = ['shmcache' => [], 'apcu' => []];
    for ($r = 0; $r < $rounds; $r++) {
        $order = $r % 2 ? ['apcu', 'shmcache'] : ['shmcache', 'apcu'];
        foreach ($order as $cache) {
            $ops = 0;
            $ns = 0;
            do {
                if (isset($cell['before'])) {
                    $cell['before'][$cache]();
                }
                $t0 = hrtime(true);
                $ops += $cell[$cache]();
                $ns += hrtime(true) - $t0;
            } while ($ns < $seconds * 1e9);
            $rates[$cache][] = $ops / ($ns / 1e9);
        }
    }
    $ratios = array_map(fn($s, $a) => $s / $a, $rates['shmcache'], $rates['apcu']);
    printf("%-38s median %.2fx  (shmcache %6.2f M/s, APCu %6.2f M/s)  rounds: %s\n", $name, median($ratios),
        median($rates['shmcache']) / 1e6, median($rates['apcu']) / 1e6,
        implode(' ', array_map(fn($x) => sprintf('%.2f', $x), $ratios)));
}
