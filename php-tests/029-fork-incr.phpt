--TEST--
4 forked children x 10,000 shmcache_incr on one key give exactly 40,000 (and cas loops lose no update)
--FILE--
<?php
require __DIR__ . '/inc/common.inc';
shmcache_set('counter', 0);
shmcache_set('down', 0);
shmcache_set('cas', 0);
$ns = new ShmCache('fork-incr');
$ns->set('counter', 1000);
shmcache_set('start', 0);

$start = microtime(true);
$pids = shm_fork(4, function (int $i) use ($ns) {
    // Start together so the increments really race.
    $deadline = microtime(true) + 10;
    while (shmcache_get('start') !== 1) {
        if (microtime(true) > $deadline) return 30;
    }
    for ($n = 0; $n < 10000; $n++) {
        if (shmcache_incr('counter') === false) return 31;
        if ($ns->incr('counter', 2) === false) return 32;
        if (shmcache_decr('down', 3) === false) return 33;
    }
    // Read-modify-write through cas: retry until our swap wins.
    for ($n = 0; $n < 2000; $n++) {
        do {
            $old = shmcache_get('cas');
        } while (!shmcache_cas('cas', $old, $old + 1));
    }
    return 0;
});
shmcache_set('start', 1);
$codes = shm_wait($pids);
echo 'exit codes: ', implode(',', $codes), "\n";
var_dump(shmcache_get('counter'));
var_dump($ns->get('counter'));
var_dump(shmcache_get('down'));
var_dump(shmcache_get('cas'));
$elapsed = microtime(true) - $start;
if ($elapsed > 20) echo "slow: $elapsed s\n";
?>
--EXPECT--
exit codes: 0,0,0,0
int(40000)
int(81000)
int(-120000)
int(8000)
