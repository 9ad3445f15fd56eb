--TEST--
Arrays round-trip exactly: nesting, int/string/binary keys, order, mixed value types, deep nesting
--FILE--
<?php
$arrays = [
    'empty' => [],
    'list' => [1, 2, 3, 'four', 5.5, null, true, false],
    'assoc' => ['b' => 2, 'a' => 1, 'c' => 3],            // insertion order, not sorted
    'holes' => [5 => 'five', 1 => 'one', -7 => 'minus seven', PHP_INT_MAX => 'max', PHP_INT_MIN => 'min'],
    'binkeys' => ["k\0ey" => 1, "\xff\xfe" => 2, "" => 'empty key', "\0" => 'nul', "123x" => 'not numeric'],
    'nested' => ['a' => ['b' => ['c' => ['d' => [1, [2, [3, []]]]]]], 'e' => [[], [[]]]],
    'mixed' => [0 => 'zero', 'one' => 1, 2 => [INF, -INF, -0.0, PHP_INT_MIN], 'str' => "bin\0ary\xff"],
    'strings' => array_map(fn($i) => str_repeat(chr($i), $i), range(0, 255)),
    'big' => array_combine(array_map(fn($i) => "key$i", range(1, 10000)), range(1, 10000)),
];
foreach ($arrays as $name => $a) {
    var_dump(shmcache_set("arr:$name", $a));
}
foreach ($arrays as $name => $a) {
    $got = shmcache_get("arr:$name", $found);
    // === on arrays compares keys, order, types and values.
    printf("%-8s %s %s\n", $name, $found ? 'found' : 'MISS', $got === $a ? 'identical' : 'DIFFERENT');
}

// Exact shape of a small one.
var_dump(shmcache_get('arr:holes'));
var_dump(array_keys(shmcache_get('arr:binkeys')) === ["k\0ey", "\xff\xfe", "", "\0", "123x"]);

// NAN inside an array (not === itself) and -0.0 by its bits.
shmcache_set('arr:floats', ['nan' => NAN, 'nz' => -0.0]);
$f = shmcache_get('arr:floats');
var_dump(is_nan($f['nan']), bin2hex(pack('E', $f['nz'])));

// Appending after a round trip continues after the largest int key, as in the original.
$a = [3 => 'x', 10 => 'y'];
shmcache_set('arr:append', $a);
$got = shmcache_get('arr:append');
$got[] = 'z';
$a[] = 'z';
var_dump(array_keys($got) === array_keys($a));

// Deep nesting (100 levels) round-trips too.
$deep = 'bottom';
for ($i = 0; $i < 100; $i++) $deep = [$i => $deep, 'level' => $i];
var_dump(shmcache_set('arr:deep', $deep));
var_dump(shmcache_get('arr:deep') === $deep);

// Large array of arrays.
$rows = [];
for ($i = 0; $i < 2000; $i++) $rows[] = ['id' => $i, 'name' => "row $i", 'tags' => ['t' . ($i % 7), 't' . ($i % 11)], 'score' => $i / 3];
var_dump(shmcache_set('arr:rows', $rows));
var_dump(shmcache_get('arr:rows') === $rows);
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
empty    found identical
list     found identical
assoc    found identical
holes    found identical
binkeys  found identical
nested   found identical
mixed    found identical
strings  found identical
big      found identical
array(5) {
  [5]=>
  string(4) "five"
  [1]=>
  string(3) "one"
  [-7]=>
  string(11) "minus seven"
  [9223372036854775807]=>
  string(3) "max"
  [-9223372036854775808]=>
  string(3) "min"
}
bool(true)
bool(true)
string(16) "8000000000000000"
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
