--TEST--
ttl(): seconds a live key has left (0: never expires, false: not live), no hit or miss counted; written back as a TTL it keeps the expiry
--FILE--
<?php
$c = new ShmCache('ttl-read');
shmcache_delete('tr:absent');

var_dump(shmcache_ttl('tr:absent'));
shmcache_set('tr:forever', 'v');
var_dump(shmcache_ttl('tr:forever'));
shmcache_set('tr:30', 'v', 30);
$t = shmcache_ttl('tr:30');
// (The clock may tick to the next second between the two calls.)
var_dump($t === 30 || $t === 29);
shmcache_set('tr:neg', 'v', -1);
var_dump(shmcache_ttl('tr:neg'));
shmcache_set('tr:deleted', 'v', 30);
shmcache_delete('tr:deleted');
var_dump(shmcache_ttl('tr:deleted'));

echo "-- counts nothing\n";
$i1 = shmcache_info();
shmcache_ttl('tr:30');
shmcache_ttl('tr:absent');
$i2 = shmcache_info();
var_dump($i2['hits'] - $i1['hits'], $i2['misses'] - $i1['misses']);

echo "-- namespaces and int keys\n";
var_dump($c->ttl('tr:30'));
$c->set(7, 'v');
var_dump($c->ttl(7), $c->ttl('7'));
$c->flush();
var_dump($c->ttl(7));

echo "-- incr and cas keep the expiry\n";
shmcache_set('tr:n', 5, 30);
shmcache_incr('tr:n');
shmcache_cas('tr:n', 6, 7);
$t = shmcache_ttl('tr:n');
var_dump($t === 30 || $t === 29);

echo "-- written back, the expiry is kept\n";
shmcache_set('tr:short', 'a', 2);
shmcache_set('tr:control', 'a', 2);
sleep(1);
// A value incr refuses, rewritten as an int: with ttl() it still dies on time, without it never.
var_dump(shmcache_replace('tr:short', 6, shmcache_ttl('tr:short')));
var_dump(shmcache_replace('tr:control', 6));
sleep(2);
var_dump(shmcache_ttl('tr:short'), shmcache_get('tr:short'), shmcache_ttl('tr:control'));

echo "-- bad keys\n";
foreach (['', str_repeat('k', 4097), []] as $k) {
    try {
        shmcache_ttl($k);
    } catch (Throwable $e) {
        echo get_class($e), ': ', $e->getMessage(), "\n";
    }
}
try {
    $c->ttl('');
} catch (Throwable $e) {
    echo get_class($e), ': ', $e->getMessage(), "\n";
}
?>
--EXPECTF--
bool(false)
int(0)
bool(true)
bool(false)
bool(false)
-- counts nothing
int(0)
int(0)
-- namespaces and int keys
bool(false)
int(0)
int(0)
bool(false)
-- incr and cas keep the expiry
bool(true)
-- written back, the expiry is kept
bool(true)
bool(true)
bool(false)
bool(false)
int(0)
-- bad keys
ValueError: shmcache_ttl(): Argument #1 ($key) %s
ValueError: shmcache_ttl(): Argument #1 ($key) %s
TypeError: shmcache_ttl(): Argument #1 ($key) %s
ValueError: ShmCache::ttl(): Argument #1 ($key) %s
