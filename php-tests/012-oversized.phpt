--TEST--
A value too large for the ring: false + E_WARNING naming the limit; the previous value survives
--INI--
shmcache.values_memory_size=256K
shmcache.compress_threshold=0
--FILE--
<?php
$warnings = [];
set_error_handler(function ($no, $str) use (&$warnings) {
    $warnings[] = ($no === E_WARNING ? 'E_WARNING' : "errno $no") . ": $str";
    return true;
});

// With a 256 KiB ring, a 200 KiB value can never fit (at most a quarter of the ring is allowed).
shmcache_set('big', 'previous');
$r = shmcache_set('big', str_repeat('x', 200 * 1024));
var_dump($r);
echo count($warnings), " warning(s)\n";
echo $warnings[0] ?? '(none)', "\n";
var_dump(shmcache_get('big'));

// The named limit is exact for this key: a value of that many bytes is stored, one more is not.
preg_match('/largest storable value is (\d+) bytes/', $warnings[0] ?? '', $m);
$limit = (int) ($m[1] ?? 0);
var_dump($limit > 60000 && $limit <= 65536);
$warnings = [];
var_dump(shmcache_set('big', str_repeat('y', $limit)));
var_dump(count($warnings), strlen(shmcache_get('big')));
var_dump(shmcache_set('big', str_repeat('z', $limit + 1)));
var_dump(count($warnings), shmcache_get('big') === str_repeat('y', $limit));
echo $warnings[0] ?? '(none)', "\n";

// add, replace, the class API and set_multi behave the same.
$warnings = [];
var_dump(shmcache_add('big-new', str_repeat('a', 100000)), shmcache_exists('big-new'));
var_dump(shmcache_replace('big', str_repeat('a', 100000)), strlen(shmcache_get('big')));
$c = new ShmCache('big');
$c->set('k', 'small');
var_dump($c->set('k', str_repeat('a', 100000)), $c->get('k'));
var_dump(shmcache_set_multi(['ok1' => 1, 'huge' => str_repeat('a', 100000), 'ok2' => 2]));
var_dump(shmcache_get('ok1'), shmcache_get('ok2'), shmcache_exists('huge'));
var_dump($c->setMulti(['huge' => str_repeat('a', 100000)]));
echo count($warnings), " warnings\n";
foreach ($warnings as $w) echo preg_replace('/\d+/', 'N', $w), "\n";

// An array or object that serialises too large is refused the same way.
$warnings = [];
shmcache_set('big-arr', 'previous');
var_dump(shmcache_set('big-arr', array_fill(0, 20000, 'abcdefgh')));
var_dump(count($warnings), shmcache_get('big-arr'));
?>
--EXPECTF--
bool(false)
1 warning(s)
E_WARNING: shmcache_set(): value of 204800 bytes is too large; the largest storable value is %d bytes (raise shmcache.values_memory_size)
string(8) "previous"
bool(true)
bool(true)
int(0)
int(%d)
bool(false)
int(1)
bool(true)
E_WARNING: shmcache_set(): value of %d bytes is too large; the largest storable value is %d bytes (raise shmcache.values_memory_size)
bool(false)
bool(false)
bool(false)
int(%d)
bool(false)
string(5) "small"
array(1) {
  [0]=>
  string(4) "huge"
}
int(1)
int(2)
bool(false)
array(1) {
  [0]=>
  string(4) "huge"
}
5 warnings
E_WARNING: shmcache_add(): value of N bytes is too large; the largest storable value is N bytes (raise shmcache.values_memory_size)
E_WARNING: shmcache_replace(): value of N bytes is too large; the largest storable value is N bytes (raise shmcache.values_memory_size)
E_WARNING: ShmCache::set(): value of N bytes is too large; the largest storable value is N bytes (raise shmcache.values_memory_size)
E_WARNING: shmcache_set_multi(): value of N bytes is too large; the largest storable value is N bytes (raise shmcache.values_memory_size)
E_WARNING: ShmCache::setMulti(): value of N bytes is too large; the largest storable value is N bytes (raise shmcache.values_memory_size)
bool(false)
int(1)
string(8) "previous"
