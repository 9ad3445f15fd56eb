--TEST--
Expiry is read on PHP's own clock: a value stored with a 1 s TTL while time() says T is found on every read while time() says T and never once it says T + 1 (a cache reading a finer clock than time() expires it up to a kernel tick early, while time() still says T)
--FILE--
<?php
// Stored early in a fresh second of time(), and within that second (a process held up across
// the set, on a loaded machine, tries again).
for ($try = 0; $try < 5; $try++) {
    $t0 = time();
    while (time() === $t0) {
    }
    $stored = time();
    shmcache_set('clock:k', 'v', 1);
    if (time() === $stored) {
        break;
    }
}
$wrong = [];
$reads = ['live' => 0, 'gone' => 0];
$deadline = hrtime(true) + 2_500_000_000;
while (hrtime(true) < $deadline) {
    $before = time();
    $live = shmcache_get('clock:k') !== false;
    if (time() !== $before) {
        continue; // the second changed during the read: either answer is right
    }
    $expected = $before < $stored + 1;
    $reads[$live ? 'live' : 'gone']++;
    if ($live !== $expected && count($wrong) < 5) {
        $wrong[] = sprintf('time() %d (stored at %d): %s', $before, $stored, $live ? 'live' : 'gone');
    }
}
var_dump($wrong, $reads['live'] > 100, $reads['gone'] > 100);
?>
--EXPECT--
array(0) {
}
bool(true)
bool(true)
