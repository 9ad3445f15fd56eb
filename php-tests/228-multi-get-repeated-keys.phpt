--TEST--
get_multi of a batch that repeats keys (the same string, or separate strings with the same bytes, interned or not, string and numeric) gives each key once, in first-request order, with its value; the result holds its keys after the request array is gone
--FILE--
<?php
$n = 300;
$expected = [];
for ($i = 0; $i < $n; $i++) {
    shmcache_set("rk:$i", "value $i");
    $expected["rk:$i"] = "value $i";
}
shmcache_set('lit', 'literal');
shmcache_set('5', 'five');
$expected['lit'] = 'literal';
$expected[5] = 'five';

// Every key three times: as built here, as a second string built apart, and as the first again;
// plus a literal and a numeric key repeated, and misses between them.
$keys = [];
for ($i = 0; $i < $n; $i++) {
    $keys[] = "rk:$i";
}
for ($i = $n - 1; $i >= 0; $i--) {
    $keys[] = implode(':', ['rk', (string) $i]);
    $keys[] = 'missing:' . $i;
}
$keys = array_merge($keys, array_slice($keys, 0, $n), ['lit', '5', 'lit', (string) (2 + 3), 'rk:0']);

$r = shmcache_get_multi($keys);
unset($keys);
var_dump(count($r), $r === $expected, array_keys($r) === array_keys($expected));

// The keys stay valid and the result behaves as any array once the request is gone.
$r['rk:1'] .= '!';
$r['new'] = 1;
unset($r['rk:2']);
var_dump($r['rk:1'], isset($r['rk:2']), $r['rk:299'], $r[5], count($r));
$copy = $r;
$copy['rk:3'] = 'changed';
var_dump($r['rk:3'], $copy['rk:3']);

// A bigger batch than the one before, repeated keys only.
$same = array_fill(0, 50, 'rk:7');
$same[] = implode('', ['r', 'k', ':', '7']);
var_dump(shmcache_get_multi($same));
?>
--EXPECT--
int(302)
bool(true)
bool(true)
string(8) "value 1!"
bool(false)
string(9) "value 299"
string(4) "five"
int(302)
string(7) "value 3"
string(7) "changed"
array(1) {
  ["rk:7"]=>
  string(7) "value 7"
}
