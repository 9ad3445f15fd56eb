--TEST--
Scalar values round-trip exactly: null, bools, ints incl. extremes, floats incl. INF/NAN/-0.0, strings
--INI--
shmcache.compress_threshold=4096
--FILE--
<?php
$values = [
    'null' => null,
    'true' => true,
    'false' => false,
    'int0' => 0,
    'int1' => 1,
    'intneg' => -1,
    'intmax' => PHP_INT_MAX,
    'intmin' => PHP_INT_MIN,
    'float' => 0.1 + 0.2,
    'floatneg' => -1.5e-300,
    'floatmax' => PHP_FLOAT_MAX,
    'floatmin' => PHP_FLOAT_MIN,
    'floateps' => PHP_FLOAT_EPSILON,
    'inf' => INF,
    'neginf' => -INF,
    'zero' => 0.0,
    'one' => 1.0,
    'empty' => '',
    'szero' => '0',
    'snum' => '123',
    'sfloat' => '1.5',
    'utf8' => "h\u{e9}llo w\u{f6}rld \u{1F600}",
];
foreach ($values as $k => $v) {
    shmcache_set("scalar:$k", $v);
}
foreach ($values as $k => $v) {
    $got = shmcache_get("scalar:$k", $found);
    printf("%-9s %s %s\n", $k, $found ? 'found' : 'MISS', $got === $v ? 'identical' : 'DIFFERENT: ' . var_export($got, true));
}
// Types are kept: '123' stays a string, 1.0 stays a float, 0 stays an int.
var_dump(shmcache_get('scalar:snum'), shmcache_get('scalar:one'), shmcache_get('scalar:int0'));
var_dump(shmcache_get('scalar:intmax'), shmcache_get('scalar:intmin'));

// NAN is not === itself; -0.0 === 0.0: check them by bits.
shmcache_set('scalar:nan', NAN);
shmcache_set('scalar:negzero', -0.0);
$nan = shmcache_get('scalar:nan');
$nz = shmcache_get('scalar:negzero');
var_dump(is_float($nan), is_nan($nan));
var_dump(is_float($nz), bin2hex(pack('E', $nz)), fdiv(1, $nz));
var_dump(bin2hex(pack('E', shmcache_get('scalar:zero'))));

// Binary strings: every byte value, NULs, invalid UTF-8.
$all = '';
for ($i = 0; $i < 256; $i++) $all .= chr($i);
shmcache_set('scalar:allbytes', $all);
var_dump(shmcache_get('scalar:allbytes') === $all);
shmcache_set('scalar:nuls', "\0\0\0");
var_dump(bin2hex(shmcache_get('scalar:nuls')));
shmcache_set('scalar:badutf8', "\xc3\x28\xa0\xa1\xff");
var_dump(bin2hex(shmcache_get('scalar:badutf8')));

// Large strings: 1 MB compressible, 1 MB random (incompressible), 100 KB binary pattern.
$big = str_repeat("The quick brown fox jumps over the lazy dog. ", 23301);
$big .= str_repeat('x', 1048576 - strlen($big));
var_dump(strlen($big));
var_dump(shmcache_set('scalar:big', $big));
$got = shmcache_get('scalar:big');
var_dump(strlen($got), md5($got) === md5($big));
$rnd = random_bytes(1048576);
var_dump(shmcache_set('scalar:random', $rnd));
var_dump(shmcache_get('scalar:random') === $rnd);
$pat = str_repeat("\0\xff\x01\xfe", 25600);
var_dump(shmcache_set('scalar:pattern', $pat));
var_dump(shmcache_get('scalar:pattern') === $pat);
// Just below, at and above the compression threshold.
foreach ([4095, 4096, 4097] as $n) {
    $s = str_repeat('z', $n - 1) . "\0";
    shmcache_set("scalar:len$n", $s);
    var_dump(shmcache_get("scalar:len$n") === $s);
}
?>
--EXPECT--
null      found identical
true      found identical
false     found identical
int0      found identical
int1      found identical
intneg    found identical
intmax    found identical
intmin    found identical
float     found identical
floatneg  found identical
floatmax  found identical
floatmin  found identical
floateps  found identical
inf       found identical
neginf    found identical
zero      found identical
one       found identical
empty     found identical
szero     found identical
snum      found identical
sfloat    found identical
utf8      found identical
string(3) "123"
float(1)
int(0)
int(9223372036854775807)
int(-9223372036854775808)
bool(true)
bool(true)
bool(true)
string(16) "8000000000000000"
float(-INF)
string(16) "0000000000000000"
bool(true)
string(6) "000000"
string(10) "c328a0a1ff"
int(1048576)
bool(true)
int(1048576)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
