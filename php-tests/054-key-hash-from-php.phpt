--TEST--
A key's index position from PHP's own string hash (kept in the string) and from the engine's: the same for ASCII, non-ASCII and long keys, whichever path hashed the key first
--FILE--
<?php
$keys = ["plain", "m:42", "caf\xc3\xa9", "\xff\xfe\x80", str_repeat("\xe9", 17), "\xd0\xba\xd0\xbb\xd1\x8e\xd1\x87-" . str_repeat("x", 9),
    "k" . chr(200) . "x", str_repeat("ab\x90", 11), "\x7f\x80", "a\0b"];
// Array keys: PHP hashes each string itself and keeps the hash in it.
$byKey = [];
foreach ($keys as $i => $k) {
    $byKey[$k] = $i;
}
$hashedByPhp = array_keys($byKey);
// set_multi hashes in the engine; get with PHP's hashed strings must find every key.
var_dump(shmcache_set_multi(array_combine(array_map(fn($k) => "multi:$k", $hashedByPhp), array_values($byKey))));
$fromPhp = [];
foreach ($byKey as $k => $i) {
    $fromPhp["multi:$k"] = $i;
}
$bad = 0;
foreach ($fromPhp as $k => $i) {
    // $k is an array key: PHP has hashed it.
    if (shmcache_get($k) !== $i) {
        echo "multi ", bin2hex($k), " missed through PHP's hash\n";
        $bad++;
    }
}
// The other way: set with PHP's hashed strings, read through the engine's hash (get_multi, exists).
foreach ($hashedByPhp as $i => $k) {
    shmcache_set($k, $i);
}
$got = shmcache_get_multi($hashedByPhp);
foreach ($hashedByPhp as $i => $k) {
    if (($got[$k] ?? null) !== $i || !shmcache_exists($k)) {
        echo "single ", bin2hex($k), " missed through the engine's hash\n";
        $bad++;
    }
}
// Fresh strings (not yet hashed by anyone) and deletes.
foreach ($keys as $i => $k) {
    $fresh = implode('', str_split($k));
    if (shmcache_get($fresh) !== $i || !shmcache_delete($fresh) || shmcache_exists($k)) {
        echo "fresh ", bin2hex($k), " wrong\n";
        $bad++;
    }
}
echo "bad: $bad\n";
?>
--EXPECT--
array(0) {
}
bad: 0
