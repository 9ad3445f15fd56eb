--TEST--
apcu_store() and apcu_add() of an array of key => value (runs of strings, numbers, bools and nulls written as one batch, any other value alone, in order): what is stored, the failed keys mapped to -1 (a resource, keys already present for add), numeric string keys, the empty key, a list, a TTL, an error handler's view of what is stored; the same output as the APCu extension where this PHP has it
--FILE--
<?php
require __DIR__ . '/inc/common.inc';
$script = <<<'PHP'
class P { public $a = 1; }
$fp = fopen('php://memory', 'r');
$values = ['s' => 'string', 'i' => 42, 'f' => 1.5, 't' => true, 'n' => null, 7 => 'seven',
    '08' => 'eight', 'arr' => [1, 2, ['x' => 3]], 'obj' => new P(), 'after' => 'after obj',
    'res' => $fp, 'after res' => 'x', '' => 'empty key', 'last' => -3];
var_dump(apcu_store($values));
foreach (array_keys($values) as $k) { echo var_export($k, true), ' => ', str_replace("\n", ' ', var_export(apcu_fetch((string) $k), true)), "\n"; }
echo "-- add: present keys fail, new ones go in\n";
var_dump(apcu_add(['s' => 'other', 'new1' => 1, 7 => 'x', 'new2' => 'two', 'arr' => [], 'new3' => [3]]));
var_dump(apcu_fetch(['s', 'new1', '7', 'new2', 'new3']));
echo "-- a list, a TTL\n";
var_dump(apcu_store(['a', 'b', 'c']), apcu_fetch(['0', '1', '2']));
var_dump(apcu_store(['t1' => 1, 't2' => 2], null, 100));
echo apcu_key_info('t1')['ttl'], "\n";
echo "-- an error handler run for an element sees the elements before it stored, not those after\n";
set_error_handler(function ($no, $msg) { echo "handler: $msg; stored before: ", var_export(apcu_exists('h1'), true), ', after: ', var_export(apcu_exists('h3'), true), "\n"; return true; });
var_dump(apcu_store(['h1' => 1, 'hr' => $fp, 'h3' => 3]));
PHP;
[$mine] = shm_run(['shmcache.enable_cli=1', 'shmcache.apcu_compat=1'], $script);
echo $mine;
[$probe] = shm_run(['extension=apcu.so'], 'echo extension_loaded("apcu") ? "yes" : "no";');
if (str_contains($probe, 'yes')) {
    [$theirs] = shm_run(['extension=apcu.so', 'apc.enable_cli=1'], $script);
    echo 'APCu: ', $theirs === $mine ? 'the same' : "different:\n$theirs", "\n";
} elseif (PHP_VERSION_ID >= 80500) {
    // Debian ships no APCu for PHP 8.5 and 8.6; scripts/test.sh installs it for 8.2.
    echo 'APCu: not available for PHP ', PHP_MAJOR_VERSION, '.', PHP_MINOR_VERSION, "\n";
} else {
    echo "APCu: missing, where it must be installed to compare with\n";
}
?>
--EXPECTF--

Warning: apcu_store(): Cannot store resources in apcu cache in %s on line %d
array(1) {
  ["res"]=>
  int(-1)
}
's' => 'string'
'i' => 42
'f' => 1.5
't' => true
'n' => NULL
7 => 'seven'
'08' => 'eight'
'arr' => array (   0 => 1,   1 => 2,   2 =>    array (     'x' => 3,   ), )
'obj' => \P::__set_state(array(    'a' => 1, ))
'after' => 'after obj'
'res' => false
'after res' => 'x'
'' => 'empty key'
'last' => -3
-- add: present keys fail, new ones go in
array(3) {
  ["s"]=>
  int(-1)
  [7]=>
  int(-1)
  ["arr"]=>
  int(-1)
}
array(5) {
  ["s"]=>
  string(6) "string"
  ["new1"]=>
  int(1)
  ["7"]=>
  string(5) "seven"
  ["new2"]=>
  string(3) "two"
  ["new3"]=>
  array(1) {
    [0]=>
    int(3)
  }
}
-- a list, a TTL
array(0) {
}
array(3) {
  ["0"]=>
  string(1) "a"
  ["1"]=>
  string(1) "b"
  ["2"]=>
  string(1) "c"
}
array(0) {
}
100
-- an error handler run for an element sees the elements before it stored, not those after
handler: apcu_store(): Cannot store resources in apcu cache; stored before: true, after: false
array(1) {
  ["hr"]=>
  int(-1)
}
APCu: %r(the same|not available for PHP 8\.([5-9]|[1-9][0-9]))%r
