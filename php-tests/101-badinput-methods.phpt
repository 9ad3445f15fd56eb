--TEST--
Bad-input matrix: ShmCache constructor and every method with wrong types, empty, binary, boundary and oversized values; object misuse (clone, serialize, reflection)
--INI--
memory_limit=512M
--FILE--
<?php
require __DIR__ . '/inc/badinput.inc';
// The constructor's namespace.
$groups = [];
foreach (bad_values() + ['1024 bytes' => str_repeat('n', 1024), '1025 bytes' => str_repeat('n', 1025)] as $vl => $v) {
    $groups[bad_outcome(function () use ($v) {
        $c = new ShmCache($v);
        return $c->set('k', 1) && $c->get('k') === 1;
    })][] = $vl;
}
echo "new ShmCache \$namespace:\n";
foreach ($groups as $o => $l) {
    echo '  ', implode(', ', $l), " => $o\n";
}
$c = new ShmCache("bad\0input\xff");
$reset = function () use ($c) {
    shmcache_flush();
    $c->set('k', 'v');
    $c->set('n', 1);
};
bad_matrix([
    'get' => [[$c, 'get'], ['k'], ['key']],
    'getMulti' => [[$c, 'getMulti'], [['k', 'n']], ['keys']],
    'set' => [[$c, 'set'], ['k', 1, 0], ['key', 'value', 'ttl']],
    'setMulti' => [[$c, 'setMulti'], [['k' => 1], 0], ['values', 'ttl']],
    'add' => [[$c, 'add'], ['new', 1, 0], ['key', 'value', 'ttl']],
    'replace' => [[$c, 'replace'], ['k', 1, 0], ['key', 'value', 'ttl']],
    'cas' => [[$c, 'cas'], ['n', 1, 2], ['key', 'old', 'new']],
    'incr' => [[$c, 'incr'], ['n', 1], ['key', 'step']],
    'decr' => [[$c, 'decr'], ['n', 1], ['key', 'step']],
    'delete' => [[$c, 'delete'], ['k'], ['key']],
    'exists' => [[$c, 'exists'], ['k'], ['key']],
], $reset);
// Argument counts, named arguments, by-reference $found, object misuse.
$cases = [
    'set() one arg' => fn() => $c->set('a'),
    'set() four args' => fn() => $c->set('a', 1, 2, 3),
    'flush(1)' => fn() => $c->flush(1),
    'info(1)' => fn() => $c->info(1),
    'shmcache_info(1)' => fn() => shmcache_info(1),
    'shmcache_flush(1)' => fn() => shmcache_flush(1),
    'shmcache_get()' => fn() => shmcache_get(),
    'named ok' => fn() => shmcache_set(key: 'a', value: 1, ttl: 5),
    'named unknown' => fn() => shmcache_set(key: 'a', value: 1, nope: 5),
    'get $found = string' => function () { $f = 'x'; shmcache_get('missing', $f); return $f; },
    'get $found = array' => function () { $f = [1]; shmcache_get('a', $f); return $f; },
    'clone' => fn() => clone $c,
    'serialize' => fn() => serialize($c),
    'unserialize' => fn() => unserialize('O:8:"ShmCache":0:{}'),
    'without constructor' => fn() => (new ReflectionClass('ShmCache'))->newInstanceWithoutConstructor(),
    'static call' => fn() => ShmCache::get('a'),
    'constructor again' => function () { $d = new ShmCache('one'); $d->__construct('two'); return $d->info()['namespace']; },
    'json_encode' => fn() => json_encode($c),
    'references in arrays' => function () use ($c) { $v = 5; $k = 'r'; $c->setMulti(['r' => &$v]); return $c->getMulti([&$k]); },
    'self-referencing array' => function () use ($c) { $a = [1]; $a[] = &$a; return $c->set('self', $a) && is_array($c->get('self')); },
    'object cycle' => function () use ($c) { $o = new stdClass(); $o->o = $o; return $c->set('cyc', $o) && $c->get('cyc')->o instanceof stdClass; },
    'generator' => fn() => $c->set('g', (function () { yield 1; })()),
    'WeakMap' => fn() => $c->set('wm', new WeakMap()),
    'nested 5000 deep' => function () use ($c) { $a = []; for ($i = 0; $i < 5000; $i++) { $a = [$a]; } return [$c->set('deep', $a), $c->get('deep')]; },
];
foreach ($cases as $label => $fn) {
    echo "$label: ", bad_outcome($fn), "\n";
}
echo "still works: ", var_export($c->set('ok', 1) && $c->get('ok') === 1, true), "\n";
?>
--EXPECT--
new ShmCache $namespace:
  null => TypeError: Argument `$namespace` must not be null
  true, false => TypeError: ShmCache::__construct(): Argument #1 ($namespace) must be of type string, bool given
  0, -1, PHP_INT_MAX, PHP_INT_MIN, "", "0", "abc", "12abc", " 12", "1e3", "2^63", "\0", binary, 1024 bytes => ret true
  1.5, 2.0, NAN, INF, -INF, 1e20 => TypeError: ShmCache::__construct(): Argument #1 ($namespace) must be of type string, float given
  4096 bytes => ValueError: ShmCache::__construct(): Argument #1 ($namespace) is invalid: namespace is 4096 bytes long; the maximum is 1024
  4097 bytes => ValueError: ShmCache::__construct(): Argument #1 ($namespace) is invalid: namespace is 4097 bytes long; the maximum is 1024
  [], [1,2] => TypeError: ShmCache::__construct(): Argument #1 ($namespace) must be of type string, array given
  stdClass => TypeError: ShmCache::__construct(): Argument #1 ($namespace) must be of type string, stdClass given
  Stringable => TypeError: ShmCache::__construct(): Argument #1 ($namespace) must be of type string, BadStringable given
  Closure => TypeError: ShmCache::__construct(): Argument #1 ($namespace) must be of type string, Closure given
  resource => TypeError: ShmCache::__construct(): Argument #1 ($namespace) must be of type string, resource given
  enum => TypeError: ShmCache::__construct(): Argument #1 ($namespace) must be of type string, BadSuit given
  1025 bytes => ValueError: ShmCache::__construct(): Argument #1 ($namespace) is invalid: namespace is 1025 bytes long; the maximum is 1024
get #1 $key:
  null => TypeError: ShmCache::get(): Argument #1 ($key) must be of type string, null given
  true, false => TypeError: ShmCache::get(): Argument #1 ($key) must be of type string, bool given
  0, -1, PHP_INT_MAX, PHP_INT_MIN, "0", "abc", "12abc", " 12", "1e3", "2^63", "\0", binary, 4096 bytes => ret false
  1.5, 2.0, NAN, INF, -INF, 1e20 => TypeError: ShmCache::get(): Argument #1 ($key) must be of type string, float given
  "" => ValueError: ShmCache::get(): Argument #1 ($key) cannot be empty
  4097 bytes => ValueError: ShmCache::get(): Argument #1 ($key) must be at most 4096 bytes long, 4097 given
  [], [1,2] => TypeError: ShmCache::get(): Argument #1 ($key) must be of type string, array given
  stdClass => TypeError: ShmCache::get(): Argument #1 ($key) must be of type string, stdClass given
  Stringable => TypeError: ShmCache::get(): Argument #1 ($key) must be of type string, BadStringable given
  Closure => TypeError: ShmCache::get(): Argument #1 ($key) must be of type string, Closure given
  resource => TypeError: ShmCache::get(): Argument #1 ($key) must be of type string, resource given
  enum => TypeError: ShmCache::get(): Argument #1 ($key) must be of type string, BadSuit given
getMulti #1 $keys:
  null => TypeError: ShmCache::getMulti(): Argument #1 ($keys) must be of type array, null given
  true, false => TypeError: ShmCache::getMulti(): Argument #1 ($keys) must be of type array, bool given
  0, -1, PHP_INT_MAX, PHP_INT_MIN => TypeError: ShmCache::getMulti(): Argument #1 ($keys) must be of type array, int given
  1.5, 2.0, NAN, INF, -INF, 1e20 => TypeError: ShmCache::getMulti(): Argument #1 ($keys) must be of type array, float given
  "", "0", "abc", "12abc", " 12", "1e3", "2^63", "\0", binary, 4096 bytes, 4097 bytes => TypeError: ShmCache::getMulti(): Argument #1 ($keys) must be of type array, string given
  [], [1,2] => ret array(0)
  stdClass => TypeError: ShmCache::getMulti(): Argument #1 ($keys) must be of type array, stdClass given
  Stringable => TypeError: ShmCache::getMulti(): Argument #1 ($keys) must be of type array, BadStringable given
  Closure => TypeError: ShmCache::getMulti(): Argument #1 ($keys) must be of type array, Closure given
  resource => TypeError: ShmCache::getMulti(): Argument #1 ($keys) must be of type array, resource given
  enum => TypeError: ShmCache::getMulti(): Argument #1 ($keys) must be of type array, BadSuit given
set #1 $key:
  null => TypeError: ShmCache::set(): Argument #1 ($key) must be of type string, null given
  true, false => TypeError: ShmCache::set(): Argument #1 ($key) must be of type string, bool given
  0, -1, PHP_INT_MAX, PHP_INT_MIN, "0", "abc", "12abc", " 12", "1e3", "2^63", "\0", binary, 4096 bytes => ret true
  1.5, 2.0, NAN, INF, -INF, 1e20 => TypeError: ShmCache::set(): Argument #1 ($key) must be of type string, float given
  "" => ValueError: ShmCache::set(): Argument #1 ($key) cannot be empty
  4097 bytes => ValueError: ShmCache::set(): Argument #1 ($key) must be at most 4096 bytes long, 4097 given
  [], [1,2] => TypeError: ShmCache::set(): Argument #1 ($key) must be of type string, array given
  stdClass => TypeError: ShmCache::set(): Argument #1 ($key) must be of type string, stdClass given
  Stringable => TypeError: ShmCache::set(): Argument #1 ($key) must be of type string, BadStringable given
  Closure => TypeError: ShmCache::set(): Argument #1 ($key) must be of type string, Closure given
  resource => TypeError: ShmCache::set(): Argument #1 ($key) must be of type string, resource given
  enum => TypeError: ShmCache::set(): Argument #1 ($key) must be of type string, BadSuit given
set #2 $value:
  null, true, false, 0, -1, PHP_INT_MAX, PHP_INT_MIN, 1.5, 2.0, NAN, INF, -INF, 1e20, "", "0", "abc", "12abc", " 12", "1e3", "2^63", "\0", binary, 4096 bytes, 4097 bytes, [], [1,2], stdClass, Stringable, enum => ret true
  Closure => Exception: Serialization of 'Closure' is not allowed
  resource => TypeError: ShmCache::set(): Argument #2 ($value) cannot be a resource
set #3 $ttl:
  null => TypeError: Argument `$ttl` must not be null
  true, false, 0, -1, PHP_INT_MAX, PHP_INT_MIN, 2.0, "0", " 12", "1e3" => ret true
  1.5, NAN, INF, -INF, 1e20 => TypeError: ShmCache::set(): Argument #3 ($ttl) must be of type int, float given
  "", "abc", "12abc", "2^63", "\0", binary, 4096 bytes, 4097 bytes => TypeError: ShmCache::set(): Argument #3 ($ttl) must be of type int, string given
  [], [1,2] => TypeError: ShmCache::set(): Argument #3 ($ttl) must be of type int, array given
  stdClass => TypeError: ShmCache::set(): Argument #3 ($ttl) must be of type int, stdClass given
  Stringable => TypeError: ShmCache::set(): Argument #3 ($ttl) must be of type int, BadStringable given
  Closure => TypeError: ShmCache::set(): Argument #3 ($ttl) must be of type int, Closure given
  resource => TypeError: ShmCache::set(): Argument #3 ($ttl) must be of type int, resource given
  enum => TypeError: ShmCache::set(): Argument #3 ($ttl) must be of type int, BadSuit given
setMulti #1 $values:
  null => TypeError: ShmCache::setMulti(): Argument #1 ($values) must be of type array, null given
  true, false => TypeError: ShmCache::setMulti(): Argument #1 ($values) must be of type array, bool given
  0, -1, PHP_INT_MAX, PHP_INT_MIN => TypeError: ShmCache::setMulti(): Argument #1 ($values) must be of type array, int given
  1.5, 2.0, NAN, INF, -INF, 1e20 => TypeError: ShmCache::setMulti(): Argument #1 ($values) must be of type array, float given
  "", "0", "abc", "12abc", " 12", "1e3", "2^63", "\0", binary, 4096 bytes, 4097 bytes => TypeError: ShmCache::setMulti(): Argument #1 ($values) must be of type array, string given
  [], [1,2] => ret array(0)
  stdClass => TypeError: ShmCache::setMulti(): Argument #1 ($values) must be of type array, stdClass given
  Stringable => TypeError: ShmCache::setMulti(): Argument #1 ($values) must be of type array, BadStringable given
  Closure => TypeError: ShmCache::setMulti(): Argument #1 ($values) must be of type array, Closure given
  resource => TypeError: ShmCache::setMulti(): Argument #1 ($values) must be of type array, resource given
  enum => TypeError: ShmCache::setMulti(): Argument #1 ($values) must be of type array, BadSuit given
setMulti #2 $ttl:
  null => TypeError: Argument `$ttl` must not be null
  true, false, 0, -1, PHP_INT_MAX, PHP_INT_MIN, 2.0, "0", " 12", "1e3" => ret array(0)
  1.5, NAN, INF, -INF, 1e20 => TypeError: ShmCache::setMulti(): Argument #2 ($ttl) must be of type int, float given
  "", "abc", "12abc", "2^63", "\0", binary, 4096 bytes, 4097 bytes => TypeError: ShmCache::setMulti(): Argument #2 ($ttl) must be of type int, string given
  [], [1,2] => TypeError: ShmCache::setMulti(): Argument #2 ($ttl) must be of type int, array given
  stdClass => TypeError: ShmCache::setMulti(): Argument #2 ($ttl) must be of type int, stdClass given
  Stringable => TypeError: ShmCache::setMulti(): Argument #2 ($ttl) must be of type int, BadStringable given
  Closure => TypeError: ShmCache::setMulti(): Argument #2 ($ttl) must be of type int, Closure given
  resource => TypeError: ShmCache::setMulti(): Argument #2 ($ttl) must be of type int, resource given
  enum => TypeError: ShmCache::setMulti(): Argument #2 ($ttl) must be of type int, BadSuit given
add #1 $key:
  null => TypeError: ShmCache::add(): Argument #1 ($key) must be of type string, null given
  true, false => TypeError: ShmCache::add(): Argument #1 ($key) must be of type string, bool given
  0, -1, PHP_INT_MAX, PHP_INT_MIN, "0", "abc", "12abc", " 12", "1e3", "2^63", "\0", binary, 4096 bytes => ret true
  1.5, 2.0, NAN, INF, -INF, 1e20 => TypeError: ShmCache::add(): Argument #1 ($key) must be of type string, float given
  "" => ValueError: ShmCache::add(): Argument #1 ($key) cannot be empty
  4097 bytes => ValueError: ShmCache::add(): Argument #1 ($key) must be at most 4096 bytes long, 4097 given
  [], [1,2] => TypeError: ShmCache::add(): Argument #1 ($key) must be of type string, array given
  stdClass => TypeError: ShmCache::add(): Argument #1 ($key) must be of type string, stdClass given
  Stringable => TypeError: ShmCache::add(): Argument #1 ($key) must be of type string, BadStringable given
  Closure => TypeError: ShmCache::add(): Argument #1 ($key) must be of type string, Closure given
  resource => TypeError: ShmCache::add(): Argument #1 ($key) must be of type string, resource given
  enum => TypeError: ShmCache::add(): Argument #1 ($key) must be of type string, BadSuit given
add #2 $value:
  null, true, false, 0, -1, PHP_INT_MAX, PHP_INT_MIN, 1.5, 2.0, NAN, INF, -INF, 1e20, "", "0", "abc", "12abc", " 12", "1e3", "2^63", "\0", binary, 4096 bytes, 4097 bytes, [], [1,2], stdClass, Stringable, enum => ret true
  Closure => Exception: Serialization of 'Closure' is not allowed
  resource => TypeError: ShmCache::add(): Argument #2 ($value) cannot be a resource
add #3 $ttl:
  null => TypeError: Argument `$ttl` must not be null
  true, false, 0, -1, PHP_INT_MAX, PHP_INT_MIN, 2.0, "0", " 12", "1e3" => ret true
  1.5, NAN, INF, -INF, 1e20 => TypeError: ShmCache::add(): Argument #3 ($ttl) must be of type int, float given
  "", "abc", "12abc", "2^63", "\0", binary, 4096 bytes, 4097 bytes => TypeError: ShmCache::add(): Argument #3 ($ttl) must be of type int, string given
  [], [1,2] => TypeError: ShmCache::add(): Argument #3 ($ttl) must be of type int, array given
  stdClass => TypeError: ShmCache::add(): Argument #3 ($ttl) must be of type int, stdClass given
  Stringable => TypeError: ShmCache::add(): Argument #3 ($ttl) must be of type int, BadStringable given
  Closure => TypeError: ShmCache::add(): Argument #3 ($ttl) must be of type int, Closure given
  resource => TypeError: ShmCache::add(): Argument #3 ($ttl) must be of type int, resource given
  enum => TypeError: ShmCache::add(): Argument #3 ($ttl) must be of type int, BadSuit given
replace #1 $key:
  null => TypeError: ShmCache::replace(): Argument #1 ($key) must be of type string, null given
  true, false => TypeError: ShmCache::replace(): Argument #1 ($key) must be of type string, bool given
  0, -1, PHP_INT_MAX, PHP_INT_MIN, "0", "abc", "12abc", " 12", "1e3", "2^63", "\0", binary, 4096 bytes => ret false
  1.5, 2.0, NAN, INF, -INF, 1e20 => TypeError: ShmCache::replace(): Argument #1 ($key) must be of type string, float given
  "" => ValueError: ShmCache::replace(): Argument #1 ($key) cannot be empty
  4097 bytes => ValueError: ShmCache::replace(): Argument #1 ($key) must be at most 4096 bytes long, 4097 given
  [], [1,2] => TypeError: ShmCache::replace(): Argument #1 ($key) must be of type string, array given
  stdClass => TypeError: ShmCache::replace(): Argument #1 ($key) must be of type string, stdClass given
  Stringable => TypeError: ShmCache::replace(): Argument #1 ($key) must be of type string, BadStringable given
  Closure => TypeError: ShmCache::replace(): Argument #1 ($key) must be of type string, Closure given
  resource => TypeError: ShmCache::replace(): Argument #1 ($key) must be of type string, resource given
  enum => TypeError: ShmCache::replace(): Argument #1 ($key) must be of type string, BadSuit given
replace #2 $value:
  null, true, false, 0, -1, PHP_INT_MAX, PHP_INT_MIN, 1.5, 2.0, NAN, INF, -INF, 1e20, "", "0", "abc", "12abc", " 12", "1e3", "2^63", "\0", binary, 4096 bytes, 4097 bytes, [], [1,2], stdClass, Stringable, enum => ret true
  Closure => Exception: Serialization of 'Closure' is not allowed
  resource => TypeError: ShmCache::replace(): Argument #2 ($value) cannot be a resource
replace #3 $ttl:
  null => TypeError: Argument `$ttl` must not be null
  true, false, 0, -1, PHP_INT_MAX, PHP_INT_MIN, 2.0, "0", " 12", "1e3" => ret true
  1.5, NAN, INF, -INF, 1e20 => TypeError: ShmCache::replace(): Argument #3 ($ttl) must be of type int, float given
  "", "abc", "12abc", "2^63", "\0", binary, 4096 bytes, 4097 bytes => TypeError: ShmCache::replace(): Argument #3 ($ttl) must be of type int, string given
  [], [1,2] => TypeError: ShmCache::replace(): Argument #3 ($ttl) must be of type int, array given
  stdClass => TypeError: ShmCache::replace(): Argument #3 ($ttl) must be of type int, stdClass given
  Stringable => TypeError: ShmCache::replace(): Argument #3 ($ttl) must be of type int, BadStringable given
  Closure => TypeError: ShmCache::replace(): Argument #3 ($ttl) must be of type int, Closure given
  resource => TypeError: ShmCache::replace(): Argument #3 ($ttl) must be of type int, resource given
  enum => TypeError: ShmCache::replace(): Argument #3 ($ttl) must be of type int, BadSuit given
cas #1 $key:
  null => TypeError: ShmCache::cas(): Argument #1 ($key) must be of type string, null given
  true, false => TypeError: ShmCache::cas(): Argument #1 ($key) must be of type string, bool given
  0, -1, PHP_INT_MAX, PHP_INT_MIN, "0", "abc", "12abc", " 12", "1e3", "2^63", "\0", binary, 4096 bytes => ret false
  1.5, 2.0, NAN, INF, -INF, 1e20 => TypeError: ShmCache::cas(): Argument #1 ($key) must be of type string, float given
  "" => ValueError: ShmCache::cas(): Argument #1 ($key) cannot be empty
  4097 bytes => ValueError: ShmCache::cas(): Argument #1 ($key) must be at most 4096 bytes long, 4097 given
  [], [1,2] => TypeError: ShmCache::cas(): Argument #1 ($key) must be of type string, array given
  stdClass => TypeError: ShmCache::cas(): Argument #1 ($key) must be of type string, stdClass given
  Stringable => TypeError: ShmCache::cas(): Argument #1 ($key) must be of type string, BadStringable given
  Closure => TypeError: ShmCache::cas(): Argument #1 ($key) must be of type string, Closure given
  resource => TypeError: ShmCache::cas(): Argument #1 ($key) must be of type string, resource given
  enum => TypeError: ShmCache::cas(): Argument #1 ($key) must be of type string, BadSuit given
cas #2 $old:
  null => TypeError: ShmCache::cas(): Argument #2 ($old) must be of type int, null given
  true => ret true
  false, 0, -1, PHP_INT_MAX, PHP_INT_MIN, 2.0, "0", " 12", "1e3" => ret false
  1.5, NAN, INF, -INF, 1e20 => TypeError: ShmCache::cas(): Argument #2 ($old) must be of type int, float given
  "", "abc", "12abc", "2^63", "\0", binary, 4096 bytes, 4097 bytes => TypeError: ShmCache::cas(): Argument #2 ($old) must be of type int, string given
  [], [1,2] => TypeError: ShmCache::cas(): Argument #2 ($old) must be of type int, array given
  stdClass => TypeError: ShmCache::cas(): Argument #2 ($old) must be of type int, stdClass given
  Stringable => TypeError: ShmCache::cas(): Argument #2 ($old) must be of type int, BadStringable given
  Closure => TypeError: ShmCache::cas(): Argument #2 ($old) must be of type int, Closure given
  resource => TypeError: ShmCache::cas(): Argument #2 ($old) must be of type int, resource given
  enum => TypeError: ShmCache::cas(): Argument #2 ($old) must be of type int, BadSuit given
cas #3 $new:
  null => TypeError: ShmCache::cas(): Argument #3 ($new) must be of type int, null given
  true, false, 0, -1, PHP_INT_MAX, PHP_INT_MIN, 2.0, "0", " 12", "1e3" => ret true
  1.5, NAN, INF, -INF, 1e20 => TypeError: ShmCache::cas(): Argument #3 ($new) must be of type int, float given
  "", "abc", "12abc", "2^63", "\0", binary, 4096 bytes, 4097 bytes => TypeError: ShmCache::cas(): Argument #3 ($new) must be of type int, string given
  [], [1,2] => TypeError: ShmCache::cas(): Argument #3 ($new) must be of type int, array given
  stdClass => TypeError: ShmCache::cas(): Argument #3 ($new) must be of type int, stdClass given
  Stringable => TypeError: ShmCache::cas(): Argument #3 ($new) must be of type int, BadStringable given
  Closure => TypeError: ShmCache::cas(): Argument #3 ($new) must be of type int, Closure given
  resource => TypeError: ShmCache::cas(): Argument #3 ($new) must be of type int, resource given
  enum => TypeError: ShmCache::cas(): Argument #3 ($new) must be of type int, BadSuit given
incr #1 $key:
  null => TypeError: ShmCache::incr(): Argument #1 ($key) must be of type string, null given
  true, false => TypeError: ShmCache::incr(): Argument #1 ($key) must be of type string, bool given
  0, -1, PHP_INT_MAX, PHP_INT_MIN, "0", "abc", "12abc", " 12", "1e3", "2^63", "\0", binary, 4096 bytes => ret false
  1.5, 2.0, NAN, INF, -INF, 1e20 => TypeError: ShmCache::incr(): Argument #1 ($key) must be of type string, float given
  "" => ValueError: ShmCache::incr(): Argument #1 ($key) cannot be empty
  4097 bytes => ValueError: ShmCache::incr(): Argument #1 ($key) must be at most 4096 bytes long, 4097 given
  [], [1,2] => TypeError: ShmCache::incr(): Argument #1 ($key) must be of type string, array given
  stdClass => TypeError: ShmCache::incr(): Argument #1 ($key) must be of type string, stdClass given
  Stringable => TypeError: ShmCache::incr(): Argument #1 ($key) must be of type string, BadStringable given
  Closure => TypeError: ShmCache::incr(): Argument #1 ($key) must be of type string, Closure given
  resource => TypeError: ShmCache::incr(): Argument #1 ($key) must be of type string, resource given
  enum => TypeError: ShmCache::incr(): Argument #1 ($key) must be of type string, BadSuit given
incr #2 $step:
  null => TypeError: Argument `$step` must not be null
  true => ret 2
  false, 0, "0" => ret 1
  -1 => ret 0
  PHP_INT_MAX => ret -9223372036854775807-1
  PHP_INT_MIN => ret -9223372036854775807
  1.5, NAN, INF, -INF, 1e20 => TypeError: ShmCache::incr(): Argument #2 ($step) must be of type int, float given
  2.0 => ret 3
  "", "abc", "12abc", "2^63", "\0", binary, 4096 bytes, 4097 bytes => TypeError: ShmCache::incr(): Argument #2 ($step) must be of type int, string given
  " 12" => ret 13
  "1e3" => ret 1001
  [], [1,2] => TypeError: ShmCache::incr(): Argument #2 ($step) must be of type int, array given
  stdClass => TypeError: ShmCache::incr(): Argument #2 ($step) must be of type int, stdClass given
  Stringable => TypeError: ShmCache::incr(): Argument #2 ($step) must be of type int, BadStringable given
  Closure => TypeError: ShmCache::incr(): Argument #2 ($step) must be of type int, Closure given
  resource => TypeError: ShmCache::incr(): Argument #2 ($step) must be of type int, resource given
  enum => TypeError: ShmCache::incr(): Argument #2 ($step) must be of type int, BadSuit given
decr #1 $key:
  null => TypeError: ShmCache::decr(): Argument #1 ($key) must be of type string, null given
  true, false => TypeError: ShmCache::decr(): Argument #1 ($key) must be of type string, bool given
  0, -1, PHP_INT_MAX, PHP_INT_MIN, "0", "abc", "12abc", " 12", "1e3", "2^63", "\0", binary, 4096 bytes => ret false
  1.5, 2.0, NAN, INF, -INF, 1e20 => TypeError: ShmCache::decr(): Argument #1 ($key) must be of type string, float given
  "" => ValueError: ShmCache::decr(): Argument #1 ($key) cannot be empty
  4097 bytes => ValueError: ShmCache::decr(): Argument #1 ($key) must be at most 4096 bytes long, 4097 given
  [], [1,2] => TypeError: ShmCache::decr(): Argument #1 ($key) must be of type string, array given
  stdClass => TypeError: ShmCache::decr(): Argument #1 ($key) must be of type string, stdClass given
  Stringable => TypeError: ShmCache::decr(): Argument #1 ($key) must be of type string, BadStringable given
  Closure => TypeError: ShmCache::decr(): Argument #1 ($key) must be of type string, Closure given
  resource => TypeError: ShmCache::decr(): Argument #1 ($key) must be of type string, resource given
  enum => TypeError: ShmCache::decr(): Argument #1 ($key) must be of type string, BadSuit given
decr #2 $step:
  null => TypeError: Argument `$step` must not be null
  true => ret 0
  false, 0, "0" => ret 1
  -1 => ret 2
  PHP_INT_MAX => ret -9223372036854775806
  PHP_INT_MIN => ret -9223372036854775807
  1.5, NAN, INF, -INF, 1e20 => TypeError: ShmCache::decr(): Argument #2 ($step) must be of type int, float given
  2.0 => ret -1
  "", "abc", "12abc", "2^63", "\0", binary, 4096 bytes, 4097 bytes => TypeError: ShmCache::decr(): Argument #2 ($step) must be of type int, string given
  " 12" => ret -11
  "1e3" => ret -999
  [], [1,2] => TypeError: ShmCache::decr(): Argument #2 ($step) must be of type int, array given
  stdClass => TypeError: ShmCache::decr(): Argument #2 ($step) must be of type int, stdClass given
  Stringable => TypeError: ShmCache::decr(): Argument #2 ($step) must be of type int, BadStringable given
  Closure => TypeError: ShmCache::decr(): Argument #2 ($step) must be of type int, Closure given
  resource => TypeError: ShmCache::decr(): Argument #2 ($step) must be of type int, resource given
  enum => TypeError: ShmCache::decr(): Argument #2 ($step) must be of type int, BadSuit given
delete #1 $key:
  null => TypeError: ShmCache::delete(): Argument #1 ($key) must be of type string, null given
  true, false => TypeError: ShmCache::delete(): Argument #1 ($key) must be of type string, bool given
  0, -1, PHP_INT_MAX, PHP_INT_MIN, "0", "abc", "12abc", " 12", "1e3", "2^63", "\0", binary, 4096 bytes => ret false
  1.5, 2.0, NAN, INF, -INF, 1e20 => TypeError: ShmCache::delete(): Argument #1 ($key) must be of type string, float given
  "" => ValueError: ShmCache::delete(): Argument #1 ($key) cannot be empty
  4097 bytes => ValueError: ShmCache::delete(): Argument #1 ($key) must be at most 4096 bytes long, 4097 given
  [], [1,2] => TypeError: ShmCache::delete(): Argument #1 ($key) must be of type string, array given
  stdClass => TypeError: ShmCache::delete(): Argument #1 ($key) must be of type string, stdClass given
  Stringable => TypeError: ShmCache::delete(): Argument #1 ($key) must be of type string, BadStringable given
  Closure => TypeError: ShmCache::delete(): Argument #1 ($key) must be of type string, Closure given
  resource => TypeError: ShmCache::delete(): Argument #1 ($key) must be of type string, resource given
  enum => TypeError: ShmCache::delete(): Argument #1 ($key) must be of type string, BadSuit given
exists #1 $key:
  null => TypeError: ShmCache::exists(): Argument #1 ($key) must be of type string, null given
  true, false => TypeError: ShmCache::exists(): Argument #1 ($key) must be of type string, bool given
  0, -1, PHP_INT_MAX, PHP_INT_MIN, "0", "abc", "12abc", " 12", "1e3", "2^63", "\0", binary, 4096 bytes => ret false
  1.5, 2.0, NAN, INF, -INF, 1e20 => TypeError: ShmCache::exists(): Argument #1 ($key) must be of type string, float given
  "" => ValueError: ShmCache::exists(): Argument #1 ($key) cannot be empty
  4097 bytes => ValueError: ShmCache::exists(): Argument #1 ($key) must be at most 4096 bytes long, 4097 given
  [], [1,2] => TypeError: ShmCache::exists(): Argument #1 ($key) must be of type string, array given
  stdClass => TypeError: ShmCache::exists(): Argument #1 ($key) must be of type string, stdClass given
  Stringable => TypeError: ShmCache::exists(): Argument #1 ($key) must be of type string, BadStringable given
  Closure => TypeError: ShmCache::exists(): Argument #1 ($key) must be of type string, Closure given
  resource => TypeError: ShmCache::exists(): Argument #1 ($key) must be of type string, resource given
  enum => TypeError: ShmCache::exists(): Argument #1 ($key) must be of type string, BadSuit given
set() one arg: ArgumentCountError: ShmCache::set() expects at least 2 arguments, 1 given
set() four args: ArgumentCountError: ShmCache::set() expects at most 3 arguments, 4 given
flush(1): ArgumentCountError: ShmCache::flush() expects exactly 0 arguments, 1 given
info(1): ArgumentCountError: ShmCache::info() expects exactly 0 arguments, 1 given
shmcache_info(1): ArgumentCountError: shmcache_info() expects exactly 0 arguments, 1 given
shmcache_flush(1): ArgumentCountError: shmcache_flush() expects exactly 0 arguments, 1 given
shmcache_get(): ArgumentCountError: shmcache_get() expects at least 1 argument, 0 given
named ok: ret true
named unknown: Error: Unknown named parameter $nope
get $found = string: ret false
get $found = array: ret true
clone: Error: Trying to clone an uncloneable object of class ShmCache
serialize: Exception: Serialization of 'ShmCache' is not allowed
unserialize: Exception: Unserialization of 'ShmCache' is not allowed
without constructor: ReflectionException: Class ShmCache is an internal class marked as final that cannot be instantiated without invoking its constructor
static call: Error: Non-static method ShmCache::get() cannot be called statically
constructor again: Error: ShmCache::__construct(): the object is already constructed; its namespace cannot change
json_encode: ret string(2)
references in arrays: ret array(1)
self-referencing array: ret true
object cycle: ret true
generator: Exception: Serialization of 'Generator' is not allowed
WeakMap: Exception: Serialization of 'WeakMap' is not allowed
nested 5000 deep: ret array(2) [E2: ShmCache::get(): Maximum depth of 4096 exceeded. The depth limit can be changed using the max_depth unserialize() option or the unserialize_max_depth ini setting]
still works: true
