--TEST--
Invalid arguments fail like PHP 8's own functions: TypeError "f(): Argument #N ($name) must be of type T, U given"
--FILE--
<?php
require __DIR__ . '/inc/common.inc';
echo "-- wrong types for int parameters\n";
shm_try(fn() => shmcache_set('k', 1, 'soon'));
shm_try(fn() => shmcache_add('k', 1, []));
shm_try(fn() => shmcache_replace('k', 1, new stdClass));
shm_try(fn() => shmcache_set_multi(['m' => 1], 'x'));
shm_try(fn() => shmcache_incr('k', 'x'));
shm_try(fn() => shmcache_decr('k', []));
shm_try(fn() => shmcache_cas('k', 'a', 1));
shm_try(fn() => shmcache_cas('k', 1, 'b'));
shm_try(fn() => (new ShmCache('args'))->incr('k', 'x'));

echo "-- wrong types for array parameters\n";
shm_try(fn() => shmcache_get_multi('k'));
shm_try(fn() => shmcache_set_multi('k'));

echo "-- namespace\n";
shm_try(fn() => new ShmCache([]));

echo "-- an object as a key\n";
shm_try(fn() => shmcache_get(new stdClass));
shm_try(fn() => shmcache_get_multi([new ArrayObject()]));

echo "-- argument count\n";
shm_try(fn() => shmcache_get());
shm_try(fn() => shmcache_set('k'));
shm_try(fn() => shmcache_cas('k', 1));
shm_try(fn() => shmcache_flush(1));
?>
--EXPECT--
-- wrong types for int parameters
TypeError: shmcache_set(): Argument #3 ($ttl) must be of type int, string given
TypeError: shmcache_add(): Argument #3 ($ttl) must be of type int, array given
TypeError: shmcache_replace(): Argument #3 ($ttl) must be of type int, stdClass given
TypeError: shmcache_set_multi(): Argument #2 ($ttl) must be of type int, string given
TypeError: shmcache_incr(): Argument #2 ($step) must be of type int, string given
TypeError: shmcache_decr(): Argument #2 ($step) must be of type int, array given
TypeError: shmcache_cas(): Argument #2 ($old) must be of type int, string given
TypeError: shmcache_cas(): Argument #3 ($new) must be of type int, string given
TypeError: ShmCache::incr(): Argument #2 ($step) must be of type int, string given
-- wrong types for array parameters
TypeError: shmcache_get_multi(): Argument #1 ($keys) must be of type array, string given
TypeError: shmcache_set_multi(): Argument #1 ($values) must be of type array, string given
-- namespace
TypeError: ShmCache::__construct(): Argument #1 ($namespace) must be of type string, array given
-- an object as a key
TypeError: shmcache_get(): Argument #1 ($key) must be of type string, stdClass given
TypeError: shmcache_get_multi(): Argument #1 ($keys) element must be of type string, ArrayObject given
-- argument count
ArgumentCountError: shmcache_get() expects at least 1 argument, 0 given
ArgumentCountError: shmcache_set() expects at least 2 arguments, 1 given
ArgumentCountError: shmcache_cas() expects exactly 3 arguments, 2 given
ArgumentCountError: shmcache_flush() expects exactly 0 arguments, 1 given
