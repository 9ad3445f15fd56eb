--TEST--
add stores only when absent, replace only when present
--FILE--
<?php
var_dump(shmcache_add('ar:k', 'first'));       // absent -> stored
var_dump(shmcache_add('ar:k', 'second'));      // present -> refused
var_dump(shmcache_get('ar:k'));
var_dump(shmcache_replace('ar:k', 'third'));   // present -> stored
var_dump(shmcache_get('ar:k'));
var_dump(shmcache_replace('ar:none', 'x'));    // absent -> refused
var_dump(shmcache_exists('ar:none'));
// A stored false/null counts as present.
shmcache_set('ar:false', false);
var_dump(shmcache_add('ar:false', 'x'), shmcache_get('ar:false'));
var_dump(shmcache_replace('ar:false', null), shmcache_get('ar:false', $found), $found);
var_dump(shmcache_add('ar:false', 'x'));
// After delete, add works again and replace does not.
shmcache_delete('ar:k');
var_dump(shmcache_replace('ar:k', 'x'), shmcache_add('ar:k', 'after delete'), shmcache_get('ar:k'));
// After flush too.
shmcache_flush();
var_dump(shmcache_replace('ar:k', 'x'), shmcache_add('ar:k', 'after flush'), shmcache_get('ar:k'));
// add/replace with a TTL keep working with add's semantics
var_dump(shmcache_add('ar:ttl', 1, 100), shmcache_add('ar:ttl', 2, 100), shmcache_get('ar:ttl'));
// replace can change the type
var_dump(shmcache_replace('ar:ttl', ['now' => 'an array']), shmcache_get('ar:ttl'));
// Namespaces are separate for add and replace
$a = new ShmCache('ar-a');
$b = new ShmCache('ar-b');
var_dump($a->add('k', 'a'), $b->add('k', 'b'), $a->add('k', 'a2'), shmcache_add('k', 'root'));
var_dump($a->get('k'), $b->get('k'), shmcache_get('k'));
var_dump($a->replace('k', 'a3'), $a->replace('other', 'x'), $a->get('k'), $b->get('k'));
// The sets counter moves for successful add/replace only
$before = shmcache_info()['sets'];
shmcache_add('ar:count', 1);    // +1
shmcache_add('ar:count', 2);    // refused
shmcache_replace('ar:count', 3); // +1
shmcache_replace('ar:nope', 4); // refused
var_dump(shmcache_info()['sets'] - $before);
?>
--EXPECT--
bool(true)
bool(false)
string(5) "first"
bool(true)
string(5) "third"
bool(false)
bool(false)
bool(false)
bool(false)
bool(true)
NULL
bool(true)
bool(false)
bool(false)
bool(true)
string(12) "after delete"
bool(false)
bool(true)
string(11) "after flush"
bool(true)
bool(false)
int(1)
bool(true)
array(1) {
  ["now"]=>
  string(8) "an array"
}
bool(true)
bool(true)
bool(false)
bool(true)
string(1) "a"
string(1) "b"
string(4) "root"
bool(true)
bool(false)
string(2) "a3"
string(1) "b"
int(2)
