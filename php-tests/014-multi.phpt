--TEST--
get_multi returns hits only (keeping int keys), set_multi returns the keys not stored ([] when all were)
--FILE--
<?php
// set_multi: all stored -> []
var_dump(shmcache_set_multi(['a' => 'A', 'b' => null, 'c' => false, 7 => 'seven', '8' => 8, "bin\0" => [1, 2]]));
// get_multi: hits only, including stored null/false; misses are left out; order follows the request
$r = shmcache_get_multi(['c', 'missing', 'a', 7, 'b', 8, "bin\0", 'also missing']);
var_dump(array_keys($r) === ['c', 'a', 7, 'b', 8, "bin\0"]);
var_dump($r['c'], $r['a'], $r[7], $r['b'], $r[8], $r["bin\0"]);
// Integer keys come back as integers (PHP arrays turn "8" into 8 as well)
foreach (array_keys($r) as $k) echo gettype($k), ' ';
echo "\n";
// The input array's own keys do not matter, only its values
var_dump(shmcache_get_multi(['x' => 'a', 'y' => 'missing']));
// Nothing requested, nothing found
var_dump(shmcache_get_multi([]), shmcache_get_multi(['nope1', 'nope2']));
// The same key twice appears once
var_dump(shmcache_get_multi(['a', 'a']));
// Values stored by set_multi are the same as with set
var_dump(shmcache_get(7), shmcache_get('8'), shmcache_get("bin\0"));
// set_multi overwrites
var_dump(shmcache_set_multi(['a' => 'A2']), shmcache_get('a'));
// set_multi of nothing
var_dump(shmcache_set_multi([]));
// Many keys at once
$many = [];
for ($i = 0; $i < 1000; $i++) $many["many:$i"] = $i * 2;
var_dump(shmcache_set_multi($many));
$got = shmcache_get_multi(array_keys($many));
var_dump($got === $many);
// Hit/miss counters move per key
$before = shmcache_info();
shmcache_get_multi(['a', 'missing1', 'missing2', 7]);
$after = shmcache_info();
var_dump($after['hits'] - $before['hits'], $after['misses'] - $before['misses']);

// Class API: scoped to the namespace
$c = new ShmCache('multi');
var_dump($c->setMulti(['a' => 'ns A', 1 => 'ns one']));
var_dump($c->getMulti(['a', 1, 7, 'missing']));
var_dump(shmcache_get_multi(['a', 1]));
?>
--EXPECT--
array(0) {
}
bool(true)
bool(false)
string(1) "A"
string(5) "seven"
NULL
int(8)
array(2) {
  [0]=>
  int(1)
  [1]=>
  int(2)
}
string string integer string integer string 
array(1) {
  ["a"]=>
  string(1) "A"
}
array(0) {
}
array(0) {
}
array(1) {
  ["a"]=>
  string(1) "A"
}
string(5) "seven"
int(8)
array(2) {
  [0]=>
  int(1)
  [1]=>
  int(2)
}
array(0) {
}
string(2) "A2"
array(0) {
}
array(0) {
}
bool(true)
int(2)
int(2)
array(0) {
}
array(2) {
  ["a"]=>
  string(4) "ns A"
  [1]=>
  string(6) "ns one"
}
array(1) {
  ["a"]=>
  string(2) "A2"
}
