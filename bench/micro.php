<?php
/**
 * Side-by-side micro-benchmark: shmcache vs APCu vs Yac (whichever are loaded), one run, one
 * process (plus a forked two-process mix). Prints ops/s per cache and the ratio shmcache/peer.
 *
 * Run through bench/run.sh, which loads all three extensions with CLI caching enabled.
 */

const KEYS = 100000;
const MIX_KEYS = 10000;
const ROUNDS = 3;          // best of N, to damp noise on a shared machine
$duration = (float)(getenv('BENCH_SECONDS') ?: 0.5);

$mixedArray = [
    'ID' => 42, 'post_author' => '1', 'post_date' => '2024-12-01 10:00:00', 'post_title' => 'Hello world',
    'post_status' => 'publish', 'comment_status' => 'open', 'ping_status' => 'open', 'post_name' => 'hello-world',
    'menu_order' => 0, 'post_type' => 'post', 'comment_count' => 3, 'filter' => 'raw', 'sticky' => false,
    'score' => 3.14159, 'tags' => [1, 2, 3], 'meta' => ['a' => 'b'], 'guid' => 'http://example.test/?p=42',
    'post_parent' => 0, 'to_ping' => '', 'pinged' => null,
];

$caches = [];
if (function_exists('shmcache_get') && shmcache_info()['enabled']) {
    $caches['shmcache'] = [
        'get' => fn($k) => shmcache_get($k),
        'set' => fn($k, $v) => shmcache_set($k, $v),
    ];
}
if (function_exists('apcu_fetch') && apcu_enabled()) {
    $caches['apcu'] = [
        'get' => fn($k) => apcu_fetch($k),
        'set' => fn($k, $v) => apcu_store($k, $v),
    ];
}
if (class_exists('Yac')) {
    $yac = new Yac();
    $caches['yac'] = [
        'get' => fn($k) => $yac->get($k),
        'set' => fn($k, $v) => $yac->set($k, $v),
    ];
}
if (!isset($caches['shmcache'])) {
    fwrite(STDERR, "shmcache is not loaded/enabled\n");
    exit(1);
}

require __DIR__ . '/rounds.php';

// Direct loops per cache: no closure call inside the measured loop.
$loops = [
    'shmcache' => [
        'get' => function (array $keys) { $c = 0; foreach ($keys as $k) { $v = shmcache_get($k); $c++; } return $c; },
        'set' => function (array $keys, $v) { $c = 0; foreach ($keys as $k) { shmcache_set($k, $v); $c++; } return $c; },
    ],
    'apcu' => [
        'get' => function (array $keys) { $c = 0; foreach ($keys as $k) { $v = apcu_fetch($k); $c++; } return $c; },
        'set' => function (array $keys, $v) { $c = 0; foreach ($keys as $k) { apcu_store($k, $v); $c++; } return $c; },
    ],
    'yac' => [
        'get' => function (array $keys) { global $yac; $c = 0; foreach ($keys as $k) { $v = $yac->get($k); $c++; } return $c; },
        'set' => function (array $keys, $v) { global $yac; $c = 0; foreach ($keys as $k) { $yac->set($k, $v); $c++; } return $c; },
    ],
];

$keys = [];
for ($i = 0; $i < KEYS; $i++) {
    $keys[] = "bench:key:$i";   // 14-18 bytes: within Yac's 48-byte limit
}
// Reads hit keys in a shuffled (fixed-seed) order, not in insertion order: real pages do not read
// keys in the order they were written, and insertion order would reward allocators that happen
// to lay entries out sequentially.
// The key strings are created afresh in that order, so walking the list itself stays sequential.
$indices = range(0, KEYS - 1);
mt_srand(12345);
shuffle($indices);
$order = [];
foreach ($indices as $i) {
    $order[] = "bench:key:$i";
}
$chunksByOrder = ['shuffled' => array_chunk($order, 1000), 'insertion order' => array_chunk($keys, 1000)];

$results = [];
$small = 'hello world, this is a small cached string';
$cases = [
    'get small string, shuffled keys' => ['get', $small, 'shuffled'],
    'get small string, keys in insertion order' => ['get', $small, 'insertion order'],
    'get 20-element mixed array, shuffled keys' => ['get', $mixedArray, 'shuffled'],
    'get 20-element mixed array, keys in insertion order' => ['get', $mixedArray, 'insertion order'],
    'set small string, shuffled keys' => ['set', $small, 'shuffled'],
];
foreach ($cases as $case => [$op, $value, $orderName]) {
    $chunks = $chunksByOrder[$orderName];
    $rounds = [];
    foreach ($caches as $name => $c) {
        foreach ($keys as $k) {
            $c['set']($k, $value);
        }
        // Sanity: every cache must really return the value it was given.
        $probe = $c['get']($keys[123]);
        if ($probe !== $value) {
            fwrite(STDERR, "$name returned a wrong value in '$case'\n");
            exit(1);
        }
        $loop = $loops[$name][$op];
        $ci = 0;
        $rounds[$name] = function () use ($loop, $chunks, &$ci, $value, $op) {
            $chunk = $chunks[$ci++ % count($chunks)];
            return $op === 'get' ? $loop($chunk) : $loop($chunk, $value);
        };
        unset($ci);
    }
    // Each round is warmed by one untimed pass over all the keys (see best_rates).
    $results[$case] = best_rates($rounds, ROUNDS, $duration, count($chunks));
}

// Two forked processes, 90% get / 10% set on 10,000 keys of ~100 bytes; aggregate ops/s.
if (function_exists('pcntl_fork')) {
    $mixKeys = array_slice($keys, 0, MIX_KEYS);
    $val = str_repeat('v', 100);
    foreach ($caches as $name => $c) {
        foreach ($mixKeys as $k) {
            $c['set']($k, $val);
        }
        $ops = 400000;
        $t0 = hrtime(true);
        $pids = [];
        for ($p = 0; $p < 2; $p++) {
            $pid = pcntl_fork();
            if ($pid === 0) {
                $get = $loops[$name]['get'];
                $set = $loops[$name]['set'];
                mt_srand($p + 1);
                $batch = [];
                for ($i = 0; $i < 1000; $i++) {
                    $batch[] = $mixKeys[mt_rand(0, MIX_KEYS - 1)];
                }
                $getKeys = array_slice($batch, 0, 900);
                $setKeys = array_slice($batch, 900);
                for ($done = 0; $done < $ops / 2; $done += 1000) {
                    $get($getKeys);
                    $set($setKeys, $val);
                }
                exit(0);
            }
            $pids[] = $pid;
        }
        foreach ($pids as $pid) {
            pcntl_waitpid($pid, $status);
        }
        $results['2 processes, 90% get / 10% set'][$name] = $ops / ((hrtime(true) - $t0) / 1e9);
    }
}

printf("PHP %s, %s, best of %d x %.1fs\n\n", PHP_VERSION, php_uname('m'), ROUNDS, $duration);
$names = array_keys($caches);
echo '| benchmark | ' . implode(' | ', array_map(fn($n) => "$n ops/s", $names)) . ' | '
    . implode(' | ', array_map(fn($n) => "shmcache / $n", array_slice($names, 1))) . " |\n";
echo '|---' . str_repeat('|---:', count($names) * 2 - 1) . "|\n";
foreach ($results as $case => $row) {
    $cells = array_map(fn($n) => isset($row[$n]) ? number_format($row[$n]) : '-', $names);
    $ratios = array_map(fn($n) => isset($row[$n]) ? sprintf('%.2f×', $row['shmcache'] / $row[$n]) : '-', array_slice($names, 1));
    echo "| $case | " . implode(' | ', $cells) . ' | ' . implode(' | ', $ratios) . " |\n";
}
