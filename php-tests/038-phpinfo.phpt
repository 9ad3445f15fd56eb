--TEST--
phpinfo() shows the shmcache section with its state, counters and INI directives
--INI--
shmcache.keys_memory_size=256K
--FILE--
<?php
ob_start();
phpinfo(INFO_MODULES);
$out = ob_get_clean();
foreach (['shmcache support => enabled', 'max key length => 4096', 'keys_memory_size => 262144',
          'validation_failures => 0', 'validation_failures_lapped => 0', 'validation_failures_corrupt => 0',
          'shmcache.enable => 1 => 1', 'shmcache.enable_cli => 1 => 1', 'shmcache.keys_memory_size => 256K => 256K',
          'shmcache.values_memory_size => 64M => 64M', 'shmcache.compress_threshold => 4096 => 4096'] as $line) {
    echo $line, ': ', str_contains($out, $line) ? 'present' : 'MISSING', "\n";
}
$r = new ReflectionExtension('shmcache');
var_dump($r->getName(), $r->getVersion() === SHMCACHE_VERSION);
$ini = array_keys($r->getINIEntries());
sort($ini);
var_dump($ini);
?>
--EXPECT--
shmcache support => enabled: present
max key length => 4096: present
keys_memory_size => 262144: present
validation_failures => 0: present
validation_failures_lapped => 0: present
validation_failures_corrupt => 0: present
shmcache.enable => 1 => 1: present
shmcache.enable_cli => 1 => 1: present
shmcache.keys_memory_size => 256K => 256K: present
shmcache.values_memory_size => 64M => 64M: present
shmcache.compress_threshold => 4096 => 4096: present
string(8) "shmcache"
bool(true)
array(22) {
  [0]=>
  string(20) "shmcache.apcu_compat"
  [1]=>
  string(27) "shmcache.compress_threshold"
  [2]=>
  string(15) "shmcache.enable"
  [3]=>
  string(19) "shmcache.enable_cli"
  [4]=>
  string(25) "shmcache.keys_memory_size"
  [5]=>
  string(14) "shmcache.redis"
  [6]=>
  string(30) "shmcache.redis_connect_timeout"
  [7]=>
  string(23) "shmcache.redis_database"
  [8]=>
  string(24) "shmcache.redis_max_apply"
  [9]=>
  string(23) "shmcache.redis_password"
  [10]=>
  string(21) "shmcache.redis_prefix"
  [11]=>
  string(27) "shmcache.redis_read_timeout"
  [12]=>
  string(30) "shmcache.redis_resync_interval"
  [13]=>
  string(28) "shmcache.redis_stream_length"
  [14]=>
  string(15) "shmcache.region"
  [15]=>
  string(21) "shmcache.region_group"
  [16]=>
  string(20) "shmcache.region_user"
  [17]=>
  string(30) "shmcache.test_hook_clock_ahead"
  [18]=>
  string(40) "shmcache.test_hook_clock_step_back_after"
  [19]=>
  string(29) "shmcache.test_hook_fill_delay"
  [20]=>
  string(37) "shmcache.test_hook_fill_recheck_delay"
  [21]=>
  string(27) "shmcache.values_memory_size"
}
