--TEST--
get_multi/getMulti key the result the way PHP's own `$result[$key] = ...` does: canonical decimal strings become ints, every other string stays a string
--FILE--
<?php
$keys = ['42', '-7', '0', '042', '-0', '9223372036854775807', '9223372036854775808', '-9223372036854775808',
    ' 1', '1 ', '1.5', '1e3', '0x1A', '', "4\x002", "\xff", 'plain'];
$c = new ShmCache('numeric');
$expected = [];
foreach ($keys as $i => $k) {
    if ($k === '') continue;  // empty keys are refused; not part of this test
    shmcache_set($k, $i);
    $c->set($k, -$i);
    $expected[$k] = $i;       // PHP decides what the key becomes
}
$requested = array_values(array_filter($keys, fn($k) => $k !== ''));
$got = shmcache_get_multi($requested);
var_dump($got === $expected);
foreach ($got as $k => $v) echo is_int($k) ? "int:$k" : 'str:' . bin2hex($k), ' ';
echo "\n";
$gotNs = $c->getMulti($requested);
var_dump(array_keys($gotNs) === array_keys($expected), array_values($gotNs) === array_map(fn($v) => -$v, array_values($expected)));
// Lookups by the same keys find the values, as in any PHP array
var_dump($got['42'] === 0, $got[42] === 0, $got['042'] === 3, isset($got[42.0]));
?>
--EXPECT--
bool(true)
int:42 int:-7 int:0 str:303432 str:2d30 int:9223372036854775807 str:39323233333732303336383534373735383038 int:-9223372036854775808 str:2031 str:3120 str:312e35 str:316533 str:30783141 str:340032 str:ff str:706c61696e 
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
