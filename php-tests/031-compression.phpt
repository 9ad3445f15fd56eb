--TEST--
compress_threshold: compressible values at least that long are compressed (compressed_count), read back intact
--INI--
shmcache.compress_threshold=1K
--FILE--
<?php
require __DIR__ . '/inc/common.inc';
$keys = ['compressed_count', 'sets'];
var_dump(shmcache_info()['compress_threshold']);

// 1 MB of compressible text: compressed, much smaller in the ring, intact when read back
$big = str_repeat("shmcache compresses repetitive values. ", 27000);
$i0 = shmcache_info();
var_dump(shmcache_set('c:big', $big));
$i1 = shmcache_info();
shm_print_delta('1 MB text', $i0, $i1, $keys);
$written = $i1['values_written_bytes'] - $i0['values_written_bytes'];
var_dump($written < strlen($big) / 10);
var_dump(shmcache_get('c:big') === $big);

// Below the threshold: not compressed
$i0 = shmcache_info();
shmcache_set('c:small', str_repeat('a', 1023));
shm_print_delta('1023 bytes', $i0, shmcache_info(), $keys);
var_dump(shmcache_get('c:small') === str_repeat('a', 1023));

// At the threshold: compressed
$i0 = shmcache_info();
shmcache_set('c:edge', str_repeat('a', 1024));
shm_print_delta('1024 bytes', $i0, shmcache_info(), $keys);
var_dump(shmcache_get('c:edge') === str_repeat('a', 1024));

// Compressible arrays and objects too (their encoded form is what counts)
$arr = array_fill(0, 2000, 'same string in every element');
$i0 = shmcache_info();
shmcache_set('c:arr', $arr);
$o = new stdClass;
$o->list = $arr;
shmcache_set('c:obj', $o);
shm_print_delta('array + object', $i0, shmcache_info(), $keys);
var_dump(shmcache_get('c:arr') === $arr, shmcache_get('c:obj') == $o);

// Via get_multi, the class API and across a fork
$ns = new ShmCache('compress');
$ns->set('big', $big);
var_dump($ns->getMulti(['big'])['big'] === $big, shmcache_get_multi(['c:big'])['c:big'] === $big);
$codes = shm_fork_all(1, fn() => shmcache_get('c:big') === $big && $ns->get('big') === $big ? 0 : 1);
var_dump($codes[0]);

// An integer is never compressed, so incr keeps working
shmcache_set('c:int', 5);
var_dump(shmcache_incr('c:int'));
?>
--EXPECT--
int(1024)
bool(true)
1 MB text: compressed_count=1 sets=1
bool(true)
bool(true)
1023 bytes: compressed_count=0 sets=1
bool(true)
1024 bytes: compressed_count=1 sets=1
bool(true)
array + object: compressed_count=2 sets=2
bool(true)
bool(true)
bool(true)
bool(true)
int(0)
int(6)
