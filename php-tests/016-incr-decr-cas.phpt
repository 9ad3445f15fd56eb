--TEST--
incr/decr/cas: integer arithmetic, false on missing or non-integer values, negative steps
--FILE--
<?php
var_dump(shmcache_incr('n:missing'));            // missing -> false
var_dump(shmcache_decr('n:missing'));
var_dump(shmcache_exists('n:missing'));          // incr does not create
shmcache_set('n:k', 10);
var_dump(shmcache_incr('n:k'));                  // 11
var_dump(shmcache_incr('n:k', 5));               // 16
var_dump(shmcache_incr('n:k', -20));             // -4: negative step
var_dump(shmcache_decr('n:k'));                  // -5
var_dump(shmcache_decr('n:k', 5));               // -10
var_dump(shmcache_decr('n:k', -15));             // 5: negative decr step adds
var_dump(shmcache_incr('n:k', 0));               // 5
var_dump(shmcache_get('n:k'));                   // stored as an int
// Non-integers -> false, value untouched
foreach (['string' => '5', 'float' => 5.0, 'null' => null, 'bool' => true, 'array' => [1], 'numeric' => '10'] as $t => $v) {
    shmcache_set("n:$t", $v);
    $r1 = shmcache_incr("n:$t");
    $r2 = shmcache_decr("n:$t");
    echo "$t: ", var_export($r1, true), ' ', var_export($r2, true), ' ', shmcache_get("n:$t") === $v ? 'unchanged' : 'CHANGED', "\n";
}
// Extremes
shmcache_set('n:max', PHP_INT_MAX - 1);
var_dump(shmcache_incr('n:max'));
shmcache_set('n:min', PHP_INT_MIN + 1);
var_dump(shmcache_decr('n:min'));
// incr keeps the TTL of the entry (still live within its TTL)
shmcache_set('n:ttl', 1, 100);
var_dump(shmcache_incr('n:ttl'), shmcache_get('n:ttl'));
// incr after delete -> false
shmcache_delete('n:ttl');
var_dump(shmcache_incr('n:ttl'));

echo "-- cas\n";
shmcache_set('c:k', 100);
var_dump(shmcache_cas('c:k', 100, 200));         // matches -> swapped
var_dump(shmcache_get('c:k'));
var_dump(shmcache_cas('c:k', 100, 300));         // stale -> refused
var_dump(shmcache_get('c:k'));
var_dump(shmcache_cas('c:missing', 0, 1));       // missing -> false
var_dump(shmcache_exists('c:missing'));
shmcache_set('c:str', '100');
var_dump(shmcache_cas('c:str', 100, 1), shmcache_get('c:str')); // not an int -> false
shmcache_set('c:float', 100.0);
var_dump(shmcache_cas('c:float', 100, 1), shmcache_get('c:float'));
var_dump(shmcache_cas('c:k', 200, PHP_INT_MIN), shmcache_get('c:k'));
var_dump(shmcache_cas('c:k', PHP_INT_MIN, -1), shmcache_get('c:k'));
var_dump(shmcache_cas('c:k', -1, -1), shmcache_get('c:k'));   // same value: still a successful swap
var_dump(shmcache_incr('c:k'));                                  // cas result is an int

echo "-- class API, namespaced\n";
$a = new ShmCache('num-a');
$b = new ShmCache('num-b');
$a->set('n', 1);
$b->set('n', 100);
shmcache_set('n', 1000);
var_dump($a->incr('n'), $a->incr('n', 10), $a->decr('n'), $a->decr('n', 2));
var_dump($b->incr('n'), shmcache_incr('n'));
var_dump($a->cas('n', 9, 50), $a->cas('n', 9, 60), $a->get('n'), $b->get('n'));
var_dump($a->incr('missing'), $a->decr('missing'), $a->cas('missing', 1, 2));
?>
--EXPECT--
bool(false)
bool(false)
bool(false)
int(11)
int(16)
int(-4)
int(-5)
int(-10)
int(5)
int(5)
int(5)
string: false false unchanged
float: false false unchanged
null: false false unchanged
bool: false false unchanged
array: false false unchanged
numeric: false false unchanged
int(9223372036854775807)
int(-9223372036854775808)
int(2)
int(2)
bool(false)
-- cas
bool(true)
int(200)
bool(false)
int(200)
bool(false)
bool(false)
bool(false)
string(3) "100"
bool(false)
float(100)
bool(true)
int(-9223372036854775808)
bool(true)
int(-1)
bool(true)
int(-1)
int(0)
-- class API, namespaced
int(2)
int(12)
int(11)
int(9)
int(101)
int(1001)
bool(true)
bool(false)
int(50)
int(101)
bool(false)
bool(false)
bool(false)
