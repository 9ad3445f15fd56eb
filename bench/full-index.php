<?php
// Sets of new keys into a full cache: the key table holds fewer keys than are set (for shmcache
// every insert then finds both its buckets full and evicts; for APCu the shared memory fills and
// it expunges). Fills 2 x SLOTS keys, then times PASSES passes of N sets of keys never set
// before, and prints the sets per second. bench/full-index.sh runs it.
//   php full-index.php CACHE [SLOTS] [N] [PASSES]     CACHE: shmcache | apcu
[$_, $cache, $slots, $n, $passes] = $argv + [null, 'shmcache', '114688', '100000', '10'];
[$slots, $n, $passes] = [(int) $slots, (int) $n, (int) $passes];
$set = $cache === 'apcu'
    ? static function (string $k, string $v): void { apcu_store($k, $v); }
    : static function (string $k, string $v): void { shmcache_set($k, $v); };
for ($i = 0; $i < 2 * $slots; $i++) {
    $set("wp:options:$i", "value-$i");
}
$ns = 0;
for ($p = 0; $p < $passes; $p++) {
    $t = hrtime(true);
    for ($i = 0; $i < $n; $i++) {
        $set("new:$p:$i", "value-$i");
    }
    $ns += hrtime(true) - $t;
}
printf("%.3f\n", $passes * $n / ($ns / 1e9) / 1e6);
