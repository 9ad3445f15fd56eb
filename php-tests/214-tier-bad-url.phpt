--TEST--
Tiered mode with an address that is neither unix:// nor tcp://: a warning naming it, and the cache is not used
--INI--
shmcache.redis=redis://127.0.0.1:6379
--FILE--
<?php
var_dump(shmcache_set('k', 'v'));
var_dump(shmcache_get('k'));
var_dump(shmcache_info()['tier_error']);
?>
--EXPECTF--
Warning: shmcache_set(): shmcache.redis: redis://127.0.0.1:6379 must start with unix:// or tcp:// in %s on line %d
bool(false)
bool(false)
string(72) "shmcache.redis: redis://127.0.0.1:6379 must start with unix:// or tcp://"
