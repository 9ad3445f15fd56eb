--TEST--
Hits and misses a process keeps back reach shmcache_info() once: its own at once, a child's at its request end, a killed child's in bulk, never the parent's twice
--FILE--
<?php
require __DIR__ . '/inc/common.inc';
shmcache_set('k', 'v');
$base = shmcache_info();
$delta = function () use ($base) {
    $now = shmcache_info();
    return [$now['hits'] - $base['hits'], $now['misses'] - $base['misses']];
};
// The parent's own reads show at once.
for ($i = 0; $i < 3; $i++) shmcache_get('k');
shmcache_get('absent');
echo json_encode($delta()), "\n";

// A child that ends normally adds its 5 hits and 2 misses when its request ends, and not
// the parent's 3 + 1 that it inherited.
$codes = shm_fork_all(1, function () {
    for ($i = 0; $i < 5; $i++) shmcache_get('k') === 'v' || exit(10);
    for ($i = 0; $i < 2; $i++) shmcache_get('absent') === false || exit(11);
    return 0;
});
echo "child: {$codes[0]}\n";
echo json_encode($delta()), "\n";

// A child killed after 100 hits never reaches its request end: what it added by then is
// whole batches of the counts a process keeps back (64 a batch), and nothing else.
$codes = shm_fork_all(1, function () {
    for ($i = 0; $i < 100; $i++) shmcache_get('k') === 'v' || exit(10);
    posix_kill(getmypid(), SIGKILL);
    return 12;
});
echo json_encode($delta()), "\n";

// A method get counts the same way.
(new ShmCache())->get('k');
echo json_encode($delta()), "\n";
?>
--EXPECT--
[3,1]
child: 0
[8,3]
[72,3]
[73,3]
