--TEST--
ShmCache is a final class with the documented methods; it cannot be extended, cloned or serialised
--FILE--
<?php
$rc = new ReflectionClass('ShmCache');
var_dump($rc->isFinal(), $rc->isInstantiable(), $rc->isInternal(), $rc->isAbstract());
// The documented methods (api.md allows additions)
$methods = array_map(fn($m) => $m->getName(), $rc->getMethods());
$documented = ['__construct', 'add', 'addMulti', 'cas', 'decr', 'delete', 'deleteMulti', 'exists', 'flush', 'get', 'getMulti',
               'getNamespace', 'incr', 'info', 'replace', 'set', 'setMulti', 'ttl'];
echo 'missing methods: ', implode(' ', array_diff($documented, $methods)) ?: 'none', "\n";
foreach ($rc->getMethods() as $m) {
    if (!$m->isPublic() || $m->isStatic()) echo $m->getName(), " is not a public instance method\n";
}

// The constructor's namespace defaults to the root ""
$c = new ShmCache();
var_dump($c->getNamespace());
var_dump($c instanceof ShmCache);

// Every method works on an instance (behaviour is tested in detail elsewhere)
$c = new ShmCache('class-test');
var_dump($c->set('k', 1), $c->get('k'), $c->getMulti(['k']), $c->setMulti(['m' => 2]),
         $c->add('a', 3), $c->replace('a', 4), $c->cas('a', 4, 5), $c->incr('a'), $c->decr('a'),
         $c->exists('a'), $c->delete('a'), is_array($c->info()), $c->flush(), $c->get('k'));

// Not cloneable, not serialisable: no half-initialised instance can exist
try { $x = clone $c; echo "cloned\n"; } catch (Error $e) { echo get_class($e), "\n"; }
try { serialize($c); echo "serialized\n"; } catch (Exception $e) { echo get_class($e), "\n"; }
try { unserialize('O:8:"ShmCache":0:{}'); echo "unserialized\n"; } catch (Exception $e) { echo get_class($e), "\n"; }
try { $rc->newInstanceWithoutConstructor(); echo "instantiated\n"; } catch (ReflectionException $e) { echo get_class($e), "\n"; }
// A ShmCache object is not a storable value
try { shmcache_set('self', $c); echo "stored\n"; } catch (Exception $e) { echo get_class($e), "\n"; }
var_dump(shmcache_exists('self'));

echo "extending:\n";
eval('class MyCache extends ShmCache {}');
echo "not reached\n";
?>
--EXPECTF--
bool(true)
bool(true)
bool(true)
bool(false)
missing methods: none
string(0) ""
bool(true)
bool(true)
int(1)
array(1) {
  ["k"]=>
  int(1)
}
array(0) {
}
bool(true)
bool(true)
bool(true)
int(6)
int(5)
bool(true)
bool(true)
bool(true)
bool(true)
bool(false)
Error
Exception
Exception
ReflectionException
Exception
bool(false)
extending:

Fatal error: Class MyCache cannot extend final class ShmCache in %s : eval()'d code on line 1
