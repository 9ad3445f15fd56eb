--TEST--
A resource hidden inside a value that needs serialize() (object property, array with objects or references) is refused too
--FILE--
<?php
function check(string $label, callable $store, string $key): void {
    shmcache_set($key, 'previous');
    try {
        $r = $store();
        echo "$label: no exception, returned ", var_export($r, true), "\n";
    } catch (TypeError $e) {
        echo "$label: TypeError\n";
    } catch (Throwable $e) {
        echo "$label: ", get_class($e), "\n";
    }
    $v = shmcache_get($key, $found);
    echo "  previous value ", ($found && $v === 'previous') ? 'survives' : 'LOST: ' . var_export($v, true), "\n";
}

$fh = fopen('php://memory', 'r');

$o = new stdClass;
$o->r = $fh;
check('resource in object property', fn() => shmcache_set('rs:obj', $o), 'rs:obj');
check('resource next to an object in an array', fn() => shmcache_set('rs:arr-obj', [new stdClass, $fh]), 'rs:arr-obj');
$x = 1;
check('resource next to a reference in an array', fn() => shmcache_set('rs:arr-ref', [&$x, $fh]), 'rs:arr-ref');
$deep = ['a' => ['b' => ['o' => new ArrayObject([1]), 'r' => [$fh]]]];
check('resource deep in an array with objects', fn() => shmcache_set('rs:deep', $deep), 'rs:deep');
$c = new ShmCache('rs');
$c->set('k', 'previous');
try { $c->set('k', $o); echo "method: no exception\n"; } catch (TypeError $e) { echo "method: TypeError\n"; }
var_dump($c->get('k'));
?>
--EXPECT--
resource in object property: TypeError
  previous value survives
resource next to an object in an array: TypeError
  previous value survives
resource next to a reference in an array: TypeError
  previous value survives
resource deep in an array with objects: TypeError
  previous value survives
method: TypeError
string(8) "previous"
