--TEST--
Bad-input matrix: huge arguments (100 MB keys, namespaces and values; 10,000-element arrays; values at the size limit)
--INI--
memory_limit=1200M
--FILE--
<?php
require __DIR__ . '/inc/badinput.inc';
$mb100 = str_repeat('a', 100 << 20);
$rand = random_bytes(100 << 20);
$max = shmcache_info()['max_value_size'];
echo "100 MB key: ", bad_outcome(fn() => shmcache_set($mb100, 1)), "\n";
echo "100 MB key get: ", bad_outcome(fn() => shmcache_get($mb100)), "\n";
echo "100 MB namespace: ", bad_outcome(fn() => new ShmCache($mb100)), "\n";
echo "100 MB random value: ", bad_outcome(fn() => shmcache_set('big', $rand)), "\n";
echo "  stored: ", var_export(shmcache_exists('big'), true), "\n";
echo "100 MB compressible value: ", bad_outcome(fn() => shmcache_set('big', $mb100)), "\n";
$back = shmcache_get('big', $found);
echo "  read back intact: ", var_export($found && $back === $mb100, true), "\n";
unset($back);
echo "100 MB random value in setMulti: ", bad_outcome(fn() => shmcache_set_multi(['small' => 1, 'big2' => $rand])), "\n";
echo "  small stored: ", var_export(shmcache_get('small'), true), "\n";
echo "100 MB string as ttl: ", bad_outcome(fn() => shmcache_set('t', 1, $rand)), "\n";
echo "100 MB string as step: ", bad_outcome(fn() => shmcache_incr('t', $mb100)), "\n";
unset($mb100, $rand);
// The size limit, exactly.
$key = 'limit';
$room = $max - strlen($key) + 1;  // max_value_size is for a 1-byte key
$fits = random_bytes($room);
echo "value of exactly the limit: ", bad_outcome(fn() => shmcache_set($key, $fits)), "\n";
echo "  read back: ", var_export(shmcache_get($key) === $fits, true), "\n";
echo "one byte more: ", bad_outcome(fn() => shmcache_set($key, $fits . 'x')), "\n";
echo "  old value kept: ", var_export(shmcache_get($key) === $fits, true), "\n";
unset($fits);
// 10,000-element arrays.
$keys = [];
$values = [];
for ($i = 0; $i < 10000; $i++) {
    $keys[] = "key:$i";
    $values["key:$i"] = $i % 3 ? "value $i" : [$i, "v$i", $i / 7];
}
echo "setMulti 10,000: ", bad_outcome(fn() => shmcache_set_multi($values)), "\n";
$got = shmcache_get_multi($keys);
echo "getMulti 10,000: ", count($got), " hits, equal: ", var_export($got === $values, true), "\n";
echo "10,000-element value: ", bad_outcome(fn() => shmcache_set('arr', $values)), ", equal: ", var_export(shmcache_get('arr') === $values, true), "\n";
shmcache_flush();
$bad = $values;
$bad[''] = 1;
echo "setMulti 10,000 + empty key: ", bad_outcome(fn() => shmcache_set_multi($bad)), ", stored: ", count(shmcache_get_multi($keys)), "\n";
$bad = $values;
$bad['last'] = fopen('php://memory', 'r');
echo "setMulti 10,000 + resource: ", bad_outcome(fn() => shmcache_set_multi($bad)), ", stored: ", count(shmcache_get_multi($keys)), "\n";
$badKeys = $keys;
$badKeys[] = [];
echo "getMulti 10,000 + array key: ", bad_outcome(fn() => shmcache_get_multi($badKeys)), "\n";
$c = new ShmCache(str_repeat("\xff", 1024));
echo "1024-byte namespace, 4096-byte binary key: ", bad_outcome(fn() => $c->set(str_repeat("\0", 4096), 'v') && $c->get(str_repeat("\0", 4096)) === 'v'), "\n";
echo "still works: ", var_export(shmcache_set('ok', 1) && shmcache_get('ok') === 1, true), "\n";
?>
--EXPECT--
100 MB key: ValueError: shmcache_set(): Argument #1 ($key) must be at most 4096 bytes long, 104857600 given
100 MB key get: ValueError: shmcache_get(): Argument #1 ($key) must be at most 4096 bytes long, 104857600 given
100 MB namespace: ValueError: ShmCache::__construct(): Argument #1 ($namespace) is invalid: namespace is 104857600 bytes long; the maximum is 1024
100 MB random value: ret false [E2: shmcache_set(): value of 104857600 bytes is too large; the largest storable value is 16777149 bytes (raise shmcache.values_memory_size)]
  stored: false
100 MB compressible value: ret true
  read back intact: true
100 MB random value in setMulti: ret array(1) [E2: shmcache_set_multi(): value of 104857600 bytes is too large; the largest storable value is 16777148 bytes (raise shmcache.values_memory_size)]
  small stored: 1
100 MB string as ttl: TypeError: shmcache_set(): Argument #3 ($ttl) must be of type int, string given
100 MB string as step: TypeError: shmcache_incr(): Argument #2 ($step) must be of type int, string given
value of exactly the limit: ret true
  read back: true
one byte more: ret false [E2: shmcache_set(): value of 16777148 bytes is too large; the largest storable value is 16777147 bytes (raise shmcache.values_memory_size)]
  old value kept: true
setMulti 10,000: ret array(0)
getMulti 10,000: 10000 hits, equal: true
10,000-element value: ret true, equal: true
setMulti 10,000 + empty key: ValueError: shmcache_set_multi(): Argument #1 ($values) key cannot be empty, stored: 0
setMulti 10,000 + resource: TypeError: shmcache_set_multi(): Argument #1 ($values) element cannot be a resource, stored: 0
getMulti 10,000 + array key: TypeError: shmcache_get_multi(): Argument #1 ($keys) element must be of type string, array given
1024-byte namespace, 4096-byte binary key: ret true
still works: true
