--TEST--
add_multi adds only keys that are not live and returns the others; a bad key or value adds nothing
--FILE--
<?php
function show($f) {
    try { var_dump($f()); } catch (Throwable $e) { echo get_class($e), ': ', $e->getMessage(), "\n"; }
}
shmcache_flush();
// All free: all added
show(fn() => shmcache_add_multi(['a' => 'A', 7 => 'seven', "bin\0" => [1]]));
// Live keys are not overwritten and come back (int keys as ints); free ones are added
shmcache_set('b', 'B');
show(fn() => shmcache_add_multi(['a' => 'A2', 'b' => 'B2', 'c' => 'C', 7 => 'x', '8' => 8]));
var_dump(shmcache_get('a'), shmcache_get('b'), shmcache_get('c'), shmcache_get(7), shmcache_get(8));
// An expired key is free again
shmcache_set('old', 'gone', -1);
show(fn() => shmcache_add_multi(['old' => 'new']));
var_dump(shmcache_get('old'));
// Nothing to add
show(fn() => shmcache_add_multi([]));
// Bad input: thrown before anything is added
show(fn() => shmcache_add_multi(['d' => 1, '' => 2]));
show(fn() => shmcache_add_multi(['d' => 1, 'e' => function () {}]));
show(fn() => shmcache_add_multi(['d' => 1, 'e' => STDIN]));
show(fn() => shmcache_add_multi(['d' => 1, str_repeat('k', 4097) => 2]));
show(fn() => shmcache_add_multi('d'));
show(fn() => shmcache_add_multi(['d' => 1], 'soon'));
var_dump(shmcache_exists('d'));
// A value too large for the ring: a warning, its key not added, the others added
$big = random_bytes(shmcache_info()['max_value_size'] + 1);
show(fn() => shmcache_add_multi(['big' => $big, 'f' => 'F']));
var_dump(shmcache_exists('big'), shmcache_get('f'));

// Class API: scoped to the namespace
$c = new ShmCache('addmulti');
show(fn() => $c->addMulti(['a' => 'ns A', 'z' => 'ns Z']));
show(fn() => $c->addMulti(['z' => 'again']));
var_dump($c->get('a'), shmcache_get('a'), shmcache_exists('z'));
show(fn() => $c->addMulti(['q' => new ArrayObject([1]), 'r' => function () {}]));
var_dump($c->exists('q'));
?>
--EXPECTF--
array(0) {
}
array(3) {
  [0]=>
  string(1) "a"
  [1]=>
  string(1) "b"
  [2]=>
  int(7)
}
string(1) "A"
string(1) "B"
string(1) "C"
string(5) "seven"
int(8)
array(0) {
}
string(3) "new"
array(0) {
}
ValueError: shmcache_add_multi(): Argument #1 ($values) key cannot be empty
Exception: Serialization of 'Closure' is not allowed
TypeError: shmcache_add_multi(): Argument #1 ($values) element cannot be a resource
ValueError: shmcache_add_multi(): Argument #1 ($values) key %s 4096 bytes%s
TypeError: shmcache_add_multi(): Argument #1 ($values) must be of type array, string given
TypeError: shmcache_add_multi(): Argument #2 ($ttl) must be of type int, string given
bool(false)

Warning: shmcache_add_multi(): value of %d bytes is too large; %s in %s on line %d
array(1) {
  [0]=>
  string(3) "big"
}
bool(false)
string(1) "F"
array(0) {
}
array(1) {
  [0]=>
  string(1) "z"
}
string(4) "ns A"
string(1) "A"
bool(false)
Exception: Serialization of 'Closure' is not allowed
bool(false)
