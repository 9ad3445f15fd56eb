--TEST--
Concurrent writers and readers in forked children over a small, constantly recycled ring never see torn or foreign values
--INI--
shmcache.keys_memory_size=4K
shmcache.values_memory_size=64K
shmcache.compress_threshold=512
--FILE--
<?php
require __DIR__ . '/inc/common.inc';
// Every value names its key and carries a checksum of its payload, so a reader can tell a
// correct value from a torn one or one belonging to another key.
function make_value(string $key, int $child, int $n): array {
    $payload = str_repeat(chr(97 + ($child * 7 + $n) % 26), 50 + ($n * 37) % 900);
    return ['key' => $key, 'child' => $child, 'n' => $n, 'payload' => $payload, 'md5' => md5($payload)];
}
shmcache_set('start', 0);
$pids = shm_fork(4, function (int $child) {
    // Wait for the parent to replace the 0 (the 1 may soon be recycled by the small ring, so
    // anything but 0 means "go").
    $deadline = microtime(true) + 10;
    while (shmcache_get('start') === 0) {
        if (microtime(true) > $deadline) return 50;
        usleep(0);
    }
    mt_srand($child);
    $ns = new ShmCache('stress' . ($child % 2));
    for ($n = 0; $n < 4000; $n++) {
        $key = 'k' . mt_rand(0, 150);
        if (mt_rand(0, 1)) {
            shmcache_set($key, make_value($key, $child, $n));
            $ns->set($key, make_value($key, $child, $n));
        } else {
            foreach ([shmcache_get($key, $f1), $ns->get($key, $f2)] as $j => $v) {
                $found = $j ? $f2 : $f1;
                if (!$found) {
                    if ($v !== false) return 51;
                    continue;
                }
                if (!is_array($v) || ($v['key'] ?? null) !== $key || md5($v['payload'] ?? '') !== ($v['md5'] ?? '')) {
                    return 52;
                }
            }
        }
    }
    return 0;
});
shmcache_set('start', 1);
echo 'exit codes: ', implode(',', shm_wait($pids)), "\n";
$i = shmcache_info();
var_dump($i['recycles'] > 0);
?>
--EXPECT--
exit codes: 0,0,0,0
bool(true)
