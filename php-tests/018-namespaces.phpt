--TEST--
Namespaces: ShmCache("a"), ShmCache("b") and the root functions are isolated; ->flush() is per namespace
--FILE--
<?php
require __DIR__ . '/inc/common.inc';
$a = new ShmCache('a');
$b = new ShmCache('b');
$root = new ShmCache('');
$def = new ShmCache();

var_dump($a->getNamespace(), $b->getNamespace(), $root->getNamespace(), $def->getNamespace());

// Same key, three scopes
shmcache_set('k', 'root');
$a->set('k', 'in a');
$b->set('k', 'in b');
var_dump(shmcache_get('k'), $a->get('k'), $b->get('k'));
// ShmCache("") and ShmCache() are the root namespace of the functions
var_dump($root->get('k'), $def->get('k'));
$root->set('r', 'via object');
var_dump(shmcache_get('r'));
// Only-in-one keys are misses elsewhere
$a->set('only-a', 1);
var_dump($b->exists('only-a'), shmcache_exists('only-a'), $a->exists('only-a'));
// delete in one namespace leaves the others
$b->set('del', 'b');
$a->set('del', 'a');
var_dump($a->delete('del'), $b->get('del'), $a->exists('del'));
// A second object for the same namespace sees the same data
$a2 = new ShmCache('a');
var_dump($a2->get('k'));
// Namespace names that are prefixes of each other, or look like key prefixes, stay separate
$ab = new ShmCache('ab');
$ab->set('k', 'in ab');
$a->set('bk', 'a + bk');
var_dump($ab->get('k'), $a->get('k'), $ab->get('bk'), shmcache_get('abk'), shmcache_get('ak'));
// Case matters
$A = new ShmCache('A');
var_dump($A->get('k'));

echo "-- ->flush() on one namespace\n";
$a->set('x', 1);
$b->set('x', 2);
shmcache_set('x', 3);
var_dump($a->flush());
var_dump($a->get('k'), $a->get('x'), $a->exists('only-a'), $a2->get('k'));
var_dump($b->get('k'), $b->get('x'), shmcache_get('k'), shmcache_get('x'), $ab->get('k'));
// The flushed namespace is usable again and the flush does not come back
var_dump($a->add('k', 'a again'), $a->get('k'), $a->get('x'));
var_dump($b->flush(), $b->get('k'), $a->get('k'), shmcache_get('k'));
// Flushing a namespace that was never used is fine
var_dump((new ShmCache('never used'))->flush());
// Repeated flushes
$a->set('z', 1);
var_dump($a->flush(), $a->flush(), $a->get('z'), shmcache_get('x'));

echo "-- ShmCache(\"\")->flush() flushes everything\n";
$a->set('k', 'a');
$b->set('k', 'b');
shmcache_set('k', 'root');
$i0 = shmcache_info();
var_dump($root->flush());
var_dump($a->get('k'), $b->get('k'), shmcache_get('k'), $ab->get('k'));
$i1 = shmcache_info();
var_dump($i1['flushes'] - $i0['flushes']);

echo "-- info()\n";
$ia = $a->info();
var_dump($ia['namespace'], $ia['enabled']);
var_dump($root->info()['namespace']);
var_dump(array_key_exists('namespace', shmcache_info()));
// info() of a namespace has the same counters as shmcache_info()
var_dump(array_diff(array_keys(shmcache_info()), array_keys($ia)));

echo "-- limits\n";
$n = new ShmCache(str_repeat('n', 1024));
var_dump(strlen($n->getNamespace()), $n->set('k', 1), $n->get('k'));
// The longest namespace with the longest key
$longKey = str_repeat('k', 4096);
var_dump($n->set($longKey, 'both at max'), $n->get($longKey), $n->exists(substr($longKey, 1)), shmcache_exists($longKey));
shm_try(fn() => new ShmCache(str_repeat('n', 1025)));
$bin = new ShmCache("\0\xff");
$bin->set('k', 'bin ns');
var_dump(bin2hex($bin->getNamespace()), bin2hex($bin->info()['namespace']), $bin->get('k'));
?>
--EXPECT--
string(1) "a"
string(1) "b"
string(0) ""
string(0) ""
string(4) "root"
string(4) "in a"
string(4) "in b"
string(4) "root"
string(4) "root"
string(10) "via object"
bool(false)
bool(false)
bool(true)
bool(true)
string(1) "b"
bool(false)
string(4) "in a"
string(5) "in ab"
string(4) "in a"
bool(false)
bool(false)
bool(false)
bool(false)
-- ->flush() on one namespace
bool(true)
bool(false)
bool(false)
bool(false)
bool(false)
string(4) "in b"
int(2)
string(4) "root"
int(3)
string(5) "in ab"
bool(true)
string(7) "a again"
bool(false)
bool(true)
bool(false)
string(7) "a again"
string(4) "root"
bool(true)
bool(true)
bool(true)
bool(false)
int(3)
-- ShmCache("")->flush() flushes everything
bool(true)
bool(false)
bool(false)
bool(false)
bool(false)
int(1)
-- info()
string(1) "a"
bool(true)
string(0) ""
bool(false)
array(0) {
}
-- limits
int(1024)
bool(true)
int(1)
bool(true)
string(11) "both at max"
bool(false)
bool(false)
ValueError: ShmCache::__construct(): Argument #1 ($namespace) is invalid: namespace is 1025 bytes long; the maximum is 1024
string(4) "00ff"
string(4) "00ff"
string(6) "bin ns"
