--TEST--
compress_threshold=0 never compresses
--INI--
shmcache.compress_threshold=0
--FILE--
<?php
var_dump(shmcache_info()['compress_threshold']);
$big = str_repeat('x', 1048576);
$i0 = shmcache_info();
var_dump(shmcache_set('big', $big));
var_dump(shmcache_set('arr', array_fill(0, 5000, 'same')));
$i1 = shmcache_info();
var_dump($i1['compressed_count'] - $i0['compressed_count']);
var_dump($i1['values_written_bytes'] - $i0['values_written_bytes'] >= 1048576);
var_dump(shmcache_get('big') === $big, count(shmcache_get('arr')));
?>
--EXPECT--
int(0)
bool(true)
bool(true)
int(0)
bool(true)
bool(true)
int(5000)
