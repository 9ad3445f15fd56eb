--TEST--
get returns the same value however it is called (direct, by name, callable strings and arrays, first-class callables, reflection, array_map), with and without $found
--FILE--
<?php
shmcache_set('s', 'alpha');
shmcache_set('i', 5);
shmcache_set('f', 1.5);
shmcache_set('n', null);
shmcache_set('a', ['x' => 'yy', 'list' => [1, 'two']]);
$c = new ShmCache('paths');
$c->set('s', 'ns-alpha');
$expected = ['s' => 'alpha', 'i' => 5, 'f' => 1.5, 'n' => null, 'a' => ['x' => 'yy', 'list' => [1, 'two']], 'missing' => false];
$ok = true;
foreach ($expected as $k => $want) {
    $name = 'shmcache_get';
    $first = shmcache_get(...);
    $results = [
        'direct' => shmcache_get($k),
        'by name' => $name($k),
        'call_user_func' => call_user_func('shmcache_get', $k),
        'call_user_func_array' => call_user_func_array('shmcache_get', [$k]),
        'first-class' => $first($k),
        'reflection' => (new ReflectionFunction('shmcache_get'))->invoke($k),
        'array_map' => array_map('shmcache_get', [$k])[0],
    ];
    foreach ($results as $how => $got) {
        if ($got !== $want) {
            $ok = false;
            echo "$k via $how: ", var_export($got, true), "\n";
        }
    }
    $v = shmcache_get($k, $found);
    if ($found !== ($k !== 'missing') || $v !== $want) {
        $ok = false;
        echo "$k with \$found: ", var_export([$v, $found], true), "\n";
    }
}
var_dump($ok);
// Methods
var_dump(call_user_func([$c, 'get'], 's'), (new ReflectionMethod($c, 'get'))->invoke($c, 's'), $c->get('s', $found), $found);
var_dump(array_map([$c, 'get'], ['s', 'nope']));
// A value read through every path is an independent copy
$a1 = call_user_func('shmcache_get', 'a');
$a1['x'] .= '!';
var_dump(shmcache_get('a')['x']);
?>
--EXPECT--
bool(true)
string(8) "ns-alpha"
string(8) "ns-alpha"
string(8) "ns-alpha"
bool(true)
array(2) {
  [0]=>
  string(8) "ns-alpha"
  [1]=>
  bool(false)
}
string(2) "yy"
