--TEST--
4 forked children racing shmcache_add on the same fresh key: exactly one winner, 50 rounds
--FILE--
<?php
require __DIR__ . '/inc/common.inc';
$ns = new ShmCache('race');
$rounds = 50;
$bad = [];
for ($round = 0; $round < $rounds; $round++) {
    $key = "race:$round";
    $go = "go:$round";
    $pids = shm_fork(4, function (int $i) use ($key, $go, $ns, $round) {
        $deadline = microtime(true) + 10;
        while (!shmcache_exists($go)) {
            if (microtime(true) > $deadline) return 40;
        }
        // Exit code 1 = this child's add won, 0 = lost; the namespaced race likewise with 2.
        $won = shmcache_add($key, $i) ? 1 : 0;
        $nsWon = $ns->add($key, $i) ? 2 : 0;
        return $won | $nsWon;
    });
    shmcache_set($go, true);
    $codes = shm_wait($pids);
    $winners = array_keys(array_filter($codes, fn($c) => $c >= 0 && ($c & 1)));
    $nsWinners = array_keys(array_filter($codes, fn($c) => $c >= 0 && ($c & 2)));
    $errors = array_filter($codes, fn($c) => $c < 0 || $c > 3);
    // Exactly one winner, and the stored value is the winner's.
    if (count($winners) !== 1 || shmcache_get($key) !== $winners[0]
        || count($nsWinners) !== 1 || $ns->get($key) !== $nsWinners[0] || $errors) {
        $bad[] = "round $round: codes " . implode(',', $codes) . ' stored ' . var_export(shmcache_get($key), true)
            . ' / ' . var_export($ns->get($key), true);
    }
}
echo count($bad), " bad rounds of $rounds\n";
foreach ($bad as $b) echo $b, "\n";
?>
--EXPECT--
0 bad rounds of 50
