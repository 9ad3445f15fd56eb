<?php
// One side of bench/batch-writes.sh: the multi-key writes and deletes, 100 keys a call, on keys
// whose index lines and entries are not in the CPU's caches (N stored keys; 64 MB of other
// memory written before each timed pass), shmcache's ring written through once beforehand.
//   php batch-writes.php CACHE OP N     CACHE: shmcache | apcu     OP: set | add | delete
// (apcu: the apcu_* functions, served by APCu or by shmcache with shmcache.apcu_compat=1)
// Prints the best and the median of 7 passes, each over M = min(20,000, N/2) keys: set rewrites
// M random stored keys, delete deletes them (stored again, untimed, after the pass), add adds M
// keys never stored before (deleted again, untimed).
[$_, $cache, $op, $n] = $argv + [null, 'shmcache', 'set', '100000'];
$n = (int) $n;
$m = min(20000, intdiv($n, 2));
$apcu = $cache === 'apcu';
$value = 'hello world, this is a small cached string';
$keys = [];
for ($i = 0; $i < $n; $i++) {
    $keys[] = "wp:posts:$i";
}
foreach ($keys as $k) {
    $apcu ? apcu_store($k, $value) : shmcache_set($k, $value);
}
// As a long-running worker finds it: shmcache's ring written through once (a CLI process maps
// its region without touching it, and the first write to each page costs the kernel's page
// fault: docs/benchmarks.md, "Where APCu is ahead, and why"). APCu reuses the blocks it frees.
if (extension_loaded('shmcache')) {
    $info = shmcache_info();
    for ($lap = 0; shmcache_info()['values_written_bytes'] < $info['values_memory_size']; $lap++) {
        foreach ($keys as $k) {
            shmcache_set($k, "$value $lap");
        }
    }
}
mt_srand(7);
$rates = [];
for ($pass = 0; $pass < 7; $pass++) {
    if ($op === 'add') {
        $chosen = array_map(fn($i) => "new:$pass:$i", range(0, $m - 1));
        shuffle($chosen);
    } else {
        $picked = array_rand($keys, $m);
        shuffle($picked);
        $chosen = array_map(fn($i) => $keys[$i], $picked);
    }
    $batches = array_chunk($op === 'delete' ? $chosen : array_fill_keys($chosen, "$value $pass"), 100, true);
    $junk = str_repeat('x', 64 << 20);
    $junk[mt_rand(0, 1000)] = 'y';
    unset($junk);
    $t = hrtime(true);
    foreach ($batches as $b) {
        match ("$cache $op") {
            'shmcache set' => shmcache_set_multi($b),
            'shmcache add' => shmcache_add_multi($b),
            'shmcache delete' => shmcache_delete_multi($b),
            'apcu set' => apcu_store($b),
            'apcu add' => apcu_add($b),
            'apcu delete' => apcu_delete($b),
        };
    }
    $rates[] = $m / ((hrtime(true) - $t) / 1e9);
    foreach ($chosen as $k) {
        match ($op) {
            'delete' => $apcu ? apcu_store($k, $value) : shmcache_set($k, $value),
            'add' => $apcu ? apcu_delete($k) : shmcache_delete($k),
            default => null,
        };
    }
}
sort($rates);
printf("%.0f %.0f\n", $rates[6], $rates[3]);
