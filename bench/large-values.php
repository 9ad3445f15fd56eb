<?php
// Sets, deletes and gets of 50 KB incompressible values, the way bench/scale.php's 50 KB cells
// take them: each round sets 200 of them, deletes the 200, sets them again and gets them,
// timing each pass. Prints the medians over 60 rounds in ns per operation. CACHE=apcu runs it
// on APCu instead. Run it once per build or setting, each in a process of its own, in turn:
//   php -n -d extension=target/release/libshmcache.so -d shmcache.enable_cli=1 \
//     -d shmcache.values_memory_size=48M bench/large-values.php
//   CACHE=apcu php -n -d extension=apcu.so -d apc.enable_cli=1 -d apc.shm_size=64M bench/large-values.php
$apcu = getenv('CACHE') === 'apcu';

mt_srand(7);
$large = '';
while (strlen($large) < 51200) {
    $large .= pack('P', mt_rand() << 31 ^ mt_rand());
}
$keys = [];
for ($i = 0; $i < 200; $i++) {
    $keys[] = "wp:large:$i";
}
// Small entries beside them, as in a site's cache.
for ($i = 0; $i < 3000; $i++) {
    $apcu ? apcu_store("wp:options:$i", "value-$i") : shmcache_set("wp:options:$i", "value-$i");
}

// Each pass calls the functions directly (a call through a variable would add its own cost).
$times = ['set' => [], 'delete' => [], 'get' => []];
for ($round = 0; $round < 60; $round++) {
    $t = hrtime(true);
    if ($apcu) { foreach ($keys as $k) { apcu_store($k, $large); } } else { foreach ($keys as $k) { shmcache_set($k, $large); } }
    $times['set'][] = (hrtime(true) - $t) / 200;
    $t = hrtime(true);
    if ($apcu) { foreach ($keys as $k) { apcu_delete($k); } } else { foreach ($keys as $k) { shmcache_delete($k); } }
    $times['delete'][] = (hrtime(true) - $t) / 200;
    if ($apcu) { foreach ($keys as $k) { apcu_store($k, $large); } } else { foreach ($keys as $k) { shmcache_set($k, $large); } }
    $t = hrtime(true);
    if ($apcu) { foreach ($keys as $k) { apcu_fetch($k); } } else { foreach ($keys as $k) { shmcache_get($k); } }
    $times['get'][] = (hrtime(true) - $t) / 200;
}

function median(array $xs): float {
    sort($xs);
    return $xs[intdiv(count($xs), 2)];
}

printf("%s: set %.0f ns, delete %.0f ns, get %.0f ns (medians of 60 rounds of 200)\n",
    $apcu ? 'apcu' : 'shmcache', median($times['set']), median($times['delete']), median($times['get']));
