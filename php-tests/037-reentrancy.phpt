--TEST--
User code run by serialize()/unserialize() may itself use the cache; its exceptions propagate
--FILE--
<?php
class ReadsOnWakeup {
    public $name;
    public $extra;
    public function __construct($name) { $this->name = $name; }
    public function __wakeup() { $this->extra = shmcache_get('other'); }
}
class WritesOnSerialize {
    public $v = 1;
    public function __serialize(): array { shmcache_set('side-effect', 'written during serialize'); return ['v' => $this->v]; }
    public function __unserialize(array $d): void { $this->v = $d['v']; shmcache_incr('unserialized'); }
}
class Nested {
    public $inner;
    public function __wakeup() { $this->inner = shmcache_get('reads-on-wakeup'); }
}
class ThrowsOnUnserialize {
    public function __unserialize(array $d): void { throw new RuntimeException('no thanks'); }
    public function __serialize(): array { return []; }
}
class ThrowsOnSerialize {
    public function __serialize(): array { throw new LogicException('cannot'); }
}

shmcache_set('other', ['some' => 'array']);
shmcache_set('reads-on-wakeup', new ReadsOnWakeup('first'));
$g = shmcache_get('reads-on-wakeup');
var_dump($g->name, $g->extra);

shmcache_set('unserialized', 0);
var_dump(shmcache_set('writes', new WritesOnSerialize));
var_dump(shmcache_get('side-effect'));
var_dump(shmcache_get('writes')->v, shmcache_get('writes')->v, shmcache_get('unserialized'));

// Two levels of gets nested inside unserialize()
shmcache_set('nested', new Nested);
$n = shmcache_get('nested');
var_dump($n->inner->name, $n->inner->extra);
$m = shmcache_get_multi(['nested', 'reads-on-wakeup']);
var_dump($m['nested']->inner->extra, $m['reads-on-wakeup']->name);

// Exceptions thrown by user code propagate out of get and set
shmcache_set('throws', new ThrowsOnUnserialize);
try { shmcache_get('throws'); echo "no exception\n"; } catch (RuntimeException $e) { echo get_class($e), ': ', $e->getMessage(), "\n"; }
// ... and out of get_multi, which stops at that key (the keys after it are not read)
$hits = shmcache_info()['hits'];
try { shmcache_get_multi(['after', 'throws', 'other']); echo "no exception\n"; } catch (RuntimeException $e) { echo get_class($e), ': ', $e->getMessage(), "\n"; }
var_dump(shmcache_info()['hits'] - $hits);
shmcache_set('ser', 'previous');
try { shmcache_set('ser', new ThrowsOnSerialize); echo "no exception\n"; } catch (LogicException $e) { echo get_class($e), ': ', $e->getMessage(), "\n"; }
var_dump(shmcache_get('ser'));
// The cache still works afterwards
var_dump(shmcache_set('after', 1), shmcache_get('after'), shmcache_get('other'));
?>
--EXPECT--
string(5) "first"
array(1) {
  ["some"]=>
  string(5) "array"
}
bool(true)
string(24) "written during serialize"
int(1)
int(1)
int(2)
string(5) "first"
array(1) {
  ["some"]=>
  string(5) "array"
}
array(1) {
  ["some"]=>
  string(5) "array"
}
string(5) "first"
RuntimeException: no thanks
RuntimeException: no thanks
int(1)
LogicException: cannot
string(8) "previous"
bool(true)
int(1)
array(1) {
  ["some"]=>
  string(5) "array"
}
