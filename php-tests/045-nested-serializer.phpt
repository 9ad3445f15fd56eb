--TEST--
A get or set made by user code inside another serialize()/unserialize() stores and reads the value itself (its references are its own)
--INI--
error_reporting=E_ALL & ~E_DEPRECATED
--FILE--
<?php
// A value with a reference goes through PHP's serializer; 'alias' is bound to 'authenticated'.
$session = ['authenticated' => false, 'admin' => true, 'list' => [1, 2]];
$session['alias'] = &$session['authenticated'];
var_dump(shmcache_set('session', $session));

function check_session($got, string $where) {
    $ok = is_array($got) && $got['authenticated'] === false && $got['admin'] === true && $got['list'] === [1, 2];
    // The reference links the value's own elements, nothing else.
    $got['alias'] = 'changed';
    $ok = $ok && $got['authenticated'] === 'changed' && $got['admin'] === true;
    echo $where, ': ', $ok ? 'ok' : 'WRONG ' . var_export($got, true), "\n";
}

// 1. get from Serializable::unserialize (PHP shares one back-reference table with nested calls)
class ViaSerializable implements Serializable {
    public $payload; public $got;
    function serialize() { return serialize($this->payload); }
    function unserialize($data) { $this->payload = unserialize($data); $this->got = shmcache_get('session'); }
}
$o = new ViaSerializable; $o->payload = ['x' => [1, 2, 3], 'y' => new ArrayObject([4])];
$r = unserialize(serialize([$o, [5, 6], $o]));
check_session($r[0]->got, 'Serializable::unserialize');
var_dump($r[0] === $r[2], $r[1] === [5, 6], $r[0]->payload['x'] === [1, 2, 3]);

// 2. get from __wakeup and __unserialize
class ViaWakeup { public $a = [1, 2]; public $got; function __wakeup() { $this->got = shmcache_get('session'); } }
class ViaUnserialize { public $got; function __serialize(): array { return ['k' => [3]]; }
    function __unserialize(array $d): void { $this->got = shmcache_get('session'); } }
$r = unserialize(serialize([new ArrayObject([1]), new ViaWakeup, new ViaUnserialize]));
check_session($r[1]->got, '__wakeup');
check_session($r[2]->got, '__unserialize');

// 3. set from Serializable::serialize and from __serialize: the value stored reads back whole
class SetInSerialize implements Serializable {
    public $v;
    function serialize() {
        $shared = new ArrayObject([7]);
        var_dump(shmcache_set('from-serialize', [$shared, $shared, 'outer' => $this->v]));
        return 'x';
    }
    function unserialize($d) {}
}
class SetInMagic { function __serialize(): array {
    $o = new stdClass; $o->z = 1;
    $v = ['a' => $o, 'b' => $o];
    var_dump(shmcache_set('from-__serialize', $v));
    return []; } }
$s = new SetInSerialize; $s->v = new ArrayObject([1]);
serialize([$s->v, $s]);
$g = shmcache_get('from-serialize', $found);
var_dump($found, $g[0] instanceof ArrayObject && $g[0] === $g[1] && $g[0]->getArrayCopy() === [7], $g['outer']->getArrayCopy() === [1]);
serialize([new stdClass, new SetInMagic]);
$g = shmcache_get('from-__serialize', $found);
var_dump($found, $g['a'] === $g['b'] && $g['a']->z === 1);

// 4. a stored value whose own Serializable member nests unserialize() with back-references
class Nested implements Serializable {
    public $items;
    function serialize() { return serialize($this->items); }
    function unserialize($d) { $this->items = unserialize($d); }
}
$shared = new stdClass; $shared->n = 5;
$n = new Nested; $n->items = [$shared, $shared];
var_dump(shmcache_set('nested', ['n' => $n, 's' => $shared]));
$g = shmcache_get('nested');
$plain = unserialize(serialize(['n' => $n, 's' => $shared]));
var_dump($g == $plain, $g['n']->items[0] === $g['n']->items[1], $g['s']->n === 5);

// 5. nothing of the outer call is disturbed: after all this, a plain round trip still works
$x = [1]; $y = ['p' => &$x, 'q' => &$x];
$back = unserialize(serialize($y));
$back['p'][] = 2;
var_dump($back['q'] === [1, 2]);
?>
--EXPECT--
bool(true)
Serializable::unserialize: ok
bool(true)
bool(true)
bool(true)
__wakeup: ok
__unserialize: ok
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
