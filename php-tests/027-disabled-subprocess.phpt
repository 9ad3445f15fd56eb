--TEST--
Disabled extension in fresh sub-processes: CLI default (no enable_cli) and shmcache.enable=0/Off
--FILE--
<?php
require __DIR__ . '/inc/common.inc';
$expected = file_get_contents(__DIR__ . '/inc/disabled.expect');
$code = 'require ' . var_export(__DIR__ . '/inc/disabled.inc', true) . '; shm_disabled_report();';
$cases = [
    'CLI default' => [],
    'enable_cli=0' => ['shmcache.enable_cli=0'],
    'enable=0 with enable_cli=1' => ['shmcache.enable=0', 'shmcache.enable_cli=1'],
    'enable=Off with enable_cli=On' => ['shmcache.enable=Off', 'shmcache.enable_cli=On'],
];
foreach ($cases as $label => $ini) {
    [$out, $status] = shm_run($ini, $code);
    echo $label, ': exit ', $status, ', ', $out === $expected ? 'as expected' : "unexpected output:\n$out", "\n";
}
// And enabled for comparison: the same calls then work.
[$out, $status] = shm_run(['shmcache.enable_cli=1'], 'var_dump(shmcache_info()["enabled"], shmcache_set("k", 1), shmcache_get("k"));');
echo $out;
?>
--EXPECT--
CLI default: exit 0, as expected
enable_cli=0: exit 0, as expected
enable=0 with enable_cli=1: exit 0, as expected
enable=Off with enable_cli=On: exit 0, as expected
bool(true)
bool(true)
int(1)
