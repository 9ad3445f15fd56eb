--TEST--
Values read back are independent copies: changing a fetched or the original value never changes the cache
--FILE--
<?php
// Objects
$o = new stdClass;
$o->n = 1;
$o->inner = new stdClass;
$o->inner->m = 'a';
shmcache_set('copy:obj', $o);
$o->n = 2;                       // change the original after storing
$o->inner->m = 'b';
$g1 = shmcache_get('copy:obj');
var_dump($g1->n, $g1->inner->m);
$g1->n = 3;                      // change a fetched copy
$g1->inner->m = 'c';
$g1->extra = true;
$g2 = shmcache_get('copy:obj');
var_dump($g2->n, $g2->inner->m, isset($g2->extra), $g1 !== $g2, $g1->inner !== $g2->inner);

// Arrays (native encoding)
$a = ['x' => 1, 'list' => [1, 2]];
shmcache_set('copy:arr', $a);
$a['x'] = 2;
$a['list'][] = 3;
$g = shmcache_get('copy:arr');
var_dump($g['x'], count($g['list']));
$g['x'] = 5;
$g['list'][0] = 100;
unset($g['list'][1]);
$g2 = shmcache_get('copy:arr');
var_dump($g2 === ['x' => 1, 'list' => [1, 2]]);

// Arrays of objects
shmcache_set('copy:mix', ['o' => $o, 'i' => 1]);
$g = shmcache_get('copy:mix');
$g['o']->n = 'changed';
$g['i'] = 'changed';
$g2 = shmcache_get('copy:mix');
var_dump($g2['o']->n, $g2['i']);

// Arrays holding references: changing through a reference in a copy stays local
$r = ['a' => 1];
$r['b'] = &$r['a'];
shmcache_set('copy:ref', $r);
$r['b'] = 'orig changed';
$g = shmcache_get('copy:ref');
var_dump($g['a']);
$g['b'] = 'copy changed';
var_dump(shmcache_get('copy:ref')['a']);

// Strings
$s = 'hello';
shmcache_set('copy:str', $s);
$s[0] = 'J';
$g = shmcache_get('copy:str');
$g[0] = 'Y';
var_dump(shmcache_get('copy:str'));

// Namespaced and multi reads also return copies
$c = new ShmCache('copies');
$c->set('o', $o);
$x = $c->get('o');
$x->n = 'x';
var_dump($c->get('o')->n);
$m = shmcache_get_multi(['copy:obj']);
$m['copy:obj']->n = 'm';
var_dump(shmcache_get('copy:obj')->n);
?>
--EXPECT--
int(1)
string(1) "a"
int(1)
string(1) "a"
bool(false)
bool(true)
bool(true)
int(1)
int(2)
bool(true)
int(2)
int(1)
int(1)
int(1)
string(5) "hello"
int(2)
int(1)
