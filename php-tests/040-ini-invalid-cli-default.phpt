--TEST--
Invalid INI sizes fail PHP startup even in a CLI without enable_cli (the exact command of the issue)
--FILE--
<?php
require __DIR__ . '/inc/common.inc';
// TEST_PHP_EXECUTABLE -n -d extension=SHMCACHE_SO -d shmcache.keys_memory_size=abc -r 'echo 1;'
foreach (['shmcache.keys_memory_size=abc', 'shmcache.keys_memory_size=-1', 'shmcache.keys_memory_size=1',
          'shmcache.keys_memory_size=100G', 'shmcache.values_memory_size=abc', 'shmcache.values_memory_size=100G',
          'shmcache.compress_threshold=-1', 'shmcache.enable=maybe'] as $setting) {
    [$out, $status] = shm_run([$setting], 'echo 1;');
    $ok = $status !== 0 && str_contains($out, 'Unable to start shmcache module');
    echo $setting, ': ', $ok ? 'refused' : "NOT refused (exit $status, output: " . trim(preg_replace('/\s+/', ' ', $out)) . ')', "\n";
}
?>
--EXPECT--
shmcache.keys_memory_size=abc: refused
shmcache.keys_memory_size=-1: refused
shmcache.keys_memory_size=1: refused
shmcache.keys_memory_size=100G: refused
shmcache.values_memory_size=abc: refused
shmcache.values_memory_size=100G: refused
shmcache.compress_threshold=-1: refused
shmcache.enable=maybe: refused
