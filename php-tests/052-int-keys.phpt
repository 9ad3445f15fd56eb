--TEST--
Integer keys are the key of their decimal string (negative and extreme values too), for every operation and in the multi calls
--FILE--
<?php
$ints = [0, 7, -7, 10, -10, 4242, 1234567890, -987654321, PHP_INT_MAX, PHP_INT_MIN];
$bad = [];
foreach ($ints as $n) {
    $s = (string)$n;
    shmcache_set($n, "v$s");
    if (shmcache_get($s) !== "v$s") $bad[] = "set($s) / get string";
    shmcache_set($s, "w$s");
    if (shmcache_get($n) !== "w$s") $bad[] = "set string / get($s)";
    if (!shmcache_exists($n)) $bad[] = "exists($s)";
    if (!shmcache_delete($n) || shmcache_exists($s)) $bad[] = "delete($s)";
    if (!shmcache_add($n, 5) || shmcache_incr($s, 2) !== 7 || shmcache_decr($n) !== 6) $bad[] = "add/incr/decr($s)";
    if (!shmcache_cas($n, 6, 9) || shmcache_get($s) !== 9) $bad[] = "cas($s)";
}
$multi = [];
foreach ($ints as $n) $multi[$n] = "m$n";
var_dump(shmcache_set_multi($multi));
$got = shmcache_get_multi(array_map('strval', $ints));
foreach ($ints as $n) if (($got[$n] ?? null) !== "m$n") $bad[] = "multi($n)";
echo $bad ? implode("\n", $bad) : 'all agree', "\n";
?>
--EXPECT--
array(0) {
}
all agree
