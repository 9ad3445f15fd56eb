--TEST--
shmcache_info(): documented keys, and counters that move as expected (hits, misses, sets, deletes, flushes, slots_used, ...)
--FILE--
<?php
require __DIR__ . '/inc/common.inc';
$info = shmcache_info();
$documented = ['hits', 'misses', 'sets', 'deletes', 'kicks', 'recycles', 'expired', 'validation_failures',
    'validation_failures_lapped', 'validation_failures_corrupt',
    'slots_total', 'slots_used', 'keys_memory_size', 'values_memory_size', 'values_written_bytes',
    'compressed_count', 'flushes', 'start_time'];
foreach ($documented as $k) {
    if (!array_key_exists($k, $info)) echo "missing $k\n";
    elseif (!is_int($info[$k]) || $info[$k] < 0) echo "$k is not a non-negative int\n";
}
var_dump($info['enabled']);
// A fresh region in this process
foreach (['hits', 'misses', 'sets', 'deletes', 'kicks', 'recycles', 'expired', 'validation_failures',
          'validation_failures_lapped', 'validation_failures_corrupt', 'slots_used', 'compressed_count', 'flushes', 'values_written_bytes'] as $k) {
    if ($info[$k] !== 0) echo "$k starts at {$info[$k]}\n";
}
// Defaults: 4M keys, 64M values
var_dump($info['keys_memory_size'], $info['values_memory_size']);
var_dump($info['slots_total'] > 0, $info['slots_total'] * 8 <= $info['keys_memory_size']);
$now = time();
var_dump($info['start_time'] <= $now && $info['start_time'] > $now - 60);

$keys = ['hits', 'misses', 'sets', 'deletes', 'flushes', 'slots_used'];
$step = function (string $label, callable $fn) use ($keys) {
    $before = shmcache_info();
    $fn();
    shm_print_delta($label, $before, shmcache_info(), $keys);
};
$step('set new', fn() => shmcache_set('i:a', 1));
$step('set again', fn() => shmcache_set('i:a', 2));
$step('get hit', fn() => shmcache_get('i:a'));
$step('get miss', fn() => shmcache_get('i:nope'));
$step('exists', fn() => [shmcache_exists('i:a'), shmcache_exists('i:nope')]);
$step('get_multi 1+2', fn() => shmcache_get_multi(['i:a', 'i:nope', 'i:nope2']));
$step('set_multi 3', fn() => shmcache_set_multi(['i:b' => 1, 'i:c' => 2, 'i:a' => 3]));
$step('add refused', fn() => shmcache_add('i:a', 1));
$step('add new', fn() => shmcache_add('i:d', 1));
$step('replace missing', fn() => shmcache_replace('i:nope', 1));
$step('delete live', fn() => shmcache_delete('i:d'));
$step('delete missing', fn() => shmcache_delete('i:d'));
$step('ns set', fn() => (new ShmCache('info'))->set('x', 1));
$step('ns get', fn() => (new ShmCache('info'))->get('x'));
$step('flush', fn() => shmcache_flush());
$step('get flushed', fn() => shmcache_get('i:a'));

// values_written_bytes grows by at least the size of what is written
$before = shmcache_info()['values_written_bytes'];
shmcache_set('i:w', random_bytes(3000));
$d = shmcache_info()['values_written_bytes'] - $before;
var_dump($d >= 3000 && $d < 4000);

// namespace info() reports the same shared counters
$i = shmcache_info();
$n = (new ShmCache('info'))->info();
var_dump($n['sets'] === $i['sets'], $n['slots_total'] === $i['slots_total']);
?>
--EXPECT--
bool(true)
int(4194304)
int(67108864)
bool(true)
bool(true)
bool(true)
set new: hits=0 misses=0 sets=1 deletes=0 flushes=0 slots_used=1
set again: hits=0 misses=0 sets=1 deletes=0 flushes=0 slots_used=0
get hit: hits=1 misses=0 sets=0 deletes=0 flushes=0 slots_used=0
get miss: hits=0 misses=1 sets=0 deletes=0 flushes=0 slots_used=0
exists: hits=0 misses=0 sets=0 deletes=0 flushes=0 slots_used=0
get_multi 1+2: hits=1 misses=2 sets=0 deletes=0 flushes=0 slots_used=0
set_multi 3: hits=0 misses=0 sets=3 deletes=0 flushes=0 slots_used=2
add refused: hits=0 misses=0 sets=0 deletes=0 flushes=0 slots_used=0
add new: hits=0 misses=0 sets=1 deletes=0 flushes=0 slots_used=1
replace missing: hits=0 misses=0 sets=0 deletes=0 flushes=0 slots_used=0
delete live: hits=0 misses=0 sets=0 deletes=1 flushes=0 slots_used=-1
delete missing: hits=0 misses=0 sets=0 deletes=0 flushes=0 slots_used=0
ns set: hits=0 misses=0 sets=1 deletes=0 flushes=0 slots_used=1
ns get: hits=1 misses=0 sets=0 deletes=0 flushes=0 slots_used=0
flush: hits=0 misses=0 sets=0 deletes=0 flushes=1 slots_used=-4
get flushed: hits=0 misses=1 sets=0 deletes=0 flushes=0 slots_used=0
bool(true)
bool(true)
bool(true)
