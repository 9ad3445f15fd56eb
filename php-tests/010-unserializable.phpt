--TEST--
Closures, resources and other unserialisable values throw and store nothing; the previous value survives
--FILE--
<?php
require __DIR__ . '/inc/common.inc';

function check(string $label, callable $store, string $key): void {
    shmcache_set($key, 'previous');
    try {
        $r = $store();
        echo "$label: no exception, returned ", var_export($r, true), "\n";
    } catch (Throwable $e) {
        echo "$label: ", get_class($e), ': ', $e->getMessage(), "\n";
    }
    $v = shmcache_get($key, $found);
    echo "  previous value ", ($found && $v === 'previous') ? 'survives' : 'LOST: ' . var_export($v, true), "\n";
}

$fh = fopen('php://memory', 'r');
$closure = function () { return 1; };

echo "-- closures\n";
check('closure', fn() => shmcache_set('u:closure', $closure), 'u:closure');
check('arrow fn', fn() => shmcache_set('u:arrow', fn() => 1), 'u:arrow');
check('closure in array', fn() => shmcache_set('u:cl-arr', ['a' => 1, 'f' => $closure]), 'u:cl-arr');
check('closure in nested array', fn() => shmcache_set('u:cl-nest', [1, [2, [3, $closure]]]), 'u:cl-nest');
$holder = new stdClass;
$holder->f = $closure;
check('closure in object', fn() => shmcache_set('u:cl-obj', $holder), 'u:cl-obj');
check('anonymous class', fn() => shmcache_set('u:anon', new class { public $a = 1; }), 'u:anon');
$gen = (function () { yield 1; })();
check('generator', fn() => shmcache_set('u:gen', $gen), 'u:gen');
check('add closure', fn() => shmcache_add('u:add', $closure), 'u:add');
check('replace closure', fn() => shmcache_replace('u:repl', $closure), 'u:repl');

echo "-- resources\n";
check('resource', fn() => shmcache_set('u:res', $fh), 'u:res');
check('resource in array', fn() => shmcache_set('u:res-arr', ['a' => 1, 'r' => $fh]), 'u:res-arr');
check('resource in nested array', fn() => shmcache_set('u:res-nest', [[[$fh]]]), 'u:res-nest');
check('closed resource', function () { $t = fopen('php://memory', 'r'); fclose($t); return shmcache_set('u:res-closed', $t); }, 'u:res-closed');

echo "-- class API\n";
$c = new ShmCache('unser');
$c->set('k', 'previous');
shm_try(fn() => $c->set('k', $closure));
shm_try(fn() => $c->set('k', $fh));
shm_try(fn() => $c->add('new', $fh));
var_dump($c->get('k'), $c->exists('new'));

echo "-- set_multi stores nothing when one value is bad\n";
shmcache_set('u:m1', 'previous');
shm_try(fn() => shmcache_set_multi(['u:m1' => 'new', 'u:m2' => 'new', 'u:m3' => $closure]));
var_dump(shmcache_get('u:m1'), shmcache_exists('u:m2'));
shm_try(fn() => shmcache_set_multi(['u:m1' => 'new', 'u:m2' => 'new', 'u:m3' => $fh]));
var_dump(shmcache_get('u:m1'), shmcache_exists('u:m2'));
shm_try(fn() => $c->setMulti(['a' => 1, 'b' => [$fh]]));
var_dump($c->exists('a'));

echo "-- the sets counter did not move for refused values\n";
$before = shmcache_info()['sets'];
try { shmcache_set('u:x', $closure); } catch (Throwable $e) {}
try { shmcache_set('u:x', $fh); } catch (Throwable $e) {}
var_dump(shmcache_info()['sets'] - $before, shmcache_exists('u:x'));
?>
--EXPECT--
-- closures
closure: Exception: Serialization of 'Closure' is not allowed
  previous value survives
arrow fn: Exception: Serialization of 'Closure' is not allowed
  previous value survives
closure in array: Exception: Serialization of 'Closure' is not allowed
  previous value survives
closure in nested array: Exception: Serialization of 'Closure' is not allowed
  previous value survives
closure in object: Exception: Serialization of 'Closure' is not allowed
  previous value survives
anonymous class: Exception: Serialization of 'class@anonymous' is not allowed
  previous value survives
generator: Exception: Serialization of 'Generator' is not allowed
  previous value survives
add closure: Exception: Serialization of 'Closure' is not allowed
  previous value survives
replace closure: Exception: Serialization of 'Closure' is not allowed
  previous value survives
-- resources
resource: TypeError: shmcache_set(): Argument #2 ($value) cannot be a resource
  previous value survives
resource in array: TypeError: shmcache_set(): Argument #2 ($value) cannot contain a resource
  previous value survives
resource in nested array: TypeError: shmcache_set(): Argument #2 ($value) cannot contain a resource
  previous value survives
closed resource: TypeError: shmcache_set(): Argument #2 ($value) cannot be a resource
  previous value survives
-- class API
Exception: Serialization of 'Closure' is not allowed
TypeError: ShmCache::set(): Argument #2 ($value) cannot be a resource
TypeError: ShmCache::add(): Argument #2 ($value) cannot be a resource
string(8) "previous"
bool(false)
-- set_multi stores nothing when one value is bad
Exception: Serialization of 'Closure' is not allowed
string(8) "previous"
bool(false)
TypeError: shmcache_set_multi(): Argument #1 ($values) element cannot be a resource
string(8) "previous"
bool(false)
TypeError: ShmCache::setMulti(): Argument #1 ($values) element cannot contain a resource
bool(false)
-- the sets counter did not move for refused values
int(0)
bool(false)
