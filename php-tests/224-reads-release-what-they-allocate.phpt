--TEST--
Reads give back all the request memory they take: every kind of value, hits and misses, single and batched
--FILE--
<?php
// Each read allocates the value's zend_string (or the decoded array/object) and drops its read
// buffer afterwards; a leak of even one small string per read shows as growth here.
class Point { public $x = 1; public $y = [2, 3]; }
$values = [
    's' => 'hello world, this is a small cached string',
    'tiny' => 'abc',
    'long' => str_repeat('0123456789', 300),
    'i' => 123456789,
    'f' => 2.5,
    'b' => true,
    'n' => null,
    'a' => ['ID' => 42, 'title' => 'Hello', 'tags' => [1, 2, 3]],
    'o' => new Point(),
];
foreach ($values as $k => $v) {
    shmcache_set("mem:$k", $v);
}
$keys = array_map(fn($k) => "mem:$k", array_keys($values));
$keys[] = 'mem:absent';
$ns = new ShmCache('mem');
$ns->set('s', $values['s']);
$round = function () use ($keys, $ns) {
    foreach ($keys as $k) {
        $x = shmcache_get($k);
        $found = null;
        $x = shmcache_get($k, $found);
    }
    $x = shmcache_get_multi($keys);
    $x = $ns->get('s');
    $x = $ns->get('absent');
};
for ($i = 0; $i < 50; $i++) {
    $round();
}
$before = memory_get_usage();
for ($i = 0; $i < 2000; $i++) {
    $round();
}
$grown = memory_get_usage() - $before;
echo $grown <= 0 ? "no growth\n" : "grew by $grown bytes\n";
// The values read are still right.
var_dump(shmcache_get('mem:s') === $values['s'], shmcache_get('mem:a') === $values['a'], shmcache_get('mem:o') == $values['o']);
?>
--EXPECT--
no growth
bool(true)
bool(true)
bool(true)
