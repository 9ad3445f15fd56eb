--TEST--
The apcu_* calls the hand-written handlers serve (a string key, ints as ints) and the shapes they leave to the generated ones (arrays, conversions, null values, references, typed properties for &$success, wrong argument counts) answer alike (expected output: APCu 5.1.22's)
--INI--
shmcache.apcu_compat=1
--FILE--
<?php
function show(string $label, $v): void { echo $label, ': ', var_export($v, true), "\n"; }
function attempt(string $label, callable $f): void {
    try { show($label, $f()); } catch (Throwable $e) { echo $label, ': ', get_class($e), ': ', $e->getMessage(), "\n"; }
}
class Holder { public ?bool $found = null; public int $count = 5; }
class Name { public function __toString(): string { return 'obj'; } }

echo "-- store / add\n";
show('store', apcu_store('k', 'v'));
show('store ttl', apcu_store('t', 1, 100));
show('store ttl as string', apcu_store('t2', 2, '100'));
show('store null', [apcu_store('n', null), apcu_fetch('n', $s), $s]);
show('store int key', [apcu_store(42, 'i'), apcu_fetch('42')]);
show('store empty key', [apcu_store('', 'e'), apcu_fetch('')]);
show('add live', apcu_add('k', 'w'));
show('add new', apcu_add('a', 'x'));
show('add null', [apcu_add('an', null), apcu_exists('an')]);
show('store array form', apcu_store(['m1' => 1, 'm2' => 2]));
$v = 'by ref'; $r = &$v;
show('store a reference', [apcu_store('ref', $r), apcu_fetch('ref')]);
show('store resource', apcu_store('res', STDIN));
attempt('store no args', fn() => apcu_store());
attempt('store too many', fn() => apcu_store('k', 1, 0, 4));
attempt('store ttl array', fn() => apcu_store('k', 1, []));
show('store via call_user_func', call_user_func('apcu_store', 'cu', 3));

echo "-- fetch\n";
show('hit', apcu_fetch('k'));
show('hit success', [apcu_fetch('k', $s), $s]);
show('miss success', [apcu_fetch('nope', $s), $s]);
show('int key', apcu_fetch(42));
show('float key', [apcu_store('1.5', 'f'), apcu_fetch(1.5)]);
show('object key', [apcu_store('obj', 'o'), apcu_fetch(new Name)]);
$h = new Holder;
show('typed property hit', [apcu_fetch('k', $h->found), $h->found]);
attempt('int typed property', fn() => [apcu_fetch('k', $h->count), $h->count]);
$k = 'k'; $kr = &$k;
show('key by reference', apcu_fetch($kr));
attempt('fetch no args', fn() => apcu_fetch());
attempt('fetch too many', fn() => apcu_fetch('k', $s, 3));
show('fetch array', apcu_fetch(['k', 'nope', 'a']));

echo "-- delete\n";
show('delete live', apcu_delete('a'));
show('delete gone', apcu_delete('a'));
show('delete int key', apcu_delete(42));
show('delete empty key', apcu_delete(''));
show('delete array', apcu_delete(['k', 'nope']));
attempt('delete no args', fn() => apcu_delete());
attempt('delete too many', fn() => apcu_delete('k', 'l'));

echo "-- inc / dec\n";
show('inc new', [apcu_inc('c', 1, $s), $s]);
show('inc step', apcu_inc('c', 10));
show('inc default step', apcu_inc('c'));
show('dec', [apcu_dec('c', 2, $s), $s]);
show('dec new', apcu_dec('d'));
show('inc string step', apcu_inc('c', '5'));
show('inc float step', apcu_inc('c', 2.0));
show('inc bool step', apcu_inc('c', true));
show('inc ttl as string', apcu_inc('c', 1, $s, '10'));
show('inc on a string', [apcu_inc('ref', 1, $s), $s]);
show('inc typed property', [apcu_inc('c', 1, $h->found), $h->found]);
show('inc typed property fails', [apcu_inc('ref', 1, $h->found), $h->found]);
attempt('inc int typed property', fn() => [apcu_inc('c', 1, $h->count), $h->count]);
show('inc int key', [apcu_inc(7), apcu_fetch('7')]);
show('inc object key', apcu_inc(new Name));
show('inc empty key', apcu_inc(''));
show('inc named ttl', [apcu_inc('nt', ttl: 100), apcu_key_info('nt')['ttl']]);
show('inc wraps', [apcu_store('big', PHP_INT_MAX), apcu_inc('big')]);
attempt('inc no args', fn() => apcu_inc());
attempt('inc too many', fn() => apcu_inc('c', 1, $s, 0, 5));
attempt('inc bad step', fn() => apcu_inc('c', 'abc'));
attempt('dec bad ttl', fn() => apcu_dec('c', 1, $s, 'abc'));
show('dec via call_user_func_array', call_user_func_array('apcu_dec', ['c', 3]));
--EXPECTF--
-- store / add
store: true
store ttl: true
store ttl as string: true
store null: array (
  0 => true,
  1 => NULL,
  2 => true,
)

Warning: apcu_store(): apc_store expects key parameter to be a string or an array of key/value pairs. in %s on line 14
store int key: array (
  0 => false,
  1 => false,
)
store empty key: array (
  0 => true,
  1 => 'e',
)
add live: false
add new: true
add null: array (
  0 => true,
  1 => true,
)
store array form: array (
)
store a reference: array (
  0 => true,
  1 => 'by ref',
)

Warning: apcu_store(): Cannot store resources in apcu cache in %s on line 22
store resource: false
store no args: ArgumentCountError: apcu_store() expects at least 1 argument, 0 given
store too many: ArgumentCountError: apcu_store() expects at most 3 arguments, 4 given
store ttl array: TypeError: apcu_store(): Argument #3 ($ttl) must be of type int, array given
store via call_user_func: true
-- fetch
hit: 'v'
hit success: array (
  0 => 'v',
  1 => true,
)
miss success: array (
  0 => false,
  1 => false,
)
int key: false
float key: array (
  0 => true,
  1 => 'f',
)
object key: array (
  0 => true,
  1 => 'o',
)
typed property hit: array (
  0 => 'v',
  1 => true,
)
int typed property: array (
  0 => 'v',
  1 => 1,
)
key by reference: 'v'
fetch no args: ArgumentCountError: apcu_fetch() expects at least 1 argument, 0 given
fetch too many: ArgumentCountError: apcu_fetch() expects at most 2 arguments, 3 given
fetch array: array (
  'k' => 'v',
  'a' => 'x',
)
-- delete
delete live: true
delete gone: false

Warning: apcu_delete(): apc_delete() expects a string, array of strings, or APCIterator instance in %s on line 47
delete int key: false
delete empty key: true
delete array: array (
  0 => 'nope',
)
delete no args: ArgumentCountError: apcu_delete() expects exactly 1 argument, 0 given
delete too many: ArgumentCountError: apcu_delete() expects exactly 1 argument, 2 given
-- inc / dec
inc new: array (
  0 => 1,
  1 => true,
)
inc step: 11
inc default step: 12
dec: array (
  0 => 10,
  1 => true,
)
dec new: -1
inc string step: 15
inc float step: 17
inc bool step: 18
inc ttl as string: 19
inc on a string: array (
  0 => false,
  1 => false,
)
inc typed property: array (
  0 => 20,
  1 => true,
)
inc typed property fails: array (
  0 => false,
  1 => false,
)
inc int typed property: array (
  0 => 21,
  1 => 1,
)
inc int key: array (
  0 => 1,
  1 => 1,
)
inc object key: false
inc empty key: 1
inc named ttl: array (
  0 => 1,
  1 => 100,
)
inc wraps: array (
  0 => true,
  1 => -9223372036854775807-1,
)
inc no args: ArgumentCountError: apcu_inc() expects at least 1 argument, 0 given
inc too many: ArgumentCountError: apcu_inc() expects at most 4 arguments, 5 given
inc bad step: TypeError: apcu_inc(): Argument #2 ($step) must be of type int, string given
dec bad ttl: TypeError: apcu_dec(): Argument #4 ($ttl) must be of type int, string given
dec via call_user_func_array: 18
