--TEST--
Objects round-trip: plain, with visibility, __serialize/__unserialize, __sleep/__wakeup, enums, objects in arrays, references
--FILE--
<?php
class Point {
    public $x;
    protected $y;
    private $z;
    public ?Point $next = null;
    public function __construct($x, $y, $z) { $this->x = $x; $this->y = $y; $this->z = $z; }
    public function yz() { return [$this->y, $this->z]; }
}

class Custom {
    public array $data;
    public bool $restored = false;
    public function __construct(array $data) { $this->data = $data; }
    public function __serialize(): array { return ['packed' => implode(',', $this->data)]; }
    public function __unserialize(array $d): void { $this->data = explode(',', $d['packed']); $this->restored = true; }
}

class Sleepy {
    public $keep = 'kept';
    public $drop = 'dropped';
    public $woken = false;
    public function __sleep() { return ['keep']; }
    public function __wakeup() { $this->woken = true; }
}

enum Suit: string { case Hearts = 'H'; case Spades = 'S'; }
enum Pure { case One; case Two; }

// stdClass with dynamic properties
$o = new stdClass;
$o->a = 1;
$o->list = [1, 2, "x" => "bin"];
$o->child = new stdClass;
$o->child->name = 'child';
var_dump(shmcache_set('obj:std', $o));
$g = shmcache_get('obj:std');
var_dump($g == $o, $g !== $o, get_class($g), $g->child->name, $g->list);

// Class with public/protected/private properties and a nested object
$p = new Point(1, 2.5, 'three');
$p->next = new Point(4, 5, 6);
shmcache_set('obj:point', $p);
$g = shmcache_get('obj:point');
var_dump(get_class($g), $g->x, $g->yz(), $g->next->yz(), $g == $p);

// __serialize / __unserialize are used
shmcache_set('obj:custom', new Custom(['a', 'b', 'c']));
$g = shmcache_get('obj:custom');
var_dump($g->data, $g->restored);

// __sleep / __wakeup are used
$s = new Sleepy;
$s->keep = 'changed';
shmcache_set('obj:sleepy', $s);
$g = shmcache_get('obj:sleepy');
var_dump($g->keep, $g->drop, $g->woken);

// Enums come back as the very same case
shmcache_set('obj:enum', Suit::Spades);
var_dump(shmcache_get('obj:enum') === Suit::Spades);
shmcache_set('obj:enums', [Pure::Two, 'suit' => Suit::Hearts]);
$g = shmcache_get('obj:enums');
var_dump($g[0] === Pure::Two, $g['suit'] === Suit::Hearts);

// Arrays containing objects, with shared identity preserved inside one value
$shared = new stdClass;
$shared->n = 1;
$arr = ['first' => $shared, 'second' => $shared, 'other' => new Point(7, 8, 9), 'scalar' => 3];
shmcache_set('obj:array', $arr);
$g = shmcache_get('obj:array');
var_dump($g['first'] === $g['second'], $g['first'] !== $shared, $g['first']->n, $g['other']->yz(), $g['scalar']);
$g['first']->n = 2;
var_dump($g['second']->n);

// References inside arrays are preserved inside one value
$r = ['a' => 1, 'list' => [10, 20]];
$r['b'] = &$r['a'];
$r['l2'] = &$r['list'];
shmcache_set('obj:refs', $r);
$g = shmcache_get('obj:refs');
var_dump($g['a'], $g['b']);
$g['b'] = 99;
var_dump($g['a']);
$g['l2'][] = 30;
var_dump($g['list']);

// A self-referencing object graph
$loop = new stdClass;
$loop->self = $loop;
shmcache_set('obj:loop', $loop);
$g = shmcache_get('obj:loop');
var_dump($g->self === $g);

// ArrayObject and DateTime (internal classes with their own serialization)
shmcache_set('obj:ao', new ArrayObject(['x' => 1, 'y' => [2]]));
$g = shmcache_get('obj:ao');
var_dump(get_class($g), $g->getArrayCopy());
$d = new DateTimeImmutable('2001-02-03 04:05:06', new DateTimeZone('UTC'));
shmcache_set('obj:date', $d);
var_dump(shmcache_get('obj:date')->format('c'));

// Objects through the class API and get_multi
$c = new ShmCache('objects');
$c->set('p', new Point('nsx', 0, 0));
var_dump($c->get('p')->x);
shmcache_set('obj:m1', new Point('m1', 0, 0));
$m = shmcache_get_multi(['obj:m1', 'obj:nope', 'obj:custom']);
var_dump(array_keys($m), $m['obj:m1']->x, $m['obj:custom']->data);
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
string(8) "stdClass"
string(5) "child"
array(3) {
  [0]=>
  int(1)
  [1]=>
  int(2)
  ["x"]=>
  string(3) "bin"
}
string(5) "Point"
int(1)
array(2) {
  [0]=>
  float(2.5)
  [1]=>
  string(5) "three"
}
array(2) {
  [0]=>
  int(5)
  [1]=>
  int(6)
}
bool(true)
array(3) {
  [0]=>
  string(1) "a"
  [1]=>
  string(1) "b"
  [2]=>
  string(1) "c"
}
bool(true)
string(7) "changed"
string(7) "dropped"
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
int(1)
array(2) {
  [0]=>
  int(8)
  [1]=>
  int(9)
}
int(3)
int(2)
int(1)
int(1)
int(99)
array(3) {
  [0]=>
  int(10)
  [1]=>
  int(20)
  [2]=>
  int(30)
}
bool(true)
string(11) "ArrayObject"
array(2) {
  ["x"]=>
  int(1)
  ["y"]=>
  array(1) {
    [0]=>
    int(2)
  }
}
string(25) "2001-02-03T04:05:06+00:00"
string(3) "nsx"
array(2) {
  [0]=>
  string(6) "obj:m1"
  [1]=>
  string(10) "obj:custom"
}
string(2) "m1"
array(3) {
  [0]=>
  string(1) "a"
  [1]=>
  string(1) "b"
  [2]=>
  string(1) "c"
}
