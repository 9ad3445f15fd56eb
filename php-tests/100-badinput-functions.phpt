--TEST--
Bad-input matrix: every argument of every shmcache_* function with wrong types, empty, binary, boundary and oversized values (a clear error or a documented result, never a crash)
--INI--
memory_limit=512M
--FILE--
<?php
require __DIR__ . '/inc/badinput.inc';
$reset = function () {
    shmcache_flush();
    shmcache_set('k', 'v');
    shmcache_set('n', 1);
};
bad_matrix([
    'shmcache_get' => ['shmcache_get', ['k'], ['key']],
    'shmcache_get_multi' => ['shmcache_get_multi', [['k', 'n']], ['keys']],
    'shmcache_set' => ['shmcache_set', ['k', 1, 0], ['key', 'value', 'ttl']],
    'shmcache_set_multi' => ['shmcache_set_multi', [['k' => 1], 0], ['values', 'ttl']],
    'shmcache_add' => ['shmcache_add', ['new', 1, 0], ['key', 'value', 'ttl']],
    'shmcache_replace' => ['shmcache_replace', ['k', 1, 0], ['key', 'value', 'ttl']],
    'shmcache_cas' => ['shmcache_cas', ['n', 1, 2], ['key', 'old', 'new']],
    'shmcache_incr' => ['shmcache_incr', ['n', 1], ['key', 'step']],
    'shmcache_decr' => ['shmcache_decr', ['n', 1], ['key', 'step']],
    'shmcache_delete' => ['shmcache_delete', ['k'], ['key']],
    'shmcache_exists' => ['shmcache_exists', ['k'], ['key']],
], $reset);
// Bad elements inside the arrays of the multi functions.
$elems = [];
foreach (bad_values() as $vl => $v) {
    $reset();
    $elems[bad_outcome(fn() => shmcache_get_multi(['k', $v]))][] = $vl;
}
echo "shmcache_get_multi element:\n";
foreach ($elems as $o => $l) {
    echo '  ', implode(', ', $l), " => $o\n";
}
$elems = [];
foreach (bad_values() as $vl => $v) {
    $reset();
    $o = bad_outcome(fn() => shmcache_set_multi(['x1' => 1, 'x2' => $v]));
    $elems[$o . (shmcache_exists('x1') ? ' (x1 stored)' : '')][] = $vl;
}
echo "shmcache_set_multi value:\n";
foreach ($elems as $o => $l) {
    echo '  ', implode(', ', $l), " => $o\n";
}
echo "set_multi keys: ", bad_outcome(fn() => shmcache_set_multi(['' => 1])), "\n";
echo "set_multi keys: ", bad_outcome(fn() => shmcache_set_multi([str_repeat('a', 4097) => 1])), "\n";
echo "set_multi keys: ", bad_outcome(fn() => shmcache_set_multi([-5 => 1, PHP_INT_MAX => 2, "\0" => 3])), "\n";
foreach (shmcache_get_multi([-5, PHP_INT_MAX, "\0"]) as $k => $v) {
    echo 'get_multi ', gettype($k), ' ', bin2hex((string) $k), " => $v\n";
}
// TTL and step boundaries
$reset();
foreach ([PHP_INT_MAX, PHP_INT_MIN, -1, 1, 0] as $ttl) {
    echo "ttl $ttl: set ", var_export(shmcache_set('t', 'v', $ttl), true), ', visible ', var_export(shmcache_exists('t'), true), "\n";
}
foreach ([[PHP_INT_MAX, 1], [PHP_INT_MIN, -1], [0, PHP_INT_MIN], [PHP_INT_MAX, PHP_INT_MAX]] as [$start, $step]) {
    shmcache_set('c', $start);
    echo "incr $start by $step: ", var_export(shmcache_incr('c', $step), true), '; ';
    shmcache_set('c', $start);
    echo "decr: ", var_export(shmcache_decr('c', $step), true), "\n";
}
echo "still works: ", var_export(shmcache_set('ok', 1) && shmcache_get('ok') === 1, true), "\n";
?>
--EXPECT--
shmcache_get #1 $key:
  null => TypeError: shmcache_get(): Argument #1 ($key) must be of type string, null given
  true, false => TypeError: shmcache_get(): Argument #1 ($key) must be of type string, bool given
  0, -1, PHP_INT_MAX, PHP_INT_MIN, "0", "abc", "12abc", " 12", "1e3", "2^63", "\0", binary, 4096 bytes => ret false
  1.5, 2.0, NAN, INF, -INF, 1e20 => TypeError: shmcache_get(): Argument #1 ($key) must be of type string, float given
  "" => ValueError: shmcache_get(): Argument #1 ($key) cannot be empty
  4097 bytes => ValueError: shmcache_get(): Argument #1 ($key) must be at most 4096 bytes long, 4097 given
  [], [1,2] => TypeError: shmcache_get(): Argument #1 ($key) must be of type string, array given
  stdClass => TypeError: shmcache_get(): Argument #1 ($key) must be of type string, stdClass given
  Stringable => TypeError: shmcache_get(): Argument #1 ($key) must be of type string, BadStringable given
  Closure => TypeError: shmcache_get(): Argument #1 ($key) must be of type string, Closure given
  resource => TypeError: shmcache_get(): Argument #1 ($key) must be of type string, resource given
  enum => TypeError: shmcache_get(): Argument #1 ($key) must be of type string, BadSuit given
shmcache_get_multi #1 $keys:
  null => TypeError: shmcache_get_multi(): Argument #1 ($keys) must be of type array, null given
  true, false => TypeError: shmcache_get_multi(): Argument #1 ($keys) must be of type array, bool given
  0, -1, PHP_INT_MAX, PHP_INT_MIN => TypeError: shmcache_get_multi(): Argument #1 ($keys) must be of type array, int given
  1.5, 2.0, NAN, INF, -INF, 1e20 => TypeError: shmcache_get_multi(): Argument #1 ($keys) must be of type array, float given
  "", "0", "abc", "12abc", " 12", "1e3", "2^63", "\0", binary, 4096 bytes, 4097 bytes => TypeError: shmcache_get_multi(): Argument #1 ($keys) must be of type array, string given
  [], [1,2] => ret array(0)
  stdClass => TypeError: shmcache_get_multi(): Argument #1 ($keys) must be of type array, stdClass given
  Stringable => TypeError: shmcache_get_multi(): Argument #1 ($keys) must be of type array, BadStringable given
  Closure => TypeError: shmcache_get_multi(): Argument #1 ($keys) must be of type array, Closure given
  resource => TypeError: shmcache_get_multi(): Argument #1 ($keys) must be of type array, resource given
  enum => TypeError: shmcache_get_multi(): Argument #1 ($keys) must be of type array, BadSuit given
shmcache_set #1 $key:
  null => TypeError: shmcache_set(): Argument #1 ($key) must be of type string, null given
  true, false => TypeError: shmcache_set(): Argument #1 ($key) must be of type string, bool given
  0, -1, PHP_INT_MAX, PHP_INT_MIN, "0", "abc", "12abc", " 12", "1e3", "2^63", "\0", binary, 4096 bytes => ret true
  1.5, 2.0, NAN, INF, -INF, 1e20 => TypeError: shmcache_set(): Argument #1 ($key) must be of type string, float given
  "" => ValueError: shmcache_set(): Argument #1 ($key) cannot be empty
  4097 bytes => ValueError: shmcache_set(): Argument #1 ($key) must be at most 4096 bytes long, 4097 given
  [], [1,2] => TypeError: shmcache_set(): Argument #1 ($key) must be of type string, array given
  stdClass => TypeError: shmcache_set(): Argument #1 ($key) must be of type string, stdClass given
  Stringable => TypeError: shmcache_set(): Argument #1 ($key) must be of type string, BadStringable given
  Closure => TypeError: shmcache_set(): Argument #1 ($key) must be of type string, Closure given
  resource => TypeError: shmcache_set(): Argument #1 ($key) must be of type string, resource given
  enum => TypeError: shmcache_set(): Argument #1 ($key) must be of type string, BadSuit given
shmcache_set #2 $value:
  null, true, false, 0, -1, PHP_INT_MAX, PHP_INT_MIN, 1.5, 2.0, NAN, INF, -INF, 1e20, "", "0", "abc", "12abc", " 12", "1e3", "2^63", "\0", binary, 4096 bytes, 4097 bytes, [], [1,2], stdClass, Stringable, enum => ret true
  Closure => Exception: Serialization of 'Closure' is not allowed
  resource => TypeError: shmcache_set(): Argument #2 ($value) cannot be a resource
shmcache_set #3 $ttl:
  null => TypeError: Argument `$ttl` must not be null
  true, false, 0, -1, PHP_INT_MAX, PHP_INT_MIN, 2.0, "0", " 12", "1e3" => ret true
  1.5, NAN, INF, -INF, 1e20 => TypeError: shmcache_set(): Argument #3 ($ttl) must be of type int, float given
  "", "abc", "12abc", "2^63", "\0", binary, 4096 bytes, 4097 bytes => TypeError: shmcache_set(): Argument #3 ($ttl) must be of type int, string given
  [], [1,2] => TypeError: shmcache_set(): Argument #3 ($ttl) must be of type int, array given
  stdClass => TypeError: shmcache_set(): Argument #3 ($ttl) must be of type int, stdClass given
  Stringable => TypeError: shmcache_set(): Argument #3 ($ttl) must be of type int, BadStringable given
  Closure => TypeError: shmcache_set(): Argument #3 ($ttl) must be of type int, Closure given
  resource => TypeError: shmcache_set(): Argument #3 ($ttl) must be of type int, resource given
  enum => TypeError: shmcache_set(): Argument #3 ($ttl) must be of type int, BadSuit given
shmcache_set_multi #1 $values:
  null => TypeError: shmcache_set_multi(): Argument #1 ($values) must be of type array, null given
  true, false => TypeError: shmcache_set_multi(): Argument #1 ($values) must be of type array, bool given
  0, -1, PHP_INT_MAX, PHP_INT_MIN => TypeError: shmcache_set_multi(): Argument #1 ($values) must be of type array, int given
  1.5, 2.0, NAN, INF, -INF, 1e20 => TypeError: shmcache_set_multi(): Argument #1 ($values) must be of type array, float given
  "", "0", "abc", "12abc", " 12", "1e3", "2^63", "\0", binary, 4096 bytes, 4097 bytes => TypeError: shmcache_set_multi(): Argument #1 ($values) must be of type array, string given
  [], [1,2] => ret array(0)
  stdClass => TypeError: shmcache_set_multi(): Argument #1 ($values) must be of type array, stdClass given
  Stringable => TypeError: shmcache_set_multi(): Argument #1 ($values) must be of type array, BadStringable given
  Closure => TypeError: shmcache_set_multi(): Argument #1 ($values) must be of type array, Closure given
  resource => TypeError: shmcache_set_multi(): Argument #1 ($values) must be of type array, resource given
  enum => TypeError: shmcache_set_multi(): Argument #1 ($values) must be of type array, BadSuit given
shmcache_set_multi #2 $ttl:
  null => TypeError: Argument `$ttl` must not be null
  true, false, 0, -1, PHP_INT_MAX, PHP_INT_MIN, 2.0, "0", " 12", "1e3" => ret array(0)
  1.5, NAN, INF, -INF, 1e20 => TypeError: shmcache_set_multi(): Argument #2 ($ttl) must be of type int, float given
  "", "abc", "12abc", "2^63", "\0", binary, 4096 bytes, 4097 bytes => TypeError: shmcache_set_multi(): Argument #2 ($ttl) must be of type int, string given
  [], [1,2] => TypeError: shmcache_set_multi(): Argument #2 ($ttl) must be of type int, array given
  stdClass => TypeError: shmcache_set_multi(): Argument #2 ($ttl) must be of type int, stdClass given
  Stringable => TypeError: shmcache_set_multi(): Argument #2 ($ttl) must be of type int, BadStringable given
  Closure => TypeError: shmcache_set_multi(): Argument #2 ($ttl) must be of type int, Closure given
  resource => TypeError: shmcache_set_multi(): Argument #2 ($ttl) must be of type int, resource given
  enum => TypeError: shmcache_set_multi(): Argument #2 ($ttl) must be of type int, BadSuit given
shmcache_add #1 $key:
  null => TypeError: shmcache_add(): Argument #1 ($key) must be of type string, null given
  true, false => TypeError: shmcache_add(): Argument #1 ($key) must be of type string, bool given
  0, -1, PHP_INT_MAX, PHP_INT_MIN, "0", "abc", "12abc", " 12", "1e3", "2^63", "\0", binary, 4096 bytes => ret true
  1.5, 2.0, NAN, INF, -INF, 1e20 => TypeError: shmcache_add(): Argument #1 ($key) must be of type string, float given
  "" => ValueError: shmcache_add(): Argument #1 ($key) cannot be empty
  4097 bytes => ValueError: shmcache_add(): Argument #1 ($key) must be at most 4096 bytes long, 4097 given
  [], [1,2] => TypeError: shmcache_add(): Argument #1 ($key) must be of type string, array given
  stdClass => TypeError: shmcache_add(): Argument #1 ($key) must be of type string, stdClass given
  Stringable => TypeError: shmcache_add(): Argument #1 ($key) must be of type string, BadStringable given
  Closure => TypeError: shmcache_add(): Argument #1 ($key) must be of type string, Closure given
  resource => TypeError: shmcache_add(): Argument #1 ($key) must be of type string, resource given
  enum => TypeError: shmcache_add(): Argument #1 ($key) must be of type string, BadSuit given
shmcache_add #2 $value:
  null, true, false, 0, -1, PHP_INT_MAX, PHP_INT_MIN, 1.5, 2.0, NAN, INF, -INF, 1e20, "", "0", "abc", "12abc", " 12", "1e3", "2^63", "\0", binary, 4096 bytes, 4097 bytes, [], [1,2], stdClass, Stringable, enum => ret true
  Closure => Exception: Serialization of 'Closure' is not allowed
  resource => TypeError: shmcache_add(): Argument #2 ($value) cannot be a resource
shmcache_add #3 $ttl:
  null => TypeError: Argument `$ttl` must not be null
  true, false, 0, -1, PHP_INT_MAX, PHP_INT_MIN, 2.0, "0", " 12", "1e3" => ret true
  1.5, NAN, INF, -INF, 1e20 => TypeError: shmcache_add(): Argument #3 ($ttl) must be of type int, float given
  "", "abc", "12abc", "2^63", "\0", binary, 4096 bytes, 4097 bytes => TypeError: shmcache_add(): Argument #3 ($ttl) must be of type int, string given
  [], [1,2] => TypeError: shmcache_add(): Argument #3 ($ttl) must be of type int, array given
  stdClass => TypeError: shmcache_add(): Argument #3 ($ttl) must be of type int, stdClass given
  Stringable => TypeError: shmcache_add(): Argument #3 ($ttl) must be of type int, BadStringable given
  Closure => TypeError: shmcache_add(): Argument #3 ($ttl) must be of type int, Closure given
  resource => TypeError: shmcache_add(): Argument #3 ($ttl) must be of type int, resource given
  enum => TypeError: shmcache_add(): Argument #3 ($ttl) must be of type int, BadSuit given
shmcache_replace #1 $key:
  null => TypeError: shmcache_replace(): Argument #1 ($key) must be of type string, null given
  true, false => TypeError: shmcache_replace(): Argument #1 ($key) must be of type string, bool given
  0, -1, PHP_INT_MAX, PHP_INT_MIN, "0", "abc", "12abc", " 12", "1e3", "2^63", "\0", binary, 4096 bytes => ret false
  1.5, 2.0, NAN, INF, -INF, 1e20 => TypeError: shmcache_replace(): Argument #1 ($key) must be of type string, float given
  "" => ValueError: shmcache_replace(): Argument #1 ($key) cannot be empty
  4097 bytes => ValueError: shmcache_replace(): Argument #1 ($key) must be at most 4096 bytes long, 4097 given
  [], [1,2] => TypeError: shmcache_replace(): Argument #1 ($key) must be of type string, array given
  stdClass => TypeError: shmcache_replace(): Argument #1 ($key) must be of type string, stdClass given
  Stringable => TypeError: shmcache_replace(): Argument #1 ($key) must be of type string, BadStringable given
  Closure => TypeError: shmcache_replace(): Argument #1 ($key) must be of type string, Closure given
  resource => TypeError: shmcache_replace(): Argument #1 ($key) must be of type string, resource given
  enum => TypeError: shmcache_replace(): Argument #1 ($key) must be of type string, BadSuit given
shmcache_replace #2 $value:
  null, true, false, 0, -1, PHP_INT_MAX, PHP_INT_MIN, 1.5, 2.0, NAN, INF, -INF, 1e20, "", "0", "abc", "12abc", " 12", "1e3", "2^63", "\0", binary, 4096 bytes, 4097 bytes, [], [1,2], stdClass, Stringable, enum => ret true
  Closure => Exception: Serialization of 'Closure' is not allowed
  resource => TypeError: shmcache_replace(): Argument #2 ($value) cannot be a resource
shmcache_replace #3 $ttl:
  null => TypeError: Argument `$ttl` must not be null
  true, false, 0, -1, PHP_INT_MAX, PHP_INT_MIN, 2.0, "0", " 12", "1e3" => ret true
  1.5, NAN, INF, -INF, 1e20 => TypeError: shmcache_replace(): Argument #3 ($ttl) must be of type int, float given
  "", "abc", "12abc", "2^63", "\0", binary, 4096 bytes, 4097 bytes => TypeError: shmcache_replace(): Argument #3 ($ttl) must be of type int, string given
  [], [1,2] => TypeError: shmcache_replace(): Argument #3 ($ttl) must be of type int, array given
  stdClass => TypeError: shmcache_replace(): Argument #3 ($ttl) must be of type int, stdClass given
  Stringable => TypeError: shmcache_replace(): Argument #3 ($ttl) must be of type int, BadStringable given
  Closure => TypeError: shmcache_replace(): Argument #3 ($ttl) must be of type int, Closure given
  resource => TypeError: shmcache_replace(): Argument #3 ($ttl) must be of type int, resource given
  enum => TypeError: shmcache_replace(): Argument #3 ($ttl) must be of type int, BadSuit given
shmcache_cas #1 $key:
  null => TypeError: shmcache_cas(): Argument #1 ($key) must be of type string, null given
  true, false => TypeError: shmcache_cas(): Argument #1 ($key) must be of type string, bool given
  0, -1, PHP_INT_MAX, PHP_INT_MIN, "0", "abc", "12abc", " 12", "1e3", "2^63", "\0", binary, 4096 bytes => ret false
  1.5, 2.0, NAN, INF, -INF, 1e20 => TypeError: shmcache_cas(): Argument #1 ($key) must be of type string, float given
  "" => ValueError: shmcache_cas(): Argument #1 ($key) cannot be empty
  4097 bytes => ValueError: shmcache_cas(): Argument #1 ($key) must be at most 4096 bytes long, 4097 given
  [], [1,2] => TypeError: shmcache_cas(): Argument #1 ($key) must be of type string, array given
  stdClass => TypeError: shmcache_cas(): Argument #1 ($key) must be of type string, stdClass given
  Stringable => TypeError: shmcache_cas(): Argument #1 ($key) must be of type string, BadStringable given
  Closure => TypeError: shmcache_cas(): Argument #1 ($key) must be of type string, Closure given
  resource => TypeError: shmcache_cas(): Argument #1 ($key) must be of type string, resource given
  enum => TypeError: shmcache_cas(): Argument #1 ($key) must be of type string, BadSuit given
shmcache_cas #2 $old:
  null => TypeError: shmcache_cas(): Argument #2 ($old) must be of type int, null given
  true => ret true
  false, 0, -1, PHP_INT_MAX, PHP_INT_MIN, 2.0, "0", " 12", "1e3" => ret false
  1.5, NAN, INF, -INF, 1e20 => TypeError: shmcache_cas(): Argument #2 ($old) must be of type int, float given
  "", "abc", "12abc", "2^63", "\0", binary, 4096 bytes, 4097 bytes => TypeError: shmcache_cas(): Argument #2 ($old) must be of type int, string given
  [], [1,2] => TypeError: shmcache_cas(): Argument #2 ($old) must be of type int, array given
  stdClass => TypeError: shmcache_cas(): Argument #2 ($old) must be of type int, stdClass given
  Stringable => TypeError: shmcache_cas(): Argument #2 ($old) must be of type int, BadStringable given
  Closure => TypeError: shmcache_cas(): Argument #2 ($old) must be of type int, Closure given
  resource => TypeError: shmcache_cas(): Argument #2 ($old) must be of type int, resource given
  enum => TypeError: shmcache_cas(): Argument #2 ($old) must be of type int, BadSuit given
shmcache_cas #3 $new:
  null => TypeError: shmcache_cas(): Argument #3 ($new) must be of type int, null given
  true, false, 0, -1, PHP_INT_MAX, PHP_INT_MIN, 2.0, "0", " 12", "1e3" => ret true
  1.5, NAN, INF, -INF, 1e20 => TypeError: shmcache_cas(): Argument #3 ($new) must be of type int, float given
  "", "abc", "12abc", "2^63", "\0", binary, 4096 bytes, 4097 bytes => TypeError: shmcache_cas(): Argument #3 ($new) must be of type int, string given
  [], [1,2] => TypeError: shmcache_cas(): Argument #3 ($new) must be of type int, array given
  stdClass => TypeError: shmcache_cas(): Argument #3 ($new) must be of type int, stdClass given
  Stringable => TypeError: shmcache_cas(): Argument #3 ($new) must be of type int, BadStringable given
  Closure => TypeError: shmcache_cas(): Argument #3 ($new) must be of type int, Closure given
  resource => TypeError: shmcache_cas(): Argument #3 ($new) must be of type int, resource given
  enum => TypeError: shmcache_cas(): Argument #3 ($new) must be of type int, BadSuit given
shmcache_incr #1 $key:
  null => TypeError: shmcache_incr(): Argument #1 ($key) must be of type string, null given
  true, false => TypeError: shmcache_incr(): Argument #1 ($key) must be of type string, bool given
  0, -1, PHP_INT_MAX, PHP_INT_MIN, "0", "abc", "12abc", " 12", "1e3", "2^63", "\0", binary, 4096 bytes => ret false
  1.5, 2.0, NAN, INF, -INF, 1e20 => TypeError: shmcache_incr(): Argument #1 ($key) must be of type string, float given
  "" => ValueError: shmcache_incr(): Argument #1 ($key) cannot be empty
  4097 bytes => ValueError: shmcache_incr(): Argument #1 ($key) must be at most 4096 bytes long, 4097 given
  [], [1,2] => TypeError: shmcache_incr(): Argument #1 ($key) must be of type string, array given
  stdClass => TypeError: shmcache_incr(): Argument #1 ($key) must be of type string, stdClass given
  Stringable => TypeError: shmcache_incr(): Argument #1 ($key) must be of type string, BadStringable given
  Closure => TypeError: shmcache_incr(): Argument #1 ($key) must be of type string, Closure given
  resource => TypeError: shmcache_incr(): Argument #1 ($key) must be of type string, resource given
  enum => TypeError: shmcache_incr(): Argument #1 ($key) must be of type string, BadSuit given
shmcache_incr #2 $step:
  null => TypeError: Argument `$step` must not be null
  true => ret 2
  false, 0, "0" => ret 1
  -1 => ret 0
  PHP_INT_MAX => ret -9223372036854775807-1
  PHP_INT_MIN => ret -9223372036854775807
  1.5, NAN, INF, -INF, 1e20 => TypeError: shmcache_incr(): Argument #2 ($step) must be of type int, float given
  2.0 => ret 3
  "", "abc", "12abc", "2^63", "\0", binary, 4096 bytes, 4097 bytes => TypeError: shmcache_incr(): Argument #2 ($step) must be of type int, string given
  " 12" => ret 13
  "1e3" => ret 1001
  [], [1,2] => TypeError: shmcache_incr(): Argument #2 ($step) must be of type int, array given
  stdClass => TypeError: shmcache_incr(): Argument #2 ($step) must be of type int, stdClass given
  Stringable => TypeError: shmcache_incr(): Argument #2 ($step) must be of type int, BadStringable given
  Closure => TypeError: shmcache_incr(): Argument #2 ($step) must be of type int, Closure given
  resource => TypeError: shmcache_incr(): Argument #2 ($step) must be of type int, resource given
  enum => TypeError: shmcache_incr(): Argument #2 ($step) must be of type int, BadSuit given
shmcache_decr #1 $key:
  null => TypeError: shmcache_decr(): Argument #1 ($key) must be of type string, null given
  true, false => TypeError: shmcache_decr(): Argument #1 ($key) must be of type string, bool given
  0, -1, PHP_INT_MAX, PHP_INT_MIN, "0", "abc", "12abc", " 12", "1e3", "2^63", "\0", binary, 4096 bytes => ret false
  1.5, 2.0, NAN, INF, -INF, 1e20 => TypeError: shmcache_decr(): Argument #1 ($key) must be of type string, float given
  "" => ValueError: shmcache_decr(): Argument #1 ($key) cannot be empty
  4097 bytes => ValueError: shmcache_decr(): Argument #1 ($key) must be at most 4096 bytes long, 4097 given
  [], [1,2] => TypeError: shmcache_decr(): Argument #1 ($key) must be of type string, array given
  stdClass => TypeError: shmcache_decr(): Argument #1 ($key) must be of type string, stdClass given
  Stringable => TypeError: shmcache_decr(): Argument #1 ($key) must be of type string, BadStringable given
  Closure => TypeError: shmcache_decr(): Argument #1 ($key) must be of type string, Closure given
  resource => TypeError: shmcache_decr(): Argument #1 ($key) must be of type string, resource given
  enum => TypeError: shmcache_decr(): Argument #1 ($key) must be of type string, BadSuit given
shmcache_decr #2 $step:
  null => TypeError: Argument `$step` must not be null
  true => ret 0
  false, 0, "0" => ret 1
  -1 => ret 2
  PHP_INT_MAX => ret -9223372036854775806
  PHP_INT_MIN => ret -9223372036854775807
  1.5, NAN, INF, -INF, 1e20 => TypeError: shmcache_decr(): Argument #2 ($step) must be of type int, float given
  2.0 => ret -1
  "", "abc", "12abc", "2^63", "\0", binary, 4096 bytes, 4097 bytes => TypeError: shmcache_decr(): Argument #2 ($step) must be of type int, string given
  " 12" => ret -11
  "1e3" => ret -999
  [], [1,2] => TypeError: shmcache_decr(): Argument #2 ($step) must be of type int, array given
  stdClass => TypeError: shmcache_decr(): Argument #2 ($step) must be of type int, stdClass given
  Stringable => TypeError: shmcache_decr(): Argument #2 ($step) must be of type int, BadStringable given
  Closure => TypeError: shmcache_decr(): Argument #2 ($step) must be of type int, Closure given
  resource => TypeError: shmcache_decr(): Argument #2 ($step) must be of type int, resource given
  enum => TypeError: shmcache_decr(): Argument #2 ($step) must be of type int, BadSuit given
shmcache_delete #1 $key:
  null => TypeError: shmcache_delete(): Argument #1 ($key) must be of type string, null given
  true, false => TypeError: shmcache_delete(): Argument #1 ($key) must be of type string, bool given
  0, -1, PHP_INT_MAX, PHP_INT_MIN, "0", "abc", "12abc", " 12", "1e3", "2^63", "\0", binary, 4096 bytes => ret false
  1.5, 2.0, NAN, INF, -INF, 1e20 => TypeError: shmcache_delete(): Argument #1 ($key) must be of type string, float given
  "" => ValueError: shmcache_delete(): Argument #1 ($key) cannot be empty
  4097 bytes => ValueError: shmcache_delete(): Argument #1 ($key) must be at most 4096 bytes long, 4097 given
  [], [1,2] => TypeError: shmcache_delete(): Argument #1 ($key) must be of type string, array given
  stdClass => TypeError: shmcache_delete(): Argument #1 ($key) must be of type string, stdClass given
  Stringable => TypeError: shmcache_delete(): Argument #1 ($key) must be of type string, BadStringable given
  Closure => TypeError: shmcache_delete(): Argument #1 ($key) must be of type string, Closure given
  resource => TypeError: shmcache_delete(): Argument #1 ($key) must be of type string, resource given
  enum => TypeError: shmcache_delete(): Argument #1 ($key) must be of type string, BadSuit given
shmcache_exists #1 $key:
  null => TypeError: shmcache_exists(): Argument #1 ($key) must be of type string, null given
  true, false => TypeError: shmcache_exists(): Argument #1 ($key) must be of type string, bool given
  0, -1, PHP_INT_MAX, PHP_INT_MIN, "0", "abc", "12abc", " 12", "1e3", "2^63", "\0", binary, 4096 bytes => ret false
  1.5, 2.0, NAN, INF, -INF, 1e20 => TypeError: shmcache_exists(): Argument #1 ($key) must be of type string, float given
  "" => ValueError: shmcache_exists(): Argument #1 ($key) cannot be empty
  4097 bytes => ValueError: shmcache_exists(): Argument #1 ($key) must be at most 4096 bytes long, 4097 given
  [], [1,2] => TypeError: shmcache_exists(): Argument #1 ($key) must be of type string, array given
  stdClass => TypeError: shmcache_exists(): Argument #1 ($key) must be of type string, stdClass given
  Stringable => TypeError: shmcache_exists(): Argument #1 ($key) must be of type string, BadStringable given
  Closure => TypeError: shmcache_exists(): Argument #1 ($key) must be of type string, Closure given
  resource => TypeError: shmcache_exists(): Argument #1 ($key) must be of type string, resource given
  enum => TypeError: shmcache_exists(): Argument #1 ($key) must be of type string, BadSuit given
shmcache_get_multi element:
  null => TypeError: shmcache_get_multi(): Argument #1 ($keys) element must be of type string, null given
  true, false => TypeError: shmcache_get_multi(): Argument #1 ($keys) element must be of type string, bool given
  0, -1, PHP_INT_MAX, PHP_INT_MIN, "0", "abc", "12abc", " 12", "1e3", "2^63", "\0", binary, 4096 bytes => ret array(1)
  1.5, 2.0, NAN, INF, -INF, 1e20 => TypeError: shmcache_get_multi(): Argument #1 ($keys) element must be of type string, float given
  "" => ValueError: shmcache_get_multi(): Argument #1 ($keys) element cannot be empty
  4097 bytes => ValueError: shmcache_get_multi(): Argument #1 ($keys) element must be at most 4096 bytes long, 4097 given
  [], [1,2] => TypeError: shmcache_get_multi(): Argument #1 ($keys) element must be of type string, array given
  stdClass => TypeError: shmcache_get_multi(): Argument #1 ($keys) element must be of type string, stdClass given
  Stringable => TypeError: shmcache_get_multi(): Argument #1 ($keys) element must be of type string, BadStringable given
  Closure => TypeError: shmcache_get_multi(): Argument #1 ($keys) element must be of type string, Closure given
  resource => TypeError: shmcache_get_multi(): Argument #1 ($keys) element must be of type string, resource given
  enum => TypeError: shmcache_get_multi(): Argument #1 ($keys) element must be of type string, BadSuit given
shmcache_set_multi value:
  null, true, false, 0, -1, PHP_INT_MAX, PHP_INT_MIN, 1.5, 2.0, NAN, INF, -INF, 1e20, "", "0", "abc", "12abc", " 12", "1e3", "2^63", "\0", binary, 4096 bytes, 4097 bytes, [], [1,2], stdClass, Stringable, enum => ret array(0) (x1 stored)
  Closure => Exception: Serialization of 'Closure' is not allowed
  resource => TypeError: shmcache_set_multi(): Argument #1 ($values) element cannot be a resource
set_multi keys: ValueError: shmcache_set_multi(): Argument #1 ($values) key cannot be empty
set_multi keys: ValueError: shmcache_set_multi(): Argument #1 ($values) key must be at most 4096 bytes long, 4097 given
set_multi keys: ret array(0)
get_multi integer 2d35 => 1
get_multi integer 39323233333732303336383534373735383037 => 2
get_multi string 00 => 3
ttl 9223372036854775807: set true, visible true
ttl -9223372036854775808: set true, visible false
ttl -1: set true, visible false
ttl 1: set true, visible true
ttl 0: set true, visible true
incr 9223372036854775807 by 1: -9223372036854775807-1; decr: 9223372036854775806
incr -9223372036854775808 by -1: 9223372036854775807; decr: -9223372036854775807
incr 0 by -9223372036854775808: -9223372036854775807-1; decr: -9223372036854775807-1
incr 9223372036854775807 by 9223372036854775807: -2; decr: 0
still works: true
