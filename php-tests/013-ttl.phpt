--TEST--
TTL: entries expire after their TTL (then add succeeds), ttl=0 never expires, a negative TTL stores nothing visible
--FILE--
<?php
$c = new ShmCache('ttl');
$info0 = shmcache_info();

var_dump(shmcache_set('ttl:short', 'short', 1));
var_dump(shmcache_set('ttl:long', 'long', 3600));
var_dump(shmcache_set('ttl:forever', 'forever', 0));
var_dump(shmcache_set('ttl:default', 'default'));
var_dump(shmcache_add('ttl:added', 'added', 1));
var_dump($c->set('short', 'ns short', 1));
var_dump(shmcache_set_multi(['ttl:m1' => 1, 'ttl:m2' => 2], 1));
var_dump(shmcache_set('ttl:counter', 10, 1));
// A TTL of a few seconds is visible right away.
var_dump(shmcache_set('ttl:visible', 'yes', 30), shmcache_get('ttl:visible'));

sleep(2);

echo "-- after 2 s\n";
$found = null;
$i1 = shmcache_info();
var_dump(shmcache_get('ttl:short', $found), $found);
$i2 = shmcache_info();
// Reading the expired entry is one miss, counted as expired too.
printf("expired %d, misses %d, hits %d\n", $i2['expired'] - $i1['expired'], $i2['misses'] - $i1['misses'], $i2['hits'] - $i1['hits']);
var_dump(shmcache_exists('ttl:short'));
var_dump(shmcache_get('ttl:long'), shmcache_get('ttl:forever'), shmcache_get('ttl:default'));
var_dump(shmcache_exists('ttl:added'), $c->get('short'), $c->exists('short'));
var_dump(shmcache_get_multi(['ttl:m1', 'ttl:m2', 'ttl:long']));
var_dump(shmcache_incr('ttl:counter'), shmcache_cas('ttl:counter', 10, 11));
var_dump(shmcache_replace('ttl:short', 'replaced'), shmcache_exists('ttl:short'));
var_dump(shmcache_delete('ttl:added'));
// An expired key counts as absent for add.
var_dump(shmcache_add('ttl:short', 'added after expiry'));
var_dump(shmcache_get('ttl:short'));
var_dump($c->add('short', 'ns again'), $c->get('short'));

echo "-- negative TTL\n";
var_dump(shmcache_set('ttl:neg', 'v', -1));
var_dump(shmcache_get('ttl:neg', $found), $found, shmcache_exists('ttl:neg'));
var_dump(shmcache_add('ttl:neg2', 'v', -100));
var_dump(shmcache_exists('ttl:neg2'));
var_dump(shmcache_add('ttl:neg', 'now stored'), shmcache_get('ttl:neg'));
var_dump(shmcache_set_multi(['ttl:negm' => 1], -5), shmcache_exists('ttl:negm'));
var_dump($c->set('neg', 1, -1), $c->exists('neg'));
var_dump(shmcache_set('ttl:negmin', 'v', PHP_INT_MIN), shmcache_exists('ttl:negmin'));
// Over an existing value: the call returns true and the key is no longer visible.
shmcache_set('ttl:negover', 'old');
var_dump(shmcache_set('ttl:negover', 'new', -1), shmcache_get('ttl:negover'), shmcache_exists('ttl:negover'));
// A huge TTL is simply "far in the future".
var_dump(shmcache_set('ttl:huge', 'v', PHP_INT_MAX), shmcache_get('ttl:huge'));

echo "-- counters\n";
$info = shmcache_info();
var_dump($info['expired'] - $info0['expired'] >= 2);
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
array(0) {
}
bool(true)
bool(true)
string(3) "yes"
-- after 2 s
bool(false)
bool(false)
expired 1, misses 1, hits 0
bool(false)
string(4) "long"
string(7) "forever"
string(7) "default"
bool(false)
bool(false)
bool(false)
array(1) {
  ["ttl:long"]=>
  string(4) "long"
}
bool(false)
bool(false)
bool(false)
bool(false)
bool(false)
bool(true)
string(18) "added after expiry"
bool(true)
string(8) "ns again"
-- negative TTL
bool(true)
bool(false)
bool(false)
bool(false)
bool(true)
bool(false)
bool(true)
string(10) "now stored"
array(0) {
}
bool(false)
bool(true)
bool(false)
bool(true)
bool(false)
bool(true)
bool(false)
bool(false)
bool(true)
string(1) "v"
-- counters
bool(true)
