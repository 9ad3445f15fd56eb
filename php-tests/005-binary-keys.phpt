--TEST--
Binary keys: NUL bytes and non-UTF-8 bytes round-trip and are distinct from their prefixes
--FILE--
<?php
$keys = [
    "a",
    "a\0",
    "a\0b",
    "a\0c",
    "\0",
    "\0\0",
    "\xff",
    "\xff\xfe",
    "\xc3\x28",            // invalid UTF-8 sequence
    "\xc3\xa9",            // UTF-8 for e-acute
    "e\xcc\x81",           // e + combining acute: different bytes, same glyph
    "A",                   // case matters
    "a ",                  // trailing space matters
    " a",
];
foreach ($keys as $i => $k) {
    var_dump(shmcache_set($k, $i));
}
$ok = 0;
foreach ($keys as $i => $k) {
    $v = shmcache_get($k, $found);
    if ($found && $v === $i) {
        $ok++;
    } else {
        echo "key ", bin2hex($k), " gave ", var_export($v, true), "\n";
    }
}
echo "$ok of ", count($keys), " keys read back their own value\n";

// Prefixes and extensions that were never stored are misses.
foreach (["a\0b\0", "\0\0\0", "\xff\xfe\xfd", "b", "a\0\0"] as $k) {
    var_dump(shmcache_exists($k));
}

// get_multi returns binary keys unchanged.
$got = shmcache_get_multi(["a\0b", "\xff", "missing\0"]);
foreach ($got as $k => $v) {
    echo bin2hex($k), " => $v\n";
}

// Every single byte value is a distinct key.
for ($b = 0; $b < 256; $b++) {
    shmcache_set("byte:" . chr($b), $b);
}
$bad = 0;
for ($b = 0; $b < 256; $b++) {
    if (shmcache_get("byte:" . chr($b)) !== $b) $bad++;
}
echo "bad single-byte keys: $bad\n";

// Deleting the NUL-extended key leaves its prefix alone.
var_dump(shmcache_delete("a\0"));
var_dump(shmcache_get("a"), shmcache_get("a\0b"), shmcache_exists("a\0"));

// Binary keys in namespaces, and binary namespace names.
$n1 = new ShmCache("ns\0one");
$n2 = new ShmCache("ns\0two");
$n3 = new ShmCache("ns");
$n1->set("k\0", 'one');
$n2->set("k\0", 'two');
var_dump($n1->get("k\0"), $n2->get("k\0"), $n3->get("k\0"), shmcache_get("k\0"));
var_dump(bin2hex($n1->getNamespace()));
// A namespace + key must not collide with a root key made of the same bytes.
var_dump(shmcache_get("ns\0onek\0"), shmcache_get("ns\0one" . "k\0"));
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
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
14 of 14 keys read back their own value
bool(false)
bool(false)
bool(false)
bool(false)
bool(false)
610062 => 2
ff => 6
bad single-byte keys: 0
bool(true)
int(0)
int(2)
bool(false)
string(3) "one"
string(3) "two"
bool(false)
bool(false)
string(12) "6e73006f6e65"
bool(false)
bool(false)
