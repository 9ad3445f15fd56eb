--TEST--
apcu_delete() of an array of keys (deleted as one batch when every key is a plain string): the keys not deleted come back as a list in the order given (missing ones, one given twice), the deleted ones are gone and the others kept; arrays with a non-string key (warned, deleted key by key), an empty key, an over-long key, a key held by reference; the same output as the APCu extension where this PHP has it
--FILE--
<?php
require __DIR__ . '/inc/common.inc';
$script = <<<'PHP'
for ($i = 0; $i < 40; $i++) { apcu_store("d:$i", "value $i"); }
apcu_store('3', 'three'); apcu_store('007', 'bond');
$keys = [];
for ($i = 0; $i < 40; $i += 3) { $keys[] = "d:$i"; $keys[] = "absent:$i"; }
$keys = array_merge($keys, ['3', '007', 'd:3', '4']);
var_dump(apcu_delete($keys));
$left = [];
for ($i = 0; $i < 40; $i++) { if (apcu_exists("d:$i")) { $left[] = $i; } }
echo 'left: ', implode(',', $left), "\n";
var_dump(apcu_exists('3'), apcu_exists('007'));
echo "-- a map, a non-string key among strings, an empty key, an over-long key, a reference\n";
var_dump(apcu_delete(['x' => 'd:1', 'y' => 'd:2', 'z' => 'absent']));
var_dump(apcu_delete(['d:4', 5, 'd:5']));
apcu_store('', 'empty key');
var_dump(apcu_delete(['d:7', '', 'd:8']), apcu_exists(''));
$r = apcu_delete(['d:10', str_repeat('k', 5000)]);
var_dump(count($r), strlen($r[0]), apcu_exists('d:10'));
$ref = 'd:11';
var_dump(apcu_delete(['d:13', &$ref]));
var_dump(apcu_delete([]), apcu_exists('d:11'), apcu_exists('d:13'), apcu_exists('d:14'));
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
array(16) {
  [0]=>
  string(8) "absent:0"
  [1]=>
  string(8) "absent:3"
  [2]=>
  string(8) "absent:6"
  [3]=>
  string(8) "absent:9"
  [4]=>
  string(9) "absent:12"
  [5]=>
  string(9) "absent:15"
  [6]=>
  string(9) "absent:18"
  [7]=>
  string(9) "absent:21"
  [8]=>
  string(9) "absent:24"
  [9]=>
  string(9) "absent:27"
  [10]=>
  string(9) "absent:30"
  [11]=>
  string(9) "absent:33"
  [12]=>
  string(9) "absent:36"
  [13]=>
  string(9) "absent:39"
  [14]=>
  string(3) "d:3"
  [15]=>
  string(1) "4"
}
left: 1,2,4,5,7,8,10,11,13,14,16,17,19,20,22,23,25,26,28,29,31,32,34,35,37,38
bool(false)
bool(false)
-- a map, a non-string key among strings, an empty key, an over-long key, a reference
array(1) {
  [0]=>
  string(6) "absent"
}

Warning: apcu_delete(): apc_delete() expects a string, array of strings, or APCIterator instance in %s on line %d
array(1) {
  [0]=>
  int(5)
}
array(0) {
}
bool(false)
int(1)
int(5000)
bool(false)
array(0) {
}
array(0) {
}
bool(false)
bool(false)
bool(true)
APCu: %r(the same|not available for PHP 8\.([5-9]|[1-9][0-9]))%r
