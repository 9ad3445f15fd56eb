--TEST--
Wrong types for ttl/step/old/new/keys/values/namespace throw TypeError and store nothing
--FILE--
<?php
function cls(callable $fn): void {
    try { $fn(); echo "no exception\n"; } catch (Throwable $e) { echo get_class($e), "\n"; }
}
cls(fn() => shmcache_set('t:k', 1, 'soon'));
cls(fn() => shmcache_set('t:k', 1, []));
cls(fn() => shmcache_add('t:k', 1, new stdClass));
cls(fn() => shmcache_replace('t:k', 1, 'x'));
cls(fn() => shmcache_set_multi(['t:k' => 1], 'x'));
var_dump(shmcache_exists('t:k'));
shmcache_set('t:n', 5);
cls(fn() => shmcache_incr('t:n', 'x'));
cls(fn() => shmcache_decr('t:n', []));
cls(fn() => shmcache_cas('t:n', 'a', 1));
cls(fn() => shmcache_cas('t:n', 5, 'b'));
var_dump(shmcache_get('t:n'));
cls(fn() => shmcache_get_multi('t:n'));
cls(fn() => shmcache_set_multi('t:n'));
cls(fn() => new ShmCache([]));
cls(fn() => new ShmCache(new stdClass));
$c = new ShmCache('types');
cls(fn() => $c->set('k', 1, 'x'));
cls(fn() => $c->incr('k', 'x'));
cls(fn() => $c->getMulti('k'));
var_dump($c->exists('k'));
?>
--EXPECT--
TypeError
TypeError
TypeError
TypeError
TypeError
bool(false)
TypeError
TypeError
TypeError
TypeError
int(5)
TypeError
TypeError
TypeError
TypeError
TypeError
TypeError
TypeError
bool(false)
