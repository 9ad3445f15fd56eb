--TEST--
Arrays read back share their short strings within a request, yet every copy stays independent: changing one never changes another or the stored value
--FILE--
<?php
$orig = [
    'post_status' => 'publish', 'ab' => 'cd', 'e' => 'f', '' => '', "nul\0key" => "nul\0value",
    str_repeat('k', 32) => str_repeat('v', 32), str_repeat('K', 33) => str_repeat('V', 33),
    'nested' => ['post_status' => 'publish', 'list' => ['publish', 'publish', 'draft']],
];
shmcache_set('shared', $orig);
$a = shmcache_get('shared');
$b = shmcache_get('shared');
var_dump($a === $orig, $b === $orig);

// Every way of changing a string: append, offset write, reference, inside a nested array
$a['post_status'] .= '!';
$a['ab'][0] = 'X';
$r = &$a[str_repeat('k', 32)];
$r[31] = 'Z';
unset($r);
$a['nested']['list'][1] .= '?';
$s = $b['nested']['post_status'];
$s[0] = 'P';
var_dump($a['post_status'], $a['ab'], substr($a[str_repeat('k', 32)], -2), $a['nested']['list']);
var_dump($b === $orig, $s, shmcache_get('shared') === $orig);

// Decoded strings used as keys and values elsewhere, then the arrays freed
$index = [];
foreach ($b as $k => $v) {
    if (is_string($v)) $index[$v] = $k;
}
unset($a, $b);
var_dump($index['publish'], $index[str_repeat('v', 32)], shmcache_get('shared') === $orig);

// More distinct short strings than the per-request table has slots: evictions everywhere
$many = [];
for ($i = 0; $i < 5000; $i++) {
    $many["key$i"] = "value" . ($i % 700);
}
shmcache_set('many', $many);
$x = shmcache_get('many');
$y = shmcache_get('many');
var_dump($x === $many, $y === $many);
$x['key1'] .= '+';
var_dump($y['key1'], $many['key1'], shmcache_get('many') === $many);
// Many arrays alive at once, each read separately
$all = [];
for ($i = 0; $i < 300; $i++) {
    shmcache_set("rec$i", ['id' => $i, 'name' => "n" . ($i % 50), 'tag' => 'same', "own$i" => "v$i"]);
}
for ($i = 0; $i < 300; $i++) $all[] = shmcache_get("rec$i");
$ok = true;
foreach ($all as $i => $rec) {
    $ok = $ok && $rec === ['id' => $i, 'name' => "n" . ($i % 50), 'tag' => 'same', "own$i" => "v$i"];
}
var_dump($ok);
?>
--EXPECT--
bool(true)
bool(true)
string(8) "publish!"
string(2) "Xd"
string(2) "vZ"
array(3) {
  [0]=>
  string(7) "publish"
  [1]=>
  string(8) "publish?"
  [2]=>
  string(5) "draft"
}
bool(true)
string(7) "Publish"
bool(true)
string(11) "post_status"
string(32) "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
bool(true)
bool(true)
bool(true)
string(6) "value1"
string(6) "value1"
bool(true)
bool(true)
