--TEST--
The $found out-parameter tells a stored false/null/0/'' from a miss
--FILE--
<?php
$values = ['false' => false, 'null' => null, 'zero' => 0, 'empty' => '', 'fzero' => 0.0,
           'szero' => '0', 'earr' => []];
foreach ($values as $k => $v) {
    shmcache_set("found:$k", $v);
}
foreach ($values as $k => $v) {
    $found = 'untouched';
    $got = shmcache_get("found:$k", $found);
    echo $k, ': ', var_export($found, true), ' ', var_export($got === $v, true), "\n";
}
$found = 'untouched';
$got = shmcache_get('found:missing', $found);
echo 'missing: ', var_export($found, true), ' ', var_export($got, true), "\n";

// $found is reset on a later miss and set on a later hit.
$found = true;
shmcache_get('found:missing', $found);
var_dump($found);
shmcache_get('found:false', $found);
var_dump($found);

// A found stored false and a miss both return false; only $found differs.
var_dump(shmcache_get('found:false') === shmcache_get('found:missing'));

// After delete the key is a miss again.
shmcache_delete('found:null');
shmcache_get('found:null', $found);
var_dump($found);

// The method behaves the same.
$c = new ShmCache('found-ns');
$c->set('f', false);
$found = null;
var_dump($c->get('f', $found), $found);
var_dump($c->get('missing', $found), $found);
// The namespace does not see the root key and vice versa.
var_dump($c->get('found:zero', $found), $found);
var_dump(shmcache_get('f', $found), $found);
?>
--EXPECT--
false: true true
null: true true
zero: true true
empty: true true
fzero: true true
szero: true true
earr: true true
missing: false false
bool(false)
bool(true)
bool(true)
bool(false)
bool(false)
bool(true)
bool(false)
bool(false)
bool(false)
bool(false)
bool(false)
bool(false)
