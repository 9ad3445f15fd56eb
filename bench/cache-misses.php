<?php
// One pass of one operation over KEYS keys in shuffled order, for bench/cache-misses.sh, which
// runs it under callgrind's cache simulation and subtracts the same process without the pass
// (OP none): what is left is the operation's instructions and simulated cache misses.
//   php cache-misses.php CACHE OP KEYS     CACHE: shmcache | apcu   OP: none get miss set delete
[$_, $cache, $op, $n] = $argv + [null, 'shmcache', 'none', '100000'];
$n = (int) $n;
$shm = $cache === 'shmcache';
$keys = [];
for ($i = 0; $i < $n; $i++) {
    $keys[] = "wp:options:$i";
}
foreach ($keys as $i => $k) {
    $shm ? shmcache_set($k, "value-$i") : apcu_store($k, "value-$i");
}
mt_srand(42);
shuffle($keys);
// Miss keys are built before the pass, so the pass reads nothing PHP has not hashed yet
// either way.
$absent = array_map(fn($k) => "$k:absent", $keys);
switch ($op) {
    case 'none': break;
    case 'get': foreach ($keys as $k) { $shm ? shmcache_get($k) : apcu_fetch($k); } break;
    case 'miss': foreach ($absent as $k) { $shm ? shmcache_get($k) : apcu_fetch($k); } break;
    case 'set': foreach ($keys as $i => $k) { $shm ? shmcache_set($k, "new-$i") : apcu_store($k, "new-$i"); } break;
    case 'delete': foreach ($keys as $k) { $shm ? shmcache_delete($k) : apcu_delete($k); } break;
    default: fwrite(STDERR, "unknown op $op\n"); exit(1);
}
