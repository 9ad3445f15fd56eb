--TEST--
A full key table and a wrapping value ring evict old entries but never return wrong data
--INI--
shmcache.keys_memory_size=1K
shmcache.values_memory_size=64K
shmcache.compress_threshold=0
--FILE--
<?php
$info0 = shmcache_info();
$n = 3000;
$value = fn(int $i) => str_repeat(chr(65 + $i % 26), 100 + $i % 400) . "#$i";
$ok = true;
for ($i = 0; $i < $n; $i++) {
    $ok = shmcache_set("ev:$i", $value($i)) && $ok;
}
var_dump($ok);
$hits = 0;
$wrong = 0;
for ($i = 0; $i < $n; $i++) {
    $v = shmcache_get("ev:$i", $found);
    if ($found) {
        $hits++;
        if ($v !== $value($i)) $wrong++;
    } elseif ($v !== false) {
        $wrong++;
    }
}
echo "wrong values: $wrong\n";
var_dump($hits > 0, $hits < $n);
// The most recently written key is still there.
var_dump(shmcache_get('ev:' . ($n - 1)) === $value($n - 1));
$info = shmcache_info();
var_dump($info['sets'] - $info0['sets']);
var_dump($info['recycles'] > 0, $info['kicks'] > 0);
var_dump($info['slots_used'] <= $info['slots_total'], $info['slots_total'] <= 128);

// Mixed types under pressure, with namespaces and integers
$ns = new ShmCache('ev');
for ($i = 0; $i < 500; $i++) {
    $ns->set("n:$i", ['i' => $i, 's' => str_repeat('z', $i)]);
    shmcache_set("int:$i", $i);
}
$wrong = 0;
for ($i = 0; $i < 500; $i++) {
    $v = $ns->get("n:$i", $found);
    if ($found && $v !== ['i' => $i, 's' => str_repeat('z', $i)]) $wrong++;
    $v = shmcache_get("int:$i", $found);
    if ($found && $v !== $i) $wrong++;
    $r = shmcache_incr("int:$i");
    if ($r !== false && $r !== $i + 1) $wrong++;
}
echo "wrong values: $wrong\n";
// A value larger than a quarter of the ring is refused, smaller ones still fit
set_error_handler(function ($no, $msg) { echo "warning: ", preg_replace('/\d+/', 'N', $msg), "\n"; return true; });
var_dump(shmcache_set('ev:huge', random_bytes(20000)));
var_dump(shmcache_set('ev:fits', $s = random_bytes(10000)), shmcache_get('ev:fits') === $s);
?>
--EXPECT--
bool(true)
wrong values: 0
bool(true)
bool(true)
bool(true)
int(3000)
bool(true)
bool(true)
bool(true)
bool(true)
wrong values: 0
warning: shmcache_set(): value of N bytes is too large; the largest storable value is N bytes (raise shmcache.values_memory_size)
bool(false)
bool(true)
bool(true)
