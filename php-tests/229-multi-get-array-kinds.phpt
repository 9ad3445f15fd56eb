--TEST--
get_multi reads the keys of any kind of request array the same way: a list, a list with holes, a map, a map with holes, and keys at the length limits (1 and 4096 bytes; 4097 and empty are refused)
--FILE--
<?php
$long = str_repeat('L', 4096);
foreach (['a', 'b', 'c', 'd', $long] as $k) {
    shmcache_set($k, "v:" . strlen($k) . ":" . $k[0]);
}
$list = ['a', 'b', 'c', 'd'];
$holes = ['a', 'x', 'b', 'y', 'c'];
unset($holes[1], $holes[3]);
$map = ['k1' => 'a', 'k2' => 'nope', 'k3' => 'd'];
$mapHoles = ['k1' => 'a', 'k2' => 'b', 'k3' => 'c', 'k4' => 'd'];
unset($mapHoles['k2']);
$mixed = [5 => 'd', 'z' => 'c', 0 => $long];
foreach ([$list, $holes, $map, $mapHoles, $mixed] as $keys) {
    $r = shmcache_get_multi($keys);
    echo implode(',', array_map(fn ($k) => strlen($k) > 8 ? 'long' : $k, array_keys($r))), ' | ';
    echo implode(',', array_map(fn ($v) => strlen($v) > 12 ? substr($v, 0, 8) : $v, $r)), "\n";
}
foreach ([[str_repeat('L', 4097)], ['a', '']] as $bad) {
    try {
        shmcache_get_multi($bad);
    } catch (ValueError $e) {
        echo $e->getMessage(), "\n";
    }
}
?>
--EXPECT--
a,b,c,d | v:1:a,v:1:b,v:1:c,v:1:d
a,b,c | v:1:a,v:1:b,v:1:c
a,d | v:1:a,v:1:d
a,c,d | v:1:a,v:1:c,v:1:d
d,c,long | v:1:d,v:1:c,v:4096:L
shmcache_get_multi(): Argument #1 ($keys) element must be at most 4096 bytes long, 4097 given
shmcache_get_multi(): Argument #1 ($keys) element cannot be empty
