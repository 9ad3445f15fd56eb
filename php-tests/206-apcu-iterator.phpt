--TEST--
APCUIterator lists the APCu entries (the empty key too, no other namespace) in write order: each APC_ITER_* field, regex and array-of-keys searches, chunks, totals, key()/current() at the end, a chunk keeps what it read, rewind() reads again, listing counts no hit
--INI--
shmcache.apcu_compat=1
--FILE--
<?php
function keys(iterable $it): string { $k = []; foreach ($it as $key => $_) $k[] = $key === '' ? '""' : $key; return implode(' ', $k); }

for ($i = 0; $i < 12; $i++) apcu_store("key$i", "value$i");
apcu_store('', 'the empty key');
apcu_store('key3', 'written again');
shmcache_set('key5', 'not an apcu key');
(new ShmCache('other'))->set('key6', 'nor this');
apcu_store('gone', 1);
apcu_delete('gone');

echo "-- all, in write order\n";
echo keys(new APCUIterator()), "\n";
echo "-- chunks of 1, of 5, the default (0)\n";
echo keys(new APCUIterator(null, APC_ITER_ALL, 1)), "\n";
echo keys(new APCUIterator(null, APC_ITER_ALL, 5)), "\n";
echo keys(new APCUIterator(null, APC_ITER_ALL, 0)), "\n";
echo "-- regex\n";
echo keys(new APCUIterator('/^key1/')), "\n";
echo keys(new APCUIterator('/KEY[0-9]0/i', APC_ITER_KEY, 1)), "\n";
echo "-- array of keys\n";
echo keys(new APCUIterator(['key7', 'key1', 'missing', ''])), "\n";
echo "-- empty string: no search\n";
echo count(iterator_to_array(new APCUIterator(''))), "\n";

echo "-- formats\n";
$t0 = time();
apcu_store('ttl', [1, 'two'], 100);
$formats = ['APC_ITER_TYPE', 'APC_ITER_KEY', 'APC_ITER_VALUE', 'APC_ITER_NUM_HITS', 'APC_ITER_MTIME', 'APC_ITER_CTIME',
    'APC_ITER_DTIME', 'APC_ITER_ATIME', 'APC_ITER_REFCOUNT', 'APC_ITER_TTL', 'APC_ITER_NONE'];
foreach ($formats as $name) {
    $it = new APCUIterator(['ttl'], constant($name));
    $it->rewind();
    $row = $it->current();
    // When the value was stored (this second or the next): shown as such, not as a number.
    foreach (['mtime', 'creation_time'] as $f) {
        if (isset($row[$f]) && $row[$f] >= $t0 && $row[$f] <= time()) {
            $row[$f] = 'the store time';
        }
    }
    echo $name, ': ', json_encode($row), "\n";
}
$it = new APCUIterator(['ttl']);
$row = $it->current();
echo 'APC_ITER_ALL: ', implode(' ', array_keys($row)), "\n";
var_dump($row['ttl']);
// 64-byte header, namespace "apcu", key "key0", value "value0" (6 bytes): 78, padded to 80.
$it = new APCUIterator(['key0'], APC_ITER_MEM_SIZE);
echo 'APC_ITER_MEM_SIZE: ', json_encode($it->current()), "\n";

echo "-- totals\n";
$it = new APCUIterator('/^key1/');
// key1, key10, key11: 64 + 4 + 4 + 6 = 78 and 64 + 4 + 5 + 7 = 80 bytes, padded to 80.
var_dump($it->getTotalCount(), $it->getTotalHits(), $it->getTotalSize());

echo "-- by hand: rewind, valid, key, current, next; the end\n";
$it = new APCUIterator(['key2', 'key4'], APC_ITER_VALUE);
$it->rewind();
var_dump($it->valid(), $it->key(), $it->current());
$it->next();
var_dump($it->valid(), $it->key());
$it->next();
var_dump($it->valid());
$it->next();
foreach (['key', 'current'] as $m) {
    try { $it->$m(); } catch (Error $e) { echo get_class($e), ': ', $e->getMessage(), "\n"; }
}
echo "-- key() before rewind() starts the listing\n";
$it = new APCUIterator(['key8']);
var_dump($it->key());

echo "-- a chunk keeps what it read; rewind() reads again\n";
$it = new APCUIterator(['key9', 'new'], APC_ITER_VALUE);
$it->rewind();
apcu_delete('key9');
apcu_store('new', 'n');
var_dump($it->key(), $it->current()['value']);
$it->rewind();
var_dump($it->key());

echo "-- a value deleted before its chunk is read is left out; without values it is listed\n";
$with = new APCUIterator(['key10', 'key11'], APC_ITER_VALUE, 1);
$without = new APCUIterator(['key10', 'key11'], APC_ITER_KEY, 1);
$with->rewind();
$without->rewind();
apcu_delete('key11');
echo keys((function () use ($with) { for (; $with->valid(); $with->next()) yield $with->key() => 1; })()), "\n";
echo keys((function () use ($without) { for (; $without->valid(); $without->next()) yield $without->key() => 1; })()), "\n";

echo "-- iterating counts no hit\n";
$before = apcu_cache_info(true)['num_hits'];
foreach (new APCUIterator() as $row) {}
var_dump(apcu_cache_info(true)['num_hits'] === $before);

echo "-- after apcu_clear_cache()\n";
apcu_clear_cache();
var_dump(iterator_to_array(new APCUIterator()), (new APCUIterator())->getTotalCount());
?>
--EXPECT--
-- all, in write order
key0 key1 key2 key4 key5 key6 key7 key8 key9 key10 key11 "" key3
-- chunks of 1, of 5, the default (0)
key0 key1 key2 key4 key5 key6 key7 key8 key9 key10 key11 "" key3
key0 key1 key2 key4 key5 key6 key7 key8 key9 key10 key11 "" key3
key0 key1 key2 key4 key5 key6 key7 key8 key9 key10 key11 "" key3
-- regex
key1 key10 key11
key10
-- array of keys
key1 key7 ""
-- empty string: no search
13
-- formats
APC_ITER_TYPE: {"type":"user"}
APC_ITER_KEY: {"key":"ttl"}
APC_ITER_VALUE: {"value":[1,"two"]}
APC_ITER_NUM_HITS: {"num_hits":0}
APC_ITER_MTIME: {"mtime":"the store time"}
APC_ITER_CTIME: {"creation_time":"the store time"}
APC_ITER_DTIME: {"deletion_time":0}
APC_ITER_ATIME: {"access_time":0}
APC_ITER_REFCOUNT: {"ref_count":0}
APC_ITER_TTL: {"ttl":100}
APC_ITER_NONE: []
APC_ITER_ALL: type key value num_hits mtime creation_time deletion_time access_time ref_count mem_size ttl
int(100)
APC_ITER_MEM_SIZE: {"mem_size":80}
-- totals
int(3)
int(0)
int(240)
-- by hand: rewind, valid, key, current, next; the end
bool(true)
string(4) "key2"
array(1) {
  ["value"]=>
  string(6) "value2"
}
bool(true)
string(4) "key4"
bool(false)
Error: Cannot call key() on invalid iterator
Error: Cannot call current() on invalid iterator
-- key() before rewind() starts the listing
string(4) "key8"
-- a chunk keeps what it read; rewind() reads again
string(4) "key9"
string(6) "value9"
string(3) "new"
-- a value deleted before its chunk is read is left out; without values it is listed
key10
key10 key11
-- iterating counts no hit
bool(true)
-- after apcu_clear_cache()
array(0) {
}
int(0)
