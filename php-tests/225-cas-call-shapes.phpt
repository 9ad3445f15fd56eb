--TEST--
shmcache_cas and ShmCache::cas answer every call shape as the generated handler does (the hand-written handler serves a call of three arguments with non-null ints and hands any other to the generated one)
--FILE--
<?php
shmcache_set('k', 5); $c = new ShmCache('ns'); $c->set('k', 5);
foreach ([fn() => shmcache_cas('k', null, 1), fn() => shmcache_cas('k', 5, 6, 7), fn() => shmcache_cas('k', 6, 7), fn() => shmcache_cas('k', 6, 7),
          fn() => shmcache_cas(12, 1, 2), fn() => $c->cas('k', 5, 9), fn() => $c->cas('k', null, 9), fn() => shmcache_cas('', 1, 2), fn() => shmcache_get('k'), fn() => $c->get('k')] as $i => $f) {
  try { var_dump($f()); } catch (Throwable $e) { echo get_class($e), ': ', $e->getMessage(), "\n"; }
}
--EXPECT--
TypeError: shmcache_cas(): Argument #2 ($old) must be of type int, null given
ArgumentCountError: shmcache_cas() expects exactly 3 arguments, 4 given
bool(false)
bool(false)
bool(false)
bool(true)
TypeError: ShmCache::cas(): Argument #2 ($old) must be of type int, null given
ValueError: shmcache_cas(): Argument #1 ($key) cannot be empty
int(5)
int(9)
