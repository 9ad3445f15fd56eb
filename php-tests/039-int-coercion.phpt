--TEST--
int parameters (ttl, step, old, new) accept what PHP's own int parameters accept: numeric strings, integral floats, bools
--FILE--
<?php
require __DIR__ . '/inc/common.inc';
// What PHP's own functions do with the same arguments (non-strict mode), for reference:
var_dump(str_repeat('a', '2'), str_repeat('a', 2.0), str_repeat('a', true), str_repeat('a', ' 3'), str_repeat('a', '1e1'));

shm_try(fn() => shmcache_set('k', 1, '60'));
shm_try(fn() => shmcache_get('k'));
shm_try(fn() => shmcache_incr('k', '2'));       // 3
shm_try(fn() => shmcache_incr('k', 2.0));       // 5
shm_try(fn() => shmcache_incr('k', true));      // 6
shm_try(fn() => shmcache_decr('k', ' 3'));      // 3
shm_try(fn() => shmcache_incr('k', '1e1'));     // 13
shm_try(fn() => shmcache_cas('k', '13', '20'));
shm_try(fn() => shmcache_cas('k', 20.0, 21.0));
shm_try(fn() => shmcache_get('k'));
shm_try(fn() => shmcache_add('a', 1, '60'));
shm_try(fn() => shmcache_replace('a', 2, 60.0));
shm_try(fn() => shmcache_set_multi(['m' => 1], '60'));
shm_try(fn() => shmcache_get_multi(['a', 'm']));
$c = new ShmCache('coerce');
shm_try(fn() => $c->set('k', 1, '60'));
shm_try(fn() => $c->incr('k', '4'));
shm_try(fn() => $c->decr('k', 2.0));
shm_try(fn() => $c->cas('k', '3', '7'));
shm_try(fn() => $c->get('k'));
// A numeric string that is negative is a negative TTL: nothing visible.
shm_try(fn() => shmcache_set('neg', 1, '-1'));
shm_try(fn() => shmcache_exists('neg'));
// Still refused: non-numeric strings and non-integral floats are not silently truncated to a TTL
shm_try(fn() => shmcache_set('k', 1, 'soon') && false);
shm_try(fn() => shmcache_set('k', 1, []) && false);
?>
--EXPECTF--
string(2) "aa"
string(2) "aa"
string(1) "a"
string(3) "aaa"
string(10) "aaaaaaaaaa"
ok: true
ok: 1
ok: 3
ok: 5
ok: 6
ok: 3
ok: 13
ok: true
ok: true
ok: 21
ok: true
ok: true
ok: array (
)
ok: array (
  'a' => 2,
  'm' => 1,
)
ok: true
ok: 5
ok: 3
ok: true
ok: 7
ok: true
ok: false
TypeError: %s
TypeError: %s
