--TEST--
Tiered mode with Redis unreachable: gets miss, writes fail, one warning per request, bounded time, counters
--INI--
shmcache.redis=unix:///nonexistent/shmcache-test.sock
shmcache.redis_connect_timeout=20
--FILE--
<?php
$t = microtime(true);
var_dump(shmcache_set('k', 'v'));
var_dump(shmcache_get('k', $found), $found);
var_dump(shmcache_add('k', 1), shmcache_incr('n'), shmcache_delete('k'), shmcache_flush());
var_dump((new ShmCache('ns'))->generation());
var_dump(microtime(true) - $t < 1.0);
$info = shmcache_info();
var_dump($info['tier_redis'], $info['tier_untrusted_requests'], $info['tier_redis_errors'] >= 1, $info['tier_near_hits']);
?>
--EXPECTF--
Warning: shmcache_set(): shmcache: Redis at unix:///nonexistent/shmcache-test.sock failed (%s); this request does not use the near cache in %s on line %d
bool(false)
bool(false)
bool(false)
bool(false)
bool(false)
bool(false)
bool(false)
int(0)
bool(true)
string(38) "unix:///nonexistent/shmcache-test.sock"
int(1)
bool(true)
int(0)
