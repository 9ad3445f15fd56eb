--TEST--
get_multi gives string keys the result array's key type PHP's own arrays would: canonical decimals ("42", "-7") become ints, anything else ("-", "-a", "007", "-0", "9x", ":1") stays a string
--FILE--
<?php
$keys = ['42', '-7', '0', '-', '-a', '007', '-0', '9x', ':1', ' 1', '/1', 'm:1', '9223372036854775808'];
foreach ($keys as $k) {
    shmcache_set($k, "v$k");
}
$r = shmcache_get_multi($keys);
foreach ($r as $k => $v) {
    echo var_export($k, true), ' => ', $v, "\n";
}
// The same keys in a plain array, for comparison: identical keys and types.
$plain = [];
foreach ($keys as $k) {
    $plain[$k] = "v$k";
}
var_dump(array_keys($r) === array_keys($plain));
?>
--EXPECT--
42 => v42
-7 => v-7
0 => v0
'-' => v-
'-a' => v-a
'007' => v007
'-0' => v-0
'9x' => v9x
':1' => v:1
' 1' => v 1
'/1' => v/1
'm:1' => vm:1
'9223372036854775808' => v9223372036854775808
bool(true)
