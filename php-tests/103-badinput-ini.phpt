--TEST--
Bad-input matrix: INI directives with empty, malformed, boundary and out-of-range values (checked in sub-processes: a clear startup error or a working region, never a crash)
--FILE--
<?php
require __DIR__ . '/inc/common.inc';
$code = '$i = shmcache_info(); echo json_encode([$i["enabled"], $i["keys_memory_size"] ?? null, $i["values_memory_size"] ?? null, $i["compress_threshold"] ?? null]), shmcache_set("k", 1) && shmcache_get("k") === 1 ? " works" : " off";';
// (The largest valid sizes, 16G and 64G, are not started here: the region is populated at
// startup, so they would take that much RAM.)
$cases = [
    'shmcache.keys_memory_size' => ['', ' ', '0', '-0', '1023', '1024', '1K', '0x400', '0o2000', '1e3', ' 4M', '4M ', '4 M', '4MB', '4Mx', '1T',
        '17G', '9223372036854775807', '99999999999999999999', '-9223372036854775808'],
    'shmcache.values_memory_size' => ['', '0', '65535', '64K', '64k', '63K', '65G', '1P', '-64K', 'lots'],
    'shmcache.compress_threshold' => ['', '0', '1', '-1', '1G', '99999999999999999999', 'abc', '4K', '4KB'],
    'shmcache.enable' => ['On', 'off', 'yes', 'no', 'TRUE', '', '2', 'maybe', '1 '],
    'shmcache.enable_cli' => ['0', '2', 'maybe', ''],
];
foreach ($cases as $name => $values) {
    echo "$name:\n";
    foreach ($values as $v) {
        $ini = ["$name=$v"];
        if ($name !== 'shmcache.enable_cli') {
            $ini[] = 'shmcache.enable_cli=1';
        }
        [$out, $status] = shm_run($ini, $code);
        $out = trim(preg_replace('/\s+/', ' ', str_replace(["\0", 'PHP '], ['\0', ''], $out)));
        echo '  ', json_encode($v), ': ', $out, " (exit $status)\n";
    }
}
?>
--EXPECT--
shmcache.keys_memory_size:
  "": Warning: Startup: shmcache: shmcache.keys_memory_size= is out of range: it must be between 1K and 16G in Unknown on line 0 Fatal error: Unable to start shmcache module in Unknown on line 0 (exit 254)
  " ": Warning: Startup: shmcache: shmcache.keys_memory_size= is out of range: it must be between 1K and 16G in Unknown on line 0 Fatal error: Unable to start shmcache module in Unknown on line 0 (exit 254)
  "0": Warning: Startup: shmcache: shmcache.keys_memory_size=0 is out of range: it must be between 1K and 16G in Unknown on line 0 Fatal error: Unable to start shmcache module in Unknown on line 0 (exit 254)
  "-0": Warning: Startup: shmcache: shmcache.keys_memory_size=-0 is out of range: it must be between 1K and 16G in Unknown on line 0 Fatal error: Unable to start shmcache module in Unknown on line 0 (exit 254)
  "1023": Warning: Startup: shmcache: shmcache.keys_memory_size=1023 is out of range: it must be between 1K and 16G in Unknown on line 0 Fatal error: Unable to start shmcache module in Unknown on line 0 (exit 254)
  "1024": [true,1024,67108864,4096] works (exit 0)
  "1K": [true,1024,67108864,4096] works (exit 0)
  "0x400": [true,1024,67108864,4096] works (exit 0)
  "0o2000": [true,1024,67108864,4096] works (exit 0)
  "1e3": Warning: Startup: shmcache: invalid shmcache.keys_memory_size "1e3": Invalid quantity "1e3": unknown multiplier "3", interpreting as "1" for backwards compatibility in Unknown on line 0 Fatal error: Unable to start shmcache module in Unknown on line 0 (exit 254)
  " 4M": [true,4194304,67108864,4096] works (exit 0)
  "4M ": [true,4194304,67108864,4096] works (exit 0)
  "4 M": [true,4194304,67108864,4096] works (exit 0)
  "4MB": Warning: Startup: shmcache: invalid shmcache.keys_memory_size "4MB": Invalid quantity "4MB": unknown multiplier "B", interpreting as "4" for backwards compatibility in Unknown on line 0 Fatal error: Unable to start shmcache module in Unknown on line 0 (exit 254)
  "4Mx": Warning: Startup: shmcache: invalid shmcache.keys_memory_size "4Mx": Invalid quantity "4Mx": unknown multiplier "x", interpreting as "4" for backwards compatibility in Unknown on line 0 Fatal error: Unable to start shmcache module in Unknown on line 0 (exit 254)
  "1T": Warning: Startup: shmcache: invalid shmcache.keys_memory_size "1T": Invalid quantity "1T": unknown multiplier "T", interpreting as "1" for backwards compatibility in Unknown on line 0 Fatal error: Unable to start shmcache module in Unknown on line 0 (exit 254)
  "17G": Warning: Startup: shmcache: shmcache.keys_memory_size=17G is out of range: it must be between 1K and 16G in Unknown on line 0 Fatal error: Unable to start shmcache module in Unknown on line 0 (exit 254)
  "9223372036854775807": Warning: Startup: shmcache: shmcache.keys_memory_size=9223372036854775807 is out of range: it must be between 1K and 16G in Unknown on line 0 Fatal error: Unable to start shmcache module in Unknown on line 0 (exit 254)
  "99999999999999999999": Warning: Startup: shmcache: invalid shmcache.keys_memory_size "99999999999999999999": Invalid quantity "99999999999999999999": value is out of range, using overflow result for backwards compatibility in Unknown on line 0 Fatal error: Unable to start shmcache module in Unknown on line 0 (exit 254)
  "-9223372036854775808": Warning: Startup: shmcache: invalid shmcache.keys_memory_size "-9223372036854775808": must not be negative in Unknown on line 0 Fatal error: Unable to start shmcache module in Unknown on line 0 (exit 254)
shmcache.values_memory_size:
  "": Warning: Startup: shmcache: shmcache.values_memory_size= is out of range: it must be between 64K and 64G in Unknown on line 0 Fatal error: Unable to start shmcache module in Unknown on line 0 (exit 254)
  "0": Warning: Startup: shmcache: shmcache.values_memory_size=0 is out of range: it must be between 64K and 64G in Unknown on line 0 Fatal error: Unable to start shmcache module in Unknown on line 0 (exit 254)
  "65535": Warning: Startup: shmcache: shmcache.values_memory_size=65535 is out of range: it must be between 64K and 64G in Unknown on line 0 Fatal error: Unable to start shmcache module in Unknown on line 0 (exit 254)
  "64K": [true,4194304,65536,4096] works (exit 0)
  "64k": [true,4194304,65536,4096] works (exit 0)
  "63K": Warning: Startup: shmcache: shmcache.values_memory_size=63K is out of range: it must be between 64K and 64G in Unknown on line 0 Fatal error: Unable to start shmcache module in Unknown on line 0 (exit 254)
  "65G": Warning: Startup: shmcache: shmcache.values_memory_size=65G is out of range: it must be between 64K and 64G in Unknown on line 0 Fatal error: Unable to start shmcache module in Unknown on line 0 (exit 254)
  "1P": Warning: Startup: shmcache: invalid shmcache.values_memory_size "1P": Invalid quantity "1P": unknown multiplier "P", interpreting as "1" for backwards compatibility in Unknown on line 0 Fatal error: Unable to start shmcache module in Unknown on line 0 (exit 254)
  "-64K": Warning: Startup: shmcache: invalid shmcache.values_memory_size "-64K": must not be negative in Unknown on line 0 Fatal error: Unable to start shmcache module in Unknown on line 0 (exit 254)
  "lots": Warning: Startup: shmcache: invalid shmcache.values_memory_size "lots": Invalid quantity "lots": no valid leading digits, interpreting as "0" for backwards compatibility in Unknown on line 0 Fatal error: Unable to start shmcache module in Unknown on line 0 (exit 254)
shmcache.compress_threshold:
  "": [true,4194304,67108864,0] works (exit 0)
  "0": [true,4194304,67108864,0] works (exit 0)
  "1": [true,4194304,67108864,1] works (exit 0)
  "-1": Warning: Startup: shmcache: invalid shmcache.compress_threshold "-1": must not be negative in Unknown on line 0 Fatal error: Unable to start shmcache module in Unknown on line 0 (exit 254)
  "1G": [true,4194304,67108864,1073741824] works (exit 0)
  "99999999999999999999": Warning: Startup: shmcache: invalid shmcache.compress_threshold "99999999999999999999": Invalid quantity "99999999999999999999": value is out of range, using overflow result for backwards compatibility in Unknown on line 0 Fatal error: Unable to start shmcache module in Unknown on line 0 (exit 254)
  "abc": Warning: Startup: shmcache: invalid shmcache.compress_threshold "abc": Invalid quantity "abc": no valid leading digits, interpreting as "0" for backwards compatibility in Unknown on line 0 Fatal error: Unable to start shmcache module in Unknown on line 0 (exit 254)
  "4K": [true,4194304,67108864,4096] works (exit 0)
  "4KB": Warning: Startup: shmcache: invalid shmcache.compress_threshold "4KB": Invalid quantity "4KB": unknown multiplier "B", interpreting as "4" for backwards compatibility in Unknown on line 0 Fatal error: Unable to start shmcache module in Unknown on line 0 (exit 254)
shmcache.enable:
  "On": [true,4194304,67108864,4096] works (exit 0)
  "off": [false,null,null,null] off (exit 0)
  "yes": [true,4194304,67108864,4096] works (exit 0)
  "no": [false,null,null,null] off (exit 0)
  "TRUE": [true,4194304,67108864,4096] works (exit 0)
  "": [false,null,null,null] off (exit 0)
  "2": Warning: Startup: shmcache: invalid value "2" for shmcache.enable: expected On or Off in Unknown on line 0 Fatal error: Unable to start shmcache module in Unknown on line 0 (exit 254)
  "maybe": Warning: Startup: shmcache: invalid value "maybe" for shmcache.enable: expected On or Off in Unknown on line 0 Fatal error: Unable to start shmcache module in Unknown on line 0 (exit 254)
  "1 ": [true,4194304,67108864,4096] works (exit 0)
shmcache.enable_cli:
  "0": [false,null,null,null] off (exit 0)
  "2": Warning: Startup: shmcache: invalid value "2" for shmcache.enable_cli: expected On or Off in Unknown on line 0 Fatal error: Unable to start shmcache module in Unknown on line 0 (exit 254)
  "maybe": Warning: Startup: shmcache: invalid value "maybe" for shmcache.enable_cli: expected On or Off in Unknown on line 0 Fatal error: Unable to start shmcache module in Unknown on line 0 (exit 254)
  "": [false,null,null,null] off (exit 0)
