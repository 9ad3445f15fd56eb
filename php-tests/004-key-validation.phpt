--TEST--
Keys: empty -> ValueError, longer than 4096 bytes -> ValueError, exactly 4096 OK, wrong type -> TypeError
--FILE--
<?php
require __DIR__ . '/inc/common.inc';

$c = new ShmCache('keys');
// name => fn(key) for every function and method taking a key.
$ops = [
    'shmcache_get' => fn($k) => shmcache_get($k),
    'shmcache_set' => fn($k) => shmcache_set($k, 1),
    'shmcache_add' => fn($k) => shmcache_add($k, 1),
    'shmcache_replace' => fn($k) => shmcache_replace($k, 1),
    'shmcache_cas' => fn($k) => shmcache_cas($k, 1, 2),
    'shmcache_incr' => fn($k) => shmcache_incr($k),
    'shmcache_decr' => fn($k) => shmcache_decr($k),
    'shmcache_delete' => fn($k) => shmcache_delete($k),
    'shmcache_exists' => fn($k) => shmcache_exists($k),
    'ShmCache::get' => fn($k) => $c->get($k),
    'ShmCache::set' => fn($k) => $c->set($k, 1),
    'ShmCache::add' => fn($k) => $c->add($k, 1),
    'ShmCache::replace' => fn($k) => $c->replace($k, 1),
    'ShmCache::cas' => fn($k) => $c->cas($k, 1, 2),
    'ShmCache::incr' => fn($k) => $c->incr($k),
    'ShmCache::decr' => fn($k) => $c->decr($k),
    'ShmCache::delete' => fn($k) => $c->delete($k),
    'ShmCache::exists' => fn($k) => $c->exists($k),
];

$long = str_repeat('k', 4097);
$max = str_repeat('m', 4096);
foreach ($ops as $name => $op) {
    echo "-- $name\n";
    shm_try(fn() => $op(''));
    shm_try(fn() => $op($long));
    foreach ([[], 1.5, null, true] as $bad) {
        shm_try(fn() => $op($bad));
    }
}

echo "-- multi\n";
shm_try(fn() => shmcache_get_multi(['ok', '']));
shm_try(fn() => shmcache_get_multi(['ok', $long]));
shm_try(fn() => shmcache_get_multi(['ok', []]));
shm_try(fn() => shmcache_get_multi(['ok', 2.5]));
shm_try(fn() => shmcache_get_multi(['ok', null]));
shm_try(fn() => $c->getMulti(['']));
shm_try(fn() => $c->getMulti([false]));
shm_try(fn() => shmcache_set_multi(['first' => 1, '' => 2]));
shm_try(fn() => shmcache_set_multi(['first' => 1, $long => 2]));
shm_try(fn() => $c->setMulti(['' => 1]));
// A bad key in set_multi stores nothing at all.
var_dump(shmcache_exists('first'));

echo "-- exactly 4096 bytes\n";
var_dump(strlen($max));
var_dump(shmcache_set($max, 'max'));
var_dump(shmcache_get($max));
var_dump(shmcache_exists($max));
var_dump(shmcache_get_multi([$max]) === [$max => 'max']);
var_dump(shmcache_set_multi([$max => 'max2']));
var_dump(shmcache_get($max));
var_dump($c->set($max, 'ns max'));
var_dump($c->get($max));
var_dump(shmcache_get($max));
var_dump(shmcache_set(str_repeat('n', 4096), 7), shmcache_incr(str_repeat('n', 4096)));
var_dump(shmcache_delete($max), shmcache_exists($max));
// 4096 and 4095 'm's are different keys.
var_dump(shmcache_get(substr($max, 1)));
// The documented maximum.
var_dump(SHMCACHE_MAX_KEY_LENGTH, shmcache_info()['max_key_length']);
?>
--EXPECT--
-- shmcache_get
ValueError: shmcache_get(): Argument #1 ($key) cannot be empty
ValueError: shmcache_get(): Argument #1 ($key) must be at most 4096 bytes long, 4097 given
TypeError: shmcache_get(): Argument #1 ($key) must be of type string, array given
TypeError: shmcache_get(): Argument #1 ($key) must be of type string, float given
TypeError: shmcache_get(): Argument #1 ($key) must be of type string, null given
TypeError: shmcache_get(): Argument #1 ($key) must be of type string, bool given
-- shmcache_set
ValueError: shmcache_set(): Argument #1 ($key) cannot be empty
ValueError: shmcache_set(): Argument #1 ($key) must be at most 4096 bytes long, 4097 given
TypeError: shmcache_set(): Argument #1 ($key) must be of type string, array given
TypeError: shmcache_set(): Argument #1 ($key) must be of type string, float given
TypeError: shmcache_set(): Argument #1 ($key) must be of type string, null given
TypeError: shmcache_set(): Argument #1 ($key) must be of type string, bool given
-- shmcache_add
ValueError: shmcache_add(): Argument #1 ($key) cannot be empty
ValueError: shmcache_add(): Argument #1 ($key) must be at most 4096 bytes long, 4097 given
TypeError: shmcache_add(): Argument #1 ($key) must be of type string, array given
TypeError: shmcache_add(): Argument #1 ($key) must be of type string, float given
TypeError: shmcache_add(): Argument #1 ($key) must be of type string, null given
TypeError: shmcache_add(): Argument #1 ($key) must be of type string, bool given
-- shmcache_replace
ValueError: shmcache_replace(): Argument #1 ($key) cannot be empty
ValueError: shmcache_replace(): Argument #1 ($key) must be at most 4096 bytes long, 4097 given
TypeError: shmcache_replace(): Argument #1 ($key) must be of type string, array given
TypeError: shmcache_replace(): Argument #1 ($key) must be of type string, float given
TypeError: shmcache_replace(): Argument #1 ($key) must be of type string, null given
TypeError: shmcache_replace(): Argument #1 ($key) must be of type string, bool given
-- shmcache_cas
ValueError: shmcache_cas(): Argument #1 ($key) cannot be empty
ValueError: shmcache_cas(): Argument #1 ($key) must be at most 4096 bytes long, 4097 given
TypeError: shmcache_cas(): Argument #1 ($key) must be of type string, array given
TypeError: shmcache_cas(): Argument #1 ($key) must be of type string, float given
TypeError: shmcache_cas(): Argument #1 ($key) must be of type string, null given
TypeError: shmcache_cas(): Argument #1 ($key) must be of type string, bool given
-- shmcache_incr
ValueError: shmcache_incr(): Argument #1 ($key) cannot be empty
ValueError: shmcache_incr(): Argument #1 ($key) must be at most 4096 bytes long, 4097 given
TypeError: shmcache_incr(): Argument #1 ($key) must be of type string, array given
TypeError: shmcache_incr(): Argument #1 ($key) must be of type string, float given
TypeError: shmcache_incr(): Argument #1 ($key) must be of type string, null given
TypeError: shmcache_incr(): Argument #1 ($key) must be of type string, bool given
-- shmcache_decr
ValueError: shmcache_decr(): Argument #1 ($key) cannot be empty
ValueError: shmcache_decr(): Argument #1 ($key) must be at most 4096 bytes long, 4097 given
TypeError: shmcache_decr(): Argument #1 ($key) must be of type string, array given
TypeError: shmcache_decr(): Argument #1 ($key) must be of type string, float given
TypeError: shmcache_decr(): Argument #1 ($key) must be of type string, null given
TypeError: shmcache_decr(): Argument #1 ($key) must be of type string, bool given
-- shmcache_delete
ValueError: shmcache_delete(): Argument #1 ($key) cannot be empty
ValueError: shmcache_delete(): Argument #1 ($key) must be at most 4096 bytes long, 4097 given
TypeError: shmcache_delete(): Argument #1 ($key) must be of type string, array given
TypeError: shmcache_delete(): Argument #1 ($key) must be of type string, float given
TypeError: shmcache_delete(): Argument #1 ($key) must be of type string, null given
TypeError: shmcache_delete(): Argument #1 ($key) must be of type string, bool given
-- shmcache_exists
ValueError: shmcache_exists(): Argument #1 ($key) cannot be empty
ValueError: shmcache_exists(): Argument #1 ($key) must be at most 4096 bytes long, 4097 given
TypeError: shmcache_exists(): Argument #1 ($key) must be of type string, array given
TypeError: shmcache_exists(): Argument #1 ($key) must be of type string, float given
TypeError: shmcache_exists(): Argument #1 ($key) must be of type string, null given
TypeError: shmcache_exists(): Argument #1 ($key) must be of type string, bool given
-- ShmCache::get
ValueError: ShmCache::get(): Argument #1 ($key) cannot be empty
ValueError: ShmCache::get(): Argument #1 ($key) must be at most 4096 bytes long, 4097 given
TypeError: ShmCache::get(): Argument #1 ($key) must be of type string, array given
TypeError: ShmCache::get(): Argument #1 ($key) must be of type string, float given
TypeError: ShmCache::get(): Argument #1 ($key) must be of type string, null given
TypeError: ShmCache::get(): Argument #1 ($key) must be of type string, bool given
-- ShmCache::set
ValueError: ShmCache::set(): Argument #1 ($key) cannot be empty
ValueError: ShmCache::set(): Argument #1 ($key) must be at most 4096 bytes long, 4097 given
TypeError: ShmCache::set(): Argument #1 ($key) must be of type string, array given
TypeError: ShmCache::set(): Argument #1 ($key) must be of type string, float given
TypeError: ShmCache::set(): Argument #1 ($key) must be of type string, null given
TypeError: ShmCache::set(): Argument #1 ($key) must be of type string, bool given
-- ShmCache::add
ValueError: ShmCache::add(): Argument #1 ($key) cannot be empty
ValueError: ShmCache::add(): Argument #1 ($key) must be at most 4096 bytes long, 4097 given
TypeError: ShmCache::add(): Argument #1 ($key) must be of type string, array given
TypeError: ShmCache::add(): Argument #1 ($key) must be of type string, float given
TypeError: ShmCache::add(): Argument #1 ($key) must be of type string, null given
TypeError: ShmCache::add(): Argument #1 ($key) must be of type string, bool given
-- ShmCache::replace
ValueError: ShmCache::replace(): Argument #1 ($key) cannot be empty
ValueError: ShmCache::replace(): Argument #1 ($key) must be at most 4096 bytes long, 4097 given
TypeError: ShmCache::replace(): Argument #1 ($key) must be of type string, array given
TypeError: ShmCache::replace(): Argument #1 ($key) must be of type string, float given
TypeError: ShmCache::replace(): Argument #1 ($key) must be of type string, null given
TypeError: ShmCache::replace(): Argument #1 ($key) must be of type string, bool given
-- ShmCache::cas
ValueError: ShmCache::cas(): Argument #1 ($key) cannot be empty
ValueError: ShmCache::cas(): Argument #1 ($key) must be at most 4096 bytes long, 4097 given
TypeError: ShmCache::cas(): Argument #1 ($key) must be of type string, array given
TypeError: ShmCache::cas(): Argument #1 ($key) must be of type string, float given
TypeError: ShmCache::cas(): Argument #1 ($key) must be of type string, null given
TypeError: ShmCache::cas(): Argument #1 ($key) must be of type string, bool given
-- ShmCache::incr
ValueError: ShmCache::incr(): Argument #1 ($key) cannot be empty
ValueError: ShmCache::incr(): Argument #1 ($key) must be at most 4096 bytes long, 4097 given
TypeError: ShmCache::incr(): Argument #1 ($key) must be of type string, array given
TypeError: ShmCache::incr(): Argument #1 ($key) must be of type string, float given
TypeError: ShmCache::incr(): Argument #1 ($key) must be of type string, null given
TypeError: ShmCache::incr(): Argument #1 ($key) must be of type string, bool given
-- ShmCache::decr
ValueError: ShmCache::decr(): Argument #1 ($key) cannot be empty
ValueError: ShmCache::decr(): Argument #1 ($key) must be at most 4096 bytes long, 4097 given
TypeError: ShmCache::decr(): Argument #1 ($key) must be of type string, array given
TypeError: ShmCache::decr(): Argument #1 ($key) must be of type string, float given
TypeError: ShmCache::decr(): Argument #1 ($key) must be of type string, null given
TypeError: ShmCache::decr(): Argument #1 ($key) must be of type string, bool given
-- ShmCache::delete
ValueError: ShmCache::delete(): Argument #1 ($key) cannot be empty
ValueError: ShmCache::delete(): Argument #1 ($key) must be at most 4096 bytes long, 4097 given
TypeError: ShmCache::delete(): Argument #1 ($key) must be of type string, array given
TypeError: ShmCache::delete(): Argument #1 ($key) must be of type string, float given
TypeError: ShmCache::delete(): Argument #1 ($key) must be of type string, null given
TypeError: ShmCache::delete(): Argument #1 ($key) must be of type string, bool given
-- ShmCache::exists
ValueError: ShmCache::exists(): Argument #1 ($key) cannot be empty
ValueError: ShmCache::exists(): Argument #1 ($key) must be at most 4096 bytes long, 4097 given
TypeError: ShmCache::exists(): Argument #1 ($key) must be of type string, array given
TypeError: ShmCache::exists(): Argument #1 ($key) must be of type string, float given
TypeError: ShmCache::exists(): Argument #1 ($key) must be of type string, null given
TypeError: ShmCache::exists(): Argument #1 ($key) must be of type string, bool given
-- multi
ValueError: shmcache_get_multi(): Argument #1 ($keys) element cannot be empty
ValueError: shmcache_get_multi(): Argument #1 ($keys) element must be at most 4096 bytes long, 4097 given
TypeError: shmcache_get_multi(): Argument #1 ($keys) element must be of type string, array given
TypeError: shmcache_get_multi(): Argument #1 ($keys) element must be of type string, float given
TypeError: shmcache_get_multi(): Argument #1 ($keys) element must be of type string, null given
ValueError: ShmCache::getMulti(): Argument #1 ($keys) element cannot be empty
TypeError: ShmCache::getMulti(): Argument #1 ($keys) element must be of type string, bool given
ValueError: shmcache_set_multi(): Argument #1 ($values) key cannot be empty
ValueError: shmcache_set_multi(): Argument #1 ($values) key must be at most 4096 bytes long, 4097 given
ValueError: ShmCache::setMulti(): Argument #1 ($values) key cannot be empty
bool(false)
-- exactly 4096 bytes
int(4096)
bool(true)
string(3) "max"
bool(true)
bool(true)
array(0) {
}
string(4) "max2"
bool(true)
string(6) "ns max"
string(4) "max2"
bool(true)
int(8)
bool(true)
bool(false)
bool(false)
int(4096)
int(4096)
