--TEST--
Plain stdClass objects are stored in the native encoding and read back exactly as unserialize(serialize()) gives them; shared instances, cycles, references, subclasses and deep nesting still go through serialize()
--INI--
pcre.jit=0
--FILE--
<?php
// PHP's own round trip is the reference: same classes, property names (and their key types),
// order, value types and bits. Object handles (#n) differ between runs and are left out.
function shape($v): string {
    ob_start();
    var_dump($v);
    return preg_replace('/#\d+/', '#', ob_get_clean());
}
function check(string $name, $v): void {
    shmcache_set("std:$name", $v);
    $got = shmcache_get("std:$name", $found);
    $want = shape(unserialize(serialize($v)));
    printf("%-12s %s\n", $name, $found && shape($got) === $want ? 'same' : "DIFFERENT\n" . shape($got) . "want:\n$want");
}

$post = new stdClass;
foreach (['ID' => 7, 'post_title' => 'Hello', 'post_status' => 'publish', 'comment_count' => '3',
          'post_parent' => 0, 'filter' => 'raw', 'score' => -0.0, 'ratio' => NAN, 'sticky' => false,
          'none' => null, 'bin' => "nul\0\xff"] as $k => $v) {
    $post->$k = $v;
}
check('post', $post);
check('empty', new stdClass);
check('numeric', (object) ['0' => 'zero', '12' => 'twelve', '-3' => 'minus three', '1.5' => 'not an int']);
check('odd names', (object) ['' => 'empty name', "\0*\0looks_protected" => 1, "k\0ey" => 2]);
$unset = (object) ['a' => 1, 'b' => 2, 'c' => 3];
unset($unset->b);
$unset->d = 4;
check('holes', $unset);
check('nested', (object) ['row' => (object) ['meta' => ['list' => [(object) ['x' => 1], (object) []]]]]);
check('rows', array_map(fn($i) => (object) ['id' => $i, 'name' => "row $i"], range(1, 300)));
check('in array', ['a' => 1, 'obj' => (object) ['k' => 'v'], 5 => [(object) ['deep' => true]]]);

// Same instance twice, a cycle, a reference between properties: serialize() keeps these, and
// so must we.
$shared = (object) ['n' => 1];
$pair = ['first' => $shared, 'second' => (object) ['inner' => $shared]];
check('shared', $pair);
$g = shmcache_get('std:shared');
$g['first']->n = 2;
var_dump($g['second']->inner->n);
$many = array_map(fn($i) => (object) ['i' => $i], range(0, 99));
$many[] = $many[3];
check('shared late', $many);
$g = shmcache_get('std:shared late');
$g[3]->i = 'changed';
var_dump($g[100]->i);
$cycle = (object) ['name' => 'cycle'];
$cycle->self = $cycle;
check('cycle', $cycle);
$g = shmcache_get('std:cycle');
var_dump($g->self === $g);
$refs = (object) ['a' => 1];
$refs->b = &$refs->a;
check('reference', $refs);
$g = shmcache_get('std:reference');
$g->b = 99;
var_dump($g->a);

// A subclass of stdClass is its own class, whatever its properties.
class Row extends stdClass {
    public function label() { return "row {$this->id}"; }
}
$row = new Row;
$row->id = 5;
check('subclass', $row);
var_dump(shmcache_get('std:subclass')->label());

// Deeper than the native encoding nests: serialize() takes it, the value is the same.
$deep = (object) ['bottom' => true];
for ($i = 0; $i < 100; $i++) {
    $deep = (object) ['level' => $i, 'next' => $deep];
}
check('deep', $deep);

// Every read is a new object, independent of the stored value and of other reads.
$a = shmcache_get('std:post');
$b = shmcache_get('std:post');
$a->post_title .= '!';
$a->added = 1;
var_dump($a !== $b, $b->post_title, isset($b->added), shmcache_get('std:post')->post_title);
$m = shmcache_get_multi(['std:post', 'std:nested', 'std:missing']);
var_dump(array_keys($m), shape($m['std:nested']) === shape(unserialize(serialize(shmcache_get('std:nested')))));
$c = new ShmCache('objects');
$c->set('p', $post);
var_dump(shape($c->get('p')) === shape($post));

// Stored natively: the native encoding of these 200 boolean properties takes 10 bytes each
// (tag, length, name, value tag), serialize() 15 ("s:4:"pNNN";b:1;"), so the whole entry,
// header and key included, is smaller than serialize()'s output alone (both stay below the
// compression threshold).
$wide = new stdClass;
for ($i = 100; $i < 300; $i++) {
    $wide->{"p$i"} = true;
}
$before = shmcache_info()['values_used_bytes'];
shmcache_set('std:wide', $wide);
$grew = shmcache_info()['values_used_bytes'] - $before;
var_dump($grew < 0.8 * strlen(serialize($wide)), shape(shmcache_get('std:wide')) === shape($wide));

// A resource anywhere in a stdClass is refused, and nothing is stored.
$res = (object) ['ok' => 1, 'inner' => (object) ['f' => fopen('php://memory', 'r')]];
try {
    shmcache_set('std:resource', $res);
} catch (TypeError $e) {
    echo $e->getMessage(), "\n";
}
var_dump(shmcache_exists('std:resource'));
// Cycles broken and collected, so that a leak check of this test (scripts/valgrind.sh) reports
// only what the extension itself leaked.
$cycle->self = null;
gc_collect_cycles();
?>
--EXPECT--
post         same
empty        same
numeric      same
odd names    same
holes        same
nested       same
rows         same
in array     same
shared       same
int(2)
shared late  same
string(7) "changed"
cycle        same
bool(true)
reference    same
int(99)
subclass     same
string(5) "row 5"
deep         same
bool(true)
string(5) "Hello"
bool(false)
string(5) "Hello"
array(2) {
  [0]=>
  string(8) "std:post"
  [1]=>
  string(10) "std:nested"
}
bool(true)
bool(true)
bool(true)
bool(true)
shmcache_set(): Argument #2 ($value) cannot contain a resource
bool(false)
