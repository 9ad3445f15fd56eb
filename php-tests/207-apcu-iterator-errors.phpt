--TEST--
APCUIterator: its signatures; an uninitialized subclass throws APCu's Error, a subclass calling the constructor works; bad arguments, constructing twice, clone, APC_LIST_DELETED, apcu_delete($iterator), user code re-entering the iterator, the cache disabled
--INI--
shmcache.apcu_compat=1
--FILE--
<?php
require __DIR__ . '/inc/common.inc';
function attempt(callable $f): void {
    try { var_dump($f()); } catch (Throwable $e) { echo get_class($e), ': ', $e->getMessage(), "\n"; }
}
for ($i = 0; $i < 5; $i++) apcu_store("key$i", $i);

echo "-- a subclass whose constructor does not call ours\n";
class Uninitialized extends APCUIterator { public function __construct() {} }
$u = new Uninitialized;
foreach (['rewind', 'current', 'key', 'next', 'valid', 'getTotalHits', 'getTotalSize', 'getTotalCount'] as $m) {
    attempt(fn() => $u->$m());
}
attempt(fn() => apcu_delete($u));

echo "-- a subclass that does\n";
class Search extends APCUIterator { public function __construct() { parent::__construct('/key[13]/', APC_ITER_VALUE); } }
$s = new Search;
var_dump(get_class($s), iterator_to_array($s));

echo "-- arguments\n";
attempt(fn() => new APCUIterator('/unterminated[/'));
attempt(fn() => new APCUIterator('no delimiters'));
attempt(fn() => new APCUIterator(null, APC_ITER_ALL, -1));
attempt(fn() => new APCUIterator(null, APC_ITER_ALL + 1));
attempt(fn() => new APCUIterator(null, APC_ITER_ALL, 100, 3));
attempt(fn() => new APCUIterator(null, 'x'));
$it = new APCUIterator();
attempt(fn() => $it->__construct('/key1/'));
attempt(fn() => clone $it);
var_dump(iterator_count($it));

echo "-- APC_LIST_DELETED: shmcache keeps no deleted entries\n";
$d = new APCUIterator(null, APC_ITER_ALL, 100, APC_LIST_DELETED);
var_dump(iterator_to_array($d), $d->getTotalCount());

echo "-- apcu_delete(APCUIterator)\n";
var_dump(apcu_delete(new APCUIterator('/key[0-2]/')));
var_dump(array_keys(iterator_to_array(new APCUIterator())));
var_dump(apcu_delete(new APCUIterator(['key3'])), apcu_exists('key3'), apcu_exists('key4'));
attempt(fn() => apcu_delete(new stdClass));

echo "-- user code re-entering the iterator while it reads values\n";
class Wakes {
    public static ?APCUIterator $it = null;
    public static int $wakeups = 0;
    public function __wakeup(): void {
        if (self::$wakeups++ === 0) {
            // The chunk being built is not the iterator's yet: these see the listing as it is.
            echo "wakeup: valid ", var_export(self::$it->valid(), true), ", count ", self::$it->getTotalCount(), "\n";
            apcu_store('stored during the iteration', 1);
        }
    }
}
class Destructs {
    public static ?APCUIterator $it = null;
    public function __destruct() {
        // Only the copy read by the iterator, dropped with its chunk while the next one is read.
        if (self::$it !== null) { echo "destruct: rewind\n"; $it = self::$it; self::$it = null; $it->rewind(); }
    }
}
apcu_clear_cache();
apcu_store('a', new Wakes);
apcu_store('b', new Wakes);
$it = Wakes::$it = new APCUIterator(null, APC_ITER_VALUE);
foreach ($it as $k => $row) echo $k, ' ', get_class($row['value']), "\n";
apcu_clear_cache();
apcu_store('c', new Destructs);
apcu_store('d', 'plain');
$it = Destructs::$it = new APCUIterator(null, APC_ITER_VALUE, 1);
$it->rewind();
var_dump($it->key());
$it->next();
var_dump($it->valid(), $it->key());

echo "-- disabled (shmcache.enable_cli=0)\n";
[$out, $code] = shm_run(['shmcache.apcu_compat=1', 'shmcache.enable_cli=0'],
    'try { new APCUIterator; } catch (Error $e) { echo $e->getMessage(), "\n"; } var_dump(APC_ITER_KEY);');
echo $out;

echo "-- signatures\n";
require __DIR__ . '/inc/signature.inc';
foreach (['__construct', 'rewind', 'valid', 'current', 'key', 'next', 'getTotalHits', 'getTotalSize', 'getTotalCount'] as $m) {
    echo 'APCUIterator::', shm_signature(new ReflectionMethod('APCUIterator', $m)), "\n";
}
var_dump(in_array('Iterator', class_implements('APCUIterator')));
?>
--EXPECTF--
-- a subclass whose constructor does not call ours
Error: Trying to use uninitialized APCUIterator
Error: Trying to use uninitialized APCUIterator
Error: Trying to use uninitialized APCUIterator
Error: Trying to use uninitialized APCUIterator
Error: Trying to use uninitialized APCUIterator
Error: Trying to use uninitialized APCUIterator
Error: Trying to use uninitialized APCUIterator
Error: Trying to use uninitialized APCUIterator
Error: Trying to use uninitialized APCUIterator
-- a subclass that does
string(6) "Search"
array(2) {
  ["key1"]=>
  array(1) {
    ["value"]=>
    int(1)
  }
  ["key3"]=>
  array(1) {
    ["value"]=>
    int(3)
  }
}
-- arguments

Warning: APCUIterator::__construct(): Compilation failed: missing terminating ] for character class at offset %d in %s on line %d
ValueError: APCUIterator::__construct(): Argument #1 ($search) must be a valid regular expression

Warning: APCUIterator::__construct(): Delimiter must not be alphanumeric, backslash, or NUL%S in %s on line %d
ValueError: APCUIterator::__construct(): Argument #1 ($search) must be a valid regular expression
ValueError: APCUIterator::__construct(): Argument #3 ($chunk_size) must be greater than or equal to 0
ValueError: APCUIterator::__construct(): Argument #2 ($format) is not a valid APC_ITER_* format
ValueError: APCUIterator::__construct(): Argument #4 ($list) must be APC_LIST_ACTIVE or APC_LIST_DELETED
TypeError: APCUIterator::__construct(): Argument #2 ($format) must be of type int, string given
Error: APCUIterator::__construct(): the iterator is already constructed
Error: Trying to clone an uncloneable object of class APCUIterator
int(5)
-- APC_LIST_DELETED: shmcache keeps no deleted entries
array(0) {
}
int(0)
-- apcu_delete(APCUIterator)
bool(true)
array(2) {
  [0]=>
  string(4) "key3"
  [1]=>
  string(4) "key4"
}
bool(true)
bool(false)
bool(true)

Warning: apcu_delete(): apc_delete object argument must be instance of APCUIterator. in %s on line %d
bool(false)
-- user code re-entering the iterator while it reads values
wakeup: valid false, count 2
a Wakes
b Wakes
string(1) "c"
destruct: rewind
bool(true)
string(1) "d"
-- disabled (shmcache.enable_cli=0)
APC must be enabled to use APCUIterator
int(2)
-- signatures
APCUIterator::__construct(mixed $search = NULL, int $format = 4294967295, int $chunk_size = 100, int $list = 1)
APCUIterator::rewind(): void
APCUIterator::valid(): bool
APCUIterator::current(): mixed
APCUIterator::key(): mixed
APCUIterator::next(): void
APCUIterator::getTotalHits(): int
APCUIterator::getTotalSize(): int
APCUIterator::getTotalCount(): int
bool(true)
