--TEST--
delete_multi deletes every listed key and returns the ones that were live; a bad key deletes nothing
--FILE--
<?php
function show($f) {
    try { var_dump($f()); } catch (Throwable $e) { echo get_class($e), ': ', $e->getMessage(), "\n"; }
}
shmcache_flush();
shmcache_set_multi(['a' => 1, 'b' => 2, 7 => 'seven', "bin\0" => 3, 'c' => 4, 'd' => 5]);
shmcache_set('expired', 1, -1);
// Live keys come back as given (a numeric string stays a string), missing and expired ones not;
// the array's own keys do not matter; a key listed twice is deleted once
show(fn() => shmcache_delete_multi(['x' => 'a', 'missing', '7', "bin\0", 'expired', 'a']));
var_dump(shmcache_get_multi(['a', 'b', 7, "bin\0", 'c', 'd']));
// An int key
show(fn() => shmcache_delete_multi([7, 'b']));
show(fn() => shmcache_delete_multi([]));
// Bad input: thrown before anything is deleted
show(fn() => shmcache_delete_multi(['c', '']));
show(fn() => shmcache_delete_multi(['c', 1.5]));
show(fn() => shmcache_delete_multi(['c', null]));
show(fn() => shmcache_delete_multi(['c', ['d']]));
show(fn() => shmcache_delete_multi(['c', str_repeat('k', 4097)]));
show(fn() => shmcache_delete_multi('c'));
var_dump(shmcache_exists('c'));
// More keys than one look-ahead group (8): each live key once, in the order given
for ($i = 0; $i < 20; $i++) {
    shmcache_set("g$i", $i);
}
echo implode(',', shmcache_delete_multi(['g0', 'g1', 'nope', 'g2', 'g3', 'g4', 'g5', 'g6', 'g7',
    'g8', 'g3', 'g9', 'g19', 'g10', 'g0', 'g11'])), "\n";
echo implode(',', array_keys(shmcache_get_multi(array_map(fn($i) => "g$i", range(0, 19))))), "\n";
// Keys held by reference
$k = 'c';
show(fn() => shmcache_delete_multi([&$k]));

// Class API: scoped to the namespace
$n = new ShmCache('delmulti');
$n->set('d', 'ns d');
show(fn() => $n->deleteMulti(['d', 'e']));
var_dump(shmcache_get('d'));
show(fn() => $n->deleteMulti([new stdClass]));
?>
--EXPECTF--
array(3) {
  [0]=>
  string(1) "a"
  [1]=>
  string(1) "7"
  [2]=>
  string(4) "bin%0"
}
array(3) {
  ["b"]=>
  int(2)
  ["c"]=>
  int(4)
  ["d"]=>
  int(5)
}
array(1) {
  [0]=>
  string(1) "b"
}
array(0) {
}
ValueError: shmcache_delete_multi(): Argument #1 ($keys) element cannot be empty
TypeError: shmcache_delete_multi(): Argument #1 ($keys) element must be of type string, float given
TypeError: shmcache_delete_multi(): Argument #1 ($keys) element must be of type string, null given
TypeError: shmcache_delete_multi(): Argument #1 ($keys) element must be of type string, array given
ValueError: shmcache_delete_multi(): Argument #1 ($keys) element %s 4096 bytes%s
TypeError: shmcache_delete_multi(): Argument #1 ($keys) must be of type array, string given
bool(true)
g0,g1,g2,g3,g4,g5,g6,g7,g8,g9,g19,g10,g11
g12,g13,g14,g15,g16,g17,g18
array(1) {
  [0]=>
  string(1) "c"
}
array(1) {
  [0]=>
  string(1) "d"
}
int(5)
TypeError: ShmCache::deleteMulti(): Argument #1 ($keys) element must be of type string, stdClass given
