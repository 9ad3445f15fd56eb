--TEST--
INI sizes: K/M/G (either case), plain bytes and defaults, checked in sub-processes
--FILE--
<?php
require __DIR__ . '/inc/common.inc';
$code = '$i = shmcache_info(); echo json_encode([$i["enabled"], $i["keys_memory_size"], $i["values_memory_size"], $i["compress_threshold"] ?? null]);';
$cases = [
    'defaults' => [],
    'K and M' => ['shmcache.keys_memory_size=128K', 'shmcache.values_memory_size=2M', 'shmcache.compress_threshold=1K'],
    'lower case' => ['shmcache.keys_memory_size=128k', 'shmcache.values_memory_size=2m', 'shmcache.compress_threshold=1k'],
    'G' => ['shmcache.values_memory_size=2G'],
    'g' => ['shmcache.values_memory_size=1g'],
    'bytes' => ['shmcache.keys_memory_size=1024', 'shmcache.values_memory_size=65536', 'shmcache.compress_threshold=0'],
    'smallest' => ['shmcache.keys_memory_size=1K', 'shmcache.values_memory_size=64K'],
];
foreach ($cases as $label => $ini) {
    [$out, $status] = shm_run(array_merge(['shmcache.enable_cli=1'], $ini), $code);
    echo "$label: $out (exit $status)\n";
}
?>
--EXPECT--
defaults: [true,4194304,67108864,4096] (exit 0)
K and M: [true,131072,2097152,1024] (exit 0)
lower case: [true,131072,2097152,1024] (exit 0)
G: [true,4194304,2147483648,4096] (exit 0)
g: [true,4194304,1073741824,4096] (exit 0)
bytes: [true,1024,65536,0] (exit 0)
smallest: [true,1024,65536,4096] (exit 0)
