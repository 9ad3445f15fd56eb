--TEST--
&$found bound to a typed property: the property's type is honoured (TypeError, as PHP's own functions throw), through every call path
--FILE--
<?php
class Holder { public array $arr = ['kept']; public ?bool $flag = null; public int $n = 7; public string $s = 'x'; }
$h = new Holder;
shmcache_set('k', 1);
$cache = new ShmCache;
$calls = [
    'function'             => fn() => shmcache_get('k', $h->arr),
    'method'               => fn() => $cache->get('k', $h->arr),
    'call_user_func_array' => fn() => call_user_func_array('shmcache_get', ['k', &$h->arr]),
    'reflection'           => fn() => (new ReflectionMethod('ShmCache', 'get'))->invokeArgs($cache, ['k', &$h->arr]),
    'miss'                 => fn() => shmcache_get('missing', $h->arr),
];
foreach ($calls as $name => $call) {
    try {
        $r = $call();
        echo "$name: no TypeError, returned ", var_export($r, true), "\n";
    } catch (TypeError $e) {
        echo "$name: ", $e->getMessage(), "\n";
    }
}
// The property kept its value through every refused assignment.
var_dump($h->arr);
// Types that accept a bool: ?bool takes it, int and string coerce it (non-strict mode).
var_dump(shmcache_get('k', $h->flag), $h->flag);
var_dump(shmcache_get('missing', $h->n), $h->n);
var_dump(shmcache_get('k', $h->s), $h->s);
// Plain variables and array elements bound to references still get a plain bool.
$plain = 'before';
var_dump(shmcache_get('missing', $plain), $plain);
$a = ['x' => 5];
$alias = &$a['x'];
shmcache_get('k', $a['x']);
var_dump($alias);
?>
--EXPECTF--
function: Cannot assign %s to reference held by property Holder::$arr of type array
method: Cannot assign %s to reference held by property Holder::$arr of type array
call_user_func_array: Cannot assign %s to reference held by property Holder::$arr of type array
reflection: Cannot assign %s to reference held by property Holder::$arr of type array
miss: Cannot assign %s to reference held by property Holder::$arr of type array
array(1) {
  [0]=>
  string(4) "kept"
}
int(1)
bool(true)
bool(false)
int(0)
int(1)
string(1) "1"
bool(false)
bool(false)
bool(true)
