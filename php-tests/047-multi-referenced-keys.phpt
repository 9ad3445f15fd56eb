--TEST--
get_multi with keys held by reference: user code run by unserialize() that reassigns a waiting key frees nothing get_multi still reads
--FILE--
<?php
class Reassigns {
    public $target;
    function __wakeup() {
        // Replace the string of every key variable still waiting, so its old string is freed
        // unless get_multi holds it; same lengths, so freed memory is likely reused at once.
        foreach ($this->target as $name) {
            $GLOBALS[$name] = str_repeat('Z', 5) . mt_rand(10, 99);
        }
    }
}
for ($i = 0; $i < 12; $i++) {
    shmcache_set("key-$i", "value-$i");
}
$o = new Reassigns;
$o->target = [];
for ($i = 1; $i < 12; $i++) {
    $o->target[] = "v$i";
}
shmcache_set('key-0', [$o, 'first']);
// Each key string is built at run time (refcount 1, not interned), so only the variable holds it.
$keys = [];
for ($i = 0; $i < 12; $i++) {
    ${"v$i"} = 'key-' . str_repeat('', $i) . $i;
    $keys[] = &${"v$i"};
}
$r = shmcache_get_multi($keys);
// Every key is read as it was when get_multi was called.
var_dump(count($r));
$ok = true;
for ($i = 1; $i < 12; $i++) {
    $ok = $ok && ($r["key-$i"] ?? null) === "value-$i";
}
var_dump($ok, $r['key-0'][1], $r['key-0'][0] instanceof Reassigns);
// The variables did change (the __wakeup ran).
var_dump(str_starts_with($v5, 'ZZZZZ'));
// The same through the class
$c = new ShmCache('ns');
$c->set('a', [$o]);
$c->set('b', 'B');
$a = 'a' . mt_rand(0, 0) ; $a = substr($a, 0, 1);
$v1 = 'b' . str_repeat('', 1);
$r = $c->getMulti([&$a, &$v1]);
var_dump(array_keys($r), $r['b']);
?>
--EXPECT--
int(12)
bool(true)
string(5) "first"
bool(true)
bool(true)
array(2) {
  [0]=>
  string(1) "a"
  [1]=>
  string(1) "b"
}
string(1) "B"
