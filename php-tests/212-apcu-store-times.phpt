--TEST--
apcu_key_info(), APCUIterator and cache_list give the TTL a key was stored with (not the seconds left) and its store time as creation_time/mtime; apcu_inc keeps both, a new store renews them; across processes
--INI--
shmcache.apcu_compat=1
--FILE--
<?php
require __DIR__ . '/inc/common.inc';
/** A time shown by what it is: the store time, within [$from, $to]. */
function when(int $t, int $from, int $to): string { return $t >= $from && $t <= $to ? 'in range' : "out of range ($t, not $from..$to)"; }

$t0 = time();
apcu_store('k', 'v', 100);
apcu_store('forever', 'v');
$t1 = time();
usleep(1100000); // past the next whole second: a TTL counted down would now read 99
$info = apcu_key_info('k');
echo 'key_info ttl: ', $info['ttl'], ', creation_time ', when($info['creation_time'], $t0, $t1), ', mtime = creation_time: ', var_export($info['mtime'] === $info['creation_time'], true), "\n";
echo 'no TTL: ', apcu_key_info('forever')['ttl'], "\n";
foreach (new APCUIterator(['k'], APC_ITER_TTL | APC_ITER_MTIME | APC_ITER_CTIME) as $row) {
    echo 'iterator ttl: ', $row['ttl'], ', mtime ', when($row['mtime'], $t0, $t1), ', creation_time ', when($row['creation_time'], $t0, $t1), "\n";
}
foreach (apcu_cache_info()['cache_list'] as $row) {
    if ($row['info'] === 'k') {
        echo 'cache_list ttl: ', $row['ttl'], ', mtime ', when($row['mtime'], $t0, $t1), "\n";
    }
}

$t3 = time();
apcu_store('n', 1, 300);
$created = apcu_key_info('n')['creation_time'];
$t4 = time();
usleep(1100000);
apcu_inc('n');
$after = apcu_key_info('n');
echo 'after inc: ttl ', $after['ttl'], ', creation_time kept: ', var_export($after['creation_time'] === $created, true), ', ', when($after['creation_time'], $t3, $t4), "\n";
$t2 = time();
apcu_store('n', 5, 30);
$renewed = apcu_key_info('n');
echo 'after a new store: ttl ', $renewed['ttl'], ', creation_time ', when($renewed['creation_time'], $t2, time()), "\n";

// Another process sharing the region (a named one) reads what this one stored.
$dir = sys_get_temp_dir() . '/shmcache-212-' . getmypid();
@mkdir($dir, 0700);
$region = "$dir/region";
$ini = ['shmcache.enable_cli=1', 'shmcache.apcu_compat=1', "shmcache.region=$region", 'shmcache.keys_memory_size=1M', 'shmcache.values_memory_size=8M'];
[$out] = shm_run($ini, 'apcu_store("shared", 1, 77); echo time();');
// (preg_match, not ctype_digit: ctype is an extension that `php -n` may not have.)
$stored = preg_match('/^[0-9]+$/D', trim($out)) ? (int) $out : -100;
sleep(1);
[$out] = shm_run($ini, '$i = apcu_key_info("shared"); echo $i["ttl"], " ", $i["creation_time"];');
[$ttl, $ctime] = explode(' ', trim($out)) + [null, 0];
echo 'other process: ttl ', $ttl, ', creation_time ', when((int) $ctime, $stored - 1, $stored), "\n";
@unlink($region);
@rmdir($dir);
?>
--EXPECT--
key_info ttl: 100, creation_time in range, mtime = creation_time: true
no TTL: 0
iterator ttl: 100, mtime in range, creation_time in range
cache_list ttl: 100, mtime in range
after inc: ttl 300, creation_time kept: true, in range
after a new store: ttl 30, creation_time in range
other process: ttl 77, creation_time in range
