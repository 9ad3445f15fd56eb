--TEST--
INI sizes with K/M/G suffixes show up in shmcache_info()
--INI--
shmcache.keys_memory_size=64K
shmcache.values_memory_size=1G
shmcache.compress_threshold=2K
--FILE--
<?php
var_dump(ini_get('shmcache.keys_memory_size'), ini_get('shmcache.values_memory_size'), ini_get('shmcache.compress_threshold'));
$i = shmcache_info();
var_dump($i['enabled']);
var_dump($i['keys_memory_size'] === 64 * 1024);
var_dump($i['values_memory_size'] === 1024 * 1024 * 1024);
var_dump($i['compress_threshold'] === 2048);
var_dump($i['slots_total'] > 0 && $i['slots_total'] * 8 <= 64 * 1024);
// The sizes are fixed at startup: ini_set() cannot change them
var_dump(ini_set('shmcache.keys_memory_size', '8M'), ini_get('shmcache.keys_memory_size'));
// The cache works with these sizes
var_dump(shmcache_set('k', str_repeat('a', 3000)), strlen(shmcache_get('k')));
var_dump(shmcache_info()['compressed_count']);
?>
--EXPECT--
string(3) "64K"
string(2) "1G"
string(2) "2K"
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(false)
string(3) "64K"
bool(true)
int(3000)
int(1)
