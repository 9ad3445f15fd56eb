--TEST--
delete/exists, and shmcache_flush() removing everything in every namespace
--FILE--
<?php
$a = new ShmCache('fl-a');
$b = new ShmCache('fl-b');
var_dump(shmcache_exists('d:k'), shmcache_delete('d:k'));
shmcache_set('d:k', null);
var_dump(shmcache_exists('d:k'));          // a stored null exists
var_dump(shmcache_delete('d:k'));          // true: a live entry was removed
var_dump(shmcache_exists('d:k'), shmcache_delete('d:k'));
// exists does not count as a hit or a miss
$i0 = shmcache_info();
shmcache_exists('d:k');
shmcache_set('d:k2', 1);
shmcache_exists('d:k2');
$i1 = shmcache_info();
var_dump($i1['hits'] - $i0['hits'], $i1['misses'] - $i0['misses']);
// delete of an expired entry is false (nothing live was removed)
shmcache_set('d:neg', 1, -1);
var_dump(shmcache_delete('d:neg'));

echo "-- flush\n";
for ($i = 0; $i < 100; $i++) shmcache_set("f:$i", $i);
$a->set('k', 'a');
$b->set('k', 'b');
shmcache_set('k', 'root');
var_dump(shmcache_flush());
$left = 0;
for ($i = 0; $i < 100; $i++) if (shmcache_exists("f:$i")) $left++;
var_dump($left, shmcache_exists('k'), $a->exists('k'), $b->exists('k'), $a->get('k'), shmcache_get('f:1'));
var_dump(shmcache_info()['slots_used']);
// Usable again after a flush
var_dump(shmcache_set('k', 'after'), $a->set('k', 'a after'), shmcache_get('k'), $a->get('k'), $b->get('k'));
var_dump(shmcache_flush(), shmcache_flush());
var_dump(shmcache_get('k'), $a->get('k'));
?>
--EXPECT--
bool(false)
bool(false)
bool(true)
bool(true)
bool(false)
bool(false)
int(0)
int(0)
bool(false)
-- flush
bool(true)
int(0)
bool(false)
bool(false)
bool(false)
bool(false)
bool(false)
int(0)
bool(true)
bool(true)
string(5) "after"
string(7) "a after"
bool(false)
bool(true)
bool(true)
bool(false)
bool(false)
