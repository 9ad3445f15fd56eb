--TEST--
apcu_store/add/fetch/exists/delete: single and array forms, &$success, the empty key, int keys, resources, TTLs (expected output: APCu 5.1.22's)
--INI--
shmcache.apcu_compat=1
--FILE--
<?php
function show(string $label, $v): void { echo $label, ': ', var_export($v, true), "\n"; }

echo "-- single keys\n";
show('store', apcu_store('k1', ['a' => 1, 'b' => [true, null, 1.5]]));
show('fetch', apcu_fetch('k1', $ok)); show('success', $ok);
show('fetch missing', apcu_fetch('nope', $ok)); show('success', $ok);
show('store false', apcu_store('f', false));
show('fetch false', apcu_fetch('f', $ok)); show('success', $ok);
show('add existing', apcu_add('k1', 'other'));
show('add new', apcu_add('k2', 'two'));
show('fetch after add', [apcu_fetch('k1'), apcu_fetch('k2')]);
show('exists', [apcu_exists('k1'), apcu_exists('nope')]);
show('delete', [apcu_delete('k1'), apcu_delete('k1')]);
show('exists after delete', apcu_exists('k1'));
show('store without value', apcu_store('novalue'));
show('exists novalue', apcu_exists('novalue'));
$o = new ArrayObject([1, 2]);
apcu_store('obj', $o);
$copy = apcu_fetch('obj');
show('object copy', [get_class($copy), $copy->getArrayCopy(), $copy !== $o]);

echo "-- the empty key is a key\n";
show('store', apcu_store('', 'empty'));
show('fetch', apcu_fetch('', $ok)); show('success', $ok);
show('exists', apcu_exists(''));
show('fetch array', apcu_fetch(['', 'k2']));
show('delete', apcu_delete(''));
show('fetch after delete', apcu_fetch(''));

echo "-- int keys\n";
show('store int key', apcu_store(5, 'five'));
apcu_store('5', 'five');
show('fetch int', apcu_fetch(5));
show('exists int', apcu_exists(5));
show('delete int', apcu_delete(5));
show('delete "5"', apcu_delete('5'));
show('store float key', apcu_store(1.5, 'x'));
show('store null key', apcu_store(null, 'x'));
try { apcu_fetch(new stdClass); } catch (Error $e) { echo get_class($e), ': ', $e->getMessage(), "\n"; }

echo "-- array forms\n";
show('store array', apcu_store(['a' => 1, 'b' => 2, 3 => 'three']));
show('add array', apcu_add(['a' => 10, 'c' => 3, 7 => 'seven']));
show('fetch array', apcu_fetch(['a', 'c', 'missing', '3', '7', 3], $ok)); show('success', $ok);
show('exists array', apcu_exists(['a', 'missing', '3', 3]));
show('delete array', apcu_delete(['a', 'missing', 3, '3']));
show('after delete', apcu_fetch(['a', 'b', '3']));

echo "-- resources\n";
$fh = fopen('php://memory', 'r');
apcu_store('r', 'previous');
show('store resource', apcu_store('r', $fh));
show('previous value kept', apcu_fetch('r'));
show('add resource', apcu_add('r2', $fh));
show('array of values, one a resource', apcu_store(['r3' => 1, 'r4' => $fh]));
show('r3 stored', apcu_fetch('r3'));

echo "-- closures throw\n";
try { apcu_store('c', function () {}); } catch (Exception $e) { echo get_class($e), ': ', $e->getMessage(), "\n"; }
show('nothing stored', apcu_exists('c'));

echo "-- ttl\n";
show('negative ttl', apcu_store('neg', 1, -1));
show('fetch negative ttl', apcu_fetch('neg'));
apcu_store('short', 'v', 1);
show('short before', apcu_fetch('short'));
sleep(2);
show('short after 2 s', apcu_fetch('short'));
?>
--EXPECTF--
-- single keys
store: true
fetch: array (
  'a' => 1,
  'b' => 
  array (
    0 => true,
    1 => NULL,
    2 => 1.5,
  ),
)
success: true
fetch missing: false
success: false
store false: true
fetch false: false
success: true
add existing: false
add new: true
fetch after add: array (
  0 => 
  array (
    'a' => 1,
    'b' => 
    array (
      0 => true,
      1 => NULL,
      2 => 1.5,
    ),
  ),
  1 => 'two',
)
exists: array (
  0 => true,
  1 => false,
)
delete: array (
  0 => true,
  1 => false,
)
exists after delete: false
store without value: false
exists novalue: false
object copy: array (
  0 => 'ArrayObject',
  1 => 
  array (
    0 => 1,
    1 => 2,
  ),
  2 => true,
)
-- the empty key is a key
store: true
fetch: 'empty'
success: true
exists: true
fetch array: array (
  '' => 'empty',
  'k2' => 'two',
)
delete: true
fetch after delete: false
-- int keys

Warning: apcu_store(): apc_store expects key parameter to be a string or an array of key/value pairs. in %s on line %d
store int key: false
fetch int: 'five'
exists int: true

Warning: apcu_delete(): apc_delete() expects a string, array of strings, or APCIterator instance in %s on line %d
delete int: false
delete "5": true

Warning: apcu_store(): apc_store expects key parameter to be a string or an array of key/value pairs. in %s on line %d
store float key: false

Warning: apcu_store(): apc_store expects key parameter to be a string or an array of key/value pairs. in %s on line %d
store null key: false
Error: Object of class stdClass could not be converted to string
-- array forms
store array: array (
)
add array: array (
  'a' => -1,
)

Warning: apcu_fetch(): apc_fetch() expects a string or array of strings. in %s on line %d
fetch array: array (
  'a' => 1,
  'c' => 3,
  '3' => 'three',
  '7' => 'seven',
)
success: true

Warning: apcu_exists(): apc_exists() expects a string or array of strings. in %s on line %d
exists array: array (
  'a' => true,
  '3' => true,
)

Warning: apcu_delete(): apc_delete() expects a string, array of strings, or APCIterator instance in %s on line %d
delete array: array (
  0 => 'missing',
  1 => 3,
)
after delete: array (
  'b' => 2,
)
-- resources

Warning: apcu_store(): Cannot store resources in apcu cache in %s on line %d
store resource: false
previous value kept: 'previous'

Warning: apcu_add(): Cannot store resources in apcu cache in %s on line %d
add resource: false

Warning: apcu_store(): Cannot store resources in apcu cache in %s on line %d
array of values, one a resource: array (
  'r4' => -1,
)
r3 stored: 1
-- closures throw
Exception: Serialization of 'Closure' is not allowed
nothing stored: true
-- ttl
negative ttl: true
fetch negative ttl: false
short before: 'v'
short after 2 s: false
