--TEST--
apcu_inc/dec create a missing key with their TTL, apcu_cas, apcu_key_info, apcu_clear_cache, the info arrays' shapes (expected output: APCu 5.1.22's)
--INI--
shmcache.apcu_compat=1
--FILE--
<?php
function show(string $label, $v): void { echo $label, ': ', var_export($v, true), "\n"; }

echo "-- inc/dec create a missing key with their TTL\n";
show('inc missing', apcu_inc('n', 5, $ok, 100)); show('success', $ok);
$info = apcu_key_info('n');
show('ttl of the created key', $info['ttl'] >= 99 && $info['ttl'] <= 100);
show('inc', apcu_inc('n')); show('inc 10', apcu_inc('n', 10));
show('dec missing', apcu_dec('m', 3, $ok)); show('success', $ok);
show('key_info ttl 0', apcu_key_info('m')['ttl']);
show('dec', apcu_dec('m', 2));
show('inc with ttl on an existing key keeps it', [apcu_inc('m', 1, $ok, 1), apcu_key_info('m')['ttl']]);
show('inc string value', apcu_store('s', 'abc') && apcu_inc('s', 1, $ok) === false && $ok === false);
show('string untouched', apcu_fetch('s'));
show('inc float value', [apcu_store('fl', 1.5), apcu_inc('fl', 1, $ok), $ok]);
show('inc empty key', [apcu_inc(''), apcu_inc(''), apcu_fetch('')]);
show('inc int key', [apcu_inc(42), apcu_fetch('42')]);
try { apcu_inc('n', 'abc'); } catch (TypeError $e) { echo get_class($e), ': ', $e->getMessage(), "\n"; }

echo "-- cas\n";
apcu_store('c', 5);
show('cas match', apcu_cas('c', 5, 7));
show('cas mismatch', apcu_cas('c', 5, 9));
show('value', apcu_fetch('c'));
show('cas missing', apcu_cas('missing', 0, 1));
show('missing still missing', apcu_exists('missing'));
show('cas on a string', [apcu_store('cs', '5'), apcu_cas('cs', 5, 6), apcu_fetch('cs')]);

echo "-- key_info\n";
show('missing', apcu_key_info('missing'));
apcu_store('ki', 'v');
show('keys', array_keys(apcu_key_info('ki')));

echo "-- clear_cache\n";
show('enabled', apcu_enabled());
apcu_store('x', 1);
apcu_store('', 2);
show('clear', apcu_clear_cache());
show('after clear', [apcu_exists('x'), apcu_exists(''), apcu_fetch(['x', 'c'])]);

echo "-- info\n";
show('cache_info limited keys', array_keys(apcu_cache_info(true)));
show('cache_info keys', array_keys(apcu_cache_info()));
show('cache_info types', array_map('gettype', apcu_cache_info(true)));
$sma = apcu_sma_info(true);
show('sma_info limited keys', array_keys($sma));
show('sma types', [gettype($sma['num_seg']), gettype($sma['seg_size']), gettype($sma['avail_mem'])]);
show('sma_info keys', array_keys(apcu_sma_info()));
?>
--EXPECTF--
-- inc/dec create a missing key with their TTL
inc missing: 5
success: true
ttl of the created key: true
inc: 6
inc 10: 16
dec missing: -3
success: true
key_info ttl 0: 0
dec: -5
inc with ttl on an existing key keeps it: array (
  0 => -4,
  1 => 0,
)
inc string value: true
string untouched: 'abc'
inc float value: array (
  0 => true,
  1 => false,
  2 => false,
)
inc empty key: array (
  0 => 1,
  1 => 2,
  2 => 2,
)
inc int key: array (
  0 => 1,
  1 => 1,
)
TypeError: apcu_inc(): Argument #2 ($step) must be of type int, string given
-- cas
cas match: true
cas mismatch: false
value: 7
cas missing: false
missing still missing: false
cas on a string: array (
  0 => true,
  1 => false,
  2 => '5',
)
-- key_info
missing: NULL
keys: array (
  0 => 'hits',
  1 => 'access_time',
  2 => 'mtime',
  3 => 'creation_time',
  4 => 'deletion_time',
  5 => 'ttl',
  6 => 'refs',
)
-- clear_cache
enabled: true
clear: true
after clear: array (
  0 => false,
  1 => false,
  2 => 
  array (
  ),
)
-- info
cache_info limited keys: array (
  0 => 'num_slots',
  1 => 'ttl',
  2 => 'num_hits',
  3 => 'num_misses',
  4 => 'num_inserts',
  5 => 'num_entries',
  6 => 'expunges',
  7 => 'start_time',
  8 => 'mem_size',
  9 => 'memory_type',
)
cache_info keys: array (
  0 => 'num_slots',
  1 => 'ttl',
  2 => 'num_hits',
  3 => 'num_misses',
  4 => 'num_inserts',
  5 => 'num_entries',
  6 => 'expunges',
  7 => 'start_time',
  8 => 'mem_size',
  9 => 'memory_type',
  10 => 'cache_list',
  11 => 'deleted_list',
  12 => 'slot_distribution',
)
cache_info types: array (
  'num_slots' => 'integer',
  'ttl' => 'integer',
  'num_hits' => 'double',
  'num_misses' => 'double',
  'num_inserts' => 'double',
  'num_entries' => 'integer',
  'expunges' => 'double',
  'start_time' => 'integer',
  'mem_size' => 'double',
  'memory_type' => 'string',
)
sma_info limited keys: array (
  0 => 'num_seg',
  1 => 'seg_size',
  2 => 'avail_mem',
)
sma types: array (
  0 => 'integer',
  1 => 'double',
  2 => 'double',
)
sma_info keys: array (
  0 => 'num_seg',
  1 => 'seg_size',
  2 => 'avail_mem',
  3 => 'block_lists',
)
