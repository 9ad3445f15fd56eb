--TEST--
apcu_fetch() of an array of keys (read as one batch when every key is a plain string): hits only, under their keys as string keys even when numeric ("3", "-5"), repeated keys once in first-request order, every kind of value, misses left out, the hit and miss counters as APCu counts them; arrays with a non-string key (warned, read key by key), an empty key or an over-long one; the same output as the APCu extension where this PHP has it
--FILE--
<?php
require __DIR__ . '/inc/common.inc';
$script = <<<'PHP'
class Point { public $x = 1; public $y = [2, 3]; }
$values = ['str' => 'a string', 'int' => 42, 'float' => 1.5, 'true' => true, 'false' => false,
    'null' => null, 'array' => ['a' => 1, 2, [3]], 'object' => new Point(), 'empty' => '',
    'long' => str_repeat('0123456789', 30)];
foreach ($values as $k => $v) { apcu_store("kind:$k", $v); }
for ($i = 0; $i < 300; $i++) { apcu_store("b:$i", "value $i"); }
apcu_store('3', 'three'); apcu_store('-5', 'minus five'); apcu_store('007', 'bond');
apcu_store('12', 'twelve');
$info = apcu_cache_info(true); $hits = $info['num_hits']; $misses = $info['num_misses'];

$keys = array_map(fn ($k) => "kind:$k", array_keys($values));
for ($i = 299; $i >= 0; $i -= 7) { $keys[] = "b:$i"; $keys[] = "absent:$i"; }
$keys = array_merge($keys, ['3', '-5', '007', '12', '4', '3', 'b:5', implode(':', ['b', '5'])]);
$r = apcu_fetch($keys, $ok);
var_dump($ok, count($r));
foreach ($r as $k => $v) { echo gettype($k), ' ', $k, ' => ', str_replace("\n", ' ', var_export($v, true)), "\n"; }
$info = apcu_cache_info(true);
echo 'hits ', $info['num_hits'] - $hits, ', misses ', $info['num_misses'] - $misses, "\n";

echo "-- a map, a list with holes\n";
var_dump(apcu_fetch(['x' => 'b:1', 'y' => '3', 'z' => 'absent']));
$list = ['b:1', 'b:2', 'b:3']; unset($list[1]);
var_dump(apcu_fetch($list));
echo "-- a non-string key among strings, an empty key, an over-long key\n";
var_dump(apcu_fetch(['b:1', 3, 'b:2', 4.5], $ok), $ok);
apcu_store('', 'empty key');
var_dump(apcu_fetch(['b:8', '', 'b:9']));
var_dump(apcu_fetch(['b:10', str_repeat('k', 5000)]));
var_dump(apcu_fetch([]), apcu_fetch(['absent']));
PHP;
[$mine] = shm_run(['shmcache.enable_cli=1', 'shmcache.apcu_compat=1'], $script);
echo $mine;
[$probe] = shm_run(['extension=apcu.so'], 'echo extension_loaded("apcu") ? "yes" : "no";');
if (str_contains($probe, 'yes')) {
    [$theirs] = shm_run(['extension=apcu.so', 'apc.enable_cli=1'], $script);
    echo 'APCu: ', $theirs === $mine ? 'the same' : "different:\n$theirs", "\n";
} elseif (PHP_VERSION_ID >= 80500) {
    // Debian ships no APCu for PHP 8.5 and 8.6; scripts/test.sh installs it for 8.2.
    echo 'APCu: not available for PHP ', PHP_MAJOR_VERSION, '.', PHP_MINOR_VERSION, "\n";
} else {
    echo "APCu: missing, where it must be installed to compare with\n";
}
?>
--EXPECTF--
bool(true)
int(57)
string kind:str => 'a string'
string kind:int => 42
string kind:float => 1.5
string kind:true => true
string kind:false => false
string kind:null => NULL
string kind:array => array (   'a' => 1,   0 => 2,   1 =>    array (     0 => 3,   ), )
string kind:object => \Point::__set_state(array(    'x' => 1,    'y' =>    array (     0 => 2,     1 => 3,   ), ))
string kind:empty => ''
string kind:long => '012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789'
string b:299 => 'value 299'
string b:292 => 'value 292'
string b:285 => 'value 285'
string b:278 => 'value 278'
string b:271 => 'value 271'
string b:264 => 'value 264'
string b:257 => 'value 257'
string b:250 => 'value 250'
string b:243 => 'value 243'
string b:236 => 'value 236'
string b:229 => 'value 229'
string b:222 => 'value 222'
string b:215 => 'value 215'
string b:208 => 'value 208'
string b:201 => 'value 201'
string b:194 => 'value 194'
string b:187 => 'value 187'
string b:180 => 'value 180'
string b:173 => 'value 173'
string b:166 => 'value 166'
string b:159 => 'value 159'
string b:152 => 'value 152'
string b:145 => 'value 145'
string b:138 => 'value 138'
string b:131 => 'value 131'
string b:124 => 'value 124'
string b:117 => 'value 117'
string b:110 => 'value 110'
string b:103 => 'value 103'
string b:96 => 'value 96'
string b:89 => 'value 89'
string b:82 => 'value 82'
string b:75 => 'value 75'
string b:68 => 'value 68'
string b:61 => 'value 61'
string b:54 => 'value 54'
string b:47 => 'value 47'
string b:40 => 'value 40'
string b:33 => 'value 33'
string b:26 => 'value 26'
string b:19 => 'value 19'
string b:12 => 'value 12'
string b:5 => 'value 5'
string 3 => 'three'
string -5 => 'minus five'
string 007 => 'bond'
string 12 => 'twelve'
hits 60, misses 44
-- a map, a list with holes
array(2) {
  ["b:1"]=>
  string(7) "value 1"
  ["3"]=>
  string(5) "three"
}
array(2) {
  ["b:1"]=>
  string(7) "value 1"
  ["b:3"]=>
  string(7) "value 3"
}
-- a non-string key among strings, an empty key, an over-long key

Warning: apcu_fetch(): apc_fetch() expects a string or array of strings. in %s on line %d

Warning: apcu_fetch(): apc_fetch() expects a string or array of strings. in %s on line %d
array(2) {
  ["b:1"]=>
  string(7) "value 1"
  ["b:2"]=>
  string(7) "value 2"
}
bool(true)
array(3) {
  ["b:8"]=>
  string(7) "value 8"
  [""]=>
  string(9) "empty key"
  ["b:9"]=>
  string(7) "value 9"
}
array(1) {
  ["b:10"]=>
  string(8) "value 10"
}
array(0) {
}
array(0) {
}
APCu: %r(the same|not available for PHP 8\.([5-9]|[1-9][0-9]))%r
