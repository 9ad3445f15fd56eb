--TEST--
apcu_cache_info()['cache_list']: one row per live APCu entry (the empty key too; no other namespace, nothing deleted or expired), in APCu's row shape, with the store time and the TTL given; not with $limited
--INI--
shmcache.apcu_compat=1
--FILE--
<?php
$t0 = time();
apcu_store('first', 'value1');
apcu_store('', 'x');
apcu_store('with ttl', [1, 2, 3], 50);
apcu_store('deleted', 1);
apcu_delete('deleted');
apcu_store('expired', 1, -1);
shmcache_set('root key', 1);
(new ShmCache('other'))->set('other key', 1);

$info = apcu_cache_info();
var_dump(array_column($info['cache_list'], 'info'));
$row = $info['cache_list'][0];
// When the value was stored (this second or the next): shown as such, not as a number.
foreach (['mtime', 'creation_time'] as $f) {
    $row[$f] = $row[$f] >= $t0 && $row[$f] <= time() ? 'the store time' : $row[$f];
}
var_dump($row);
var_dump($info['cache_list'][2]['ttl'], $info['deleted_list'], $info['slot_distribution']);
var_dump(array_key_exists('cache_list', apcu_cache_info(true)));
apcu_clear_cache();
var_dump(apcu_cache_info()['cache_list']);
?>
--EXPECT--
array(3) {
  [0]=>
  string(5) "first"
  [1]=>
  string(0) ""
  [2]=>
  string(8) "with ttl"
}
array(9) {
  ["info"]=>
  string(5) "first"
  ["ttl"]=>
  int(0)
  ["num_hits"]=>
  float(0)
  ["mtime"]=>
  string(14) "the store time"
  ["creation_time"]=>
  string(14) "the store time"
  ["deletion_time"]=>
  int(0)
  ["access_time"]=>
  int(0)
  ["ref_count"]=>
  int(0)
  ["mem_size"]=>
  int(80)
}
int(50)
array(0) {
}
array(0) {
}
bool(false)
array(0) {
}
