--TEST--
Invalid or absurd INI values make PHP fail startup with a clear message (enable_cli=1)
--FILE--
<?php
require __DIR__ . '/inc/common.inc';
$cases = [
    'shmcache.keys_memory_size=abc',
    'shmcache.keys_memory_size=-1',
    'shmcache.keys_memory_size=1',
    'shmcache.keys_memory_size=100G',
    'shmcache.keys_memory_size=4MB',
    'shmcache.values_memory_size=abc',
    'shmcache.values_memory_size=-1',
    'shmcache.values_memory_size=1',
    'shmcache.values_memory_size=100G',
    'shmcache.compress_threshold=abc',
    'shmcache.compress_threshold=-1',
    'shmcache.enable=maybe',
];
foreach ($cases as $setting) {
    // With a region to create (enable_cli=1). 040 checks the CLI default (no enable_cli).
    foreach ([['shmcache.enable_cli=1']] as $extra) {
        [$out, $status] = shm_run(array_merge([$setting], $extra), 'echo "script ran\n";');
        // The message names the directive (at least without its "shmcache." prefix).
        $name = substr(explode('=', $setting)[0], strlen('shmcache.'));
        $checks = [
            'exit!=0' => $status !== 0,
            'no script' => !str_contains($out, 'script ran'),
            'names directive' => str_contains($out, $name),
            'unable to start' => str_contains($out, 'Unable to start shmcache module'),
        ];
        $failed = array_keys(array_filter($checks, fn($ok) => !$ok));
        echo $setting, ($extra ? ' +cli' : ''), ': ', $failed ? 'FAILED ' . implode(', ', $failed) . "\n$out" : 'refused', "\n";
    }
}
echo "-- messages\n";
foreach (['shmcache.keys_memory_size=abc', 'shmcache.keys_memory_size=-1', 'shmcache.keys_memory_size=1',
          'shmcache.keys_memory_size=100G', 'shmcache.values_memory_size=1', 'shmcache.values_memory_size=100G'] as $setting) {
    [$out] = shm_run([$setting, 'shmcache.enable_cli=1'], 'echo 1;');
    echo trim(preg_replace('/\s+/', ' ', $out)), "\n";
}
?>
--EXPECT--
shmcache.keys_memory_size=abc +cli: refused
shmcache.keys_memory_size=-1 +cli: refused
shmcache.keys_memory_size=1 +cli: refused
shmcache.keys_memory_size=100G +cli: refused
shmcache.keys_memory_size=4MB +cli: refused
shmcache.values_memory_size=abc +cli: refused
shmcache.values_memory_size=-1 +cli: refused
shmcache.values_memory_size=1 +cli: refused
shmcache.values_memory_size=100G +cli: refused
shmcache.compress_threshold=abc +cli: refused
shmcache.compress_threshold=-1 +cli: refused
shmcache.enable=maybe +cli: refused
-- messages
Warning: PHP Startup: shmcache: invalid shmcache.keys_memory_size "abc": Invalid quantity "abc": no valid leading digits, interpreting as "0" for backwards compatibility in Unknown on line 0 Fatal error: Unable to start shmcache module in Unknown on line 0
Warning: PHP Startup: shmcache: invalid shmcache.keys_memory_size "-1": must not be negative in Unknown on line 0 Fatal error: Unable to start shmcache module in Unknown on line 0
Warning: PHP Startup: shmcache: shmcache.keys_memory_size=1 is out of range: it must be between 1K and 16G in Unknown on line 0 Fatal error: Unable to start shmcache module in Unknown on line 0
Warning: PHP Startup: shmcache: shmcache.keys_memory_size=100G is out of range: it must be between 1K and 16G in Unknown on line 0 Fatal error: Unable to start shmcache module in Unknown on line 0
Warning: PHP Startup: shmcache: shmcache.values_memory_size=1 is out of range: it must be between 64K and 64G in Unknown on line 0 Fatal error: Unable to start shmcache module in Unknown on line 0
Warning: PHP Startup: shmcache: shmcache.values_memory_size=100G is out of range: it must be between 64K and 64G in Unknown on line 0 Fatal error: Unable to start shmcache module in Unknown on line 0
