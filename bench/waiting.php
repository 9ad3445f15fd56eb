<?php
// bench/waiting.sh's get: 20,000 keys of 12-byte strings read in shuffled order, one of whose
// gets the script single-steps. (The first gets warm up; the traced one is any of the rest.)
$n = 20000;
$keys = [];
for ($i = 0; $i < $n; $i++) {
    $keys[] = "wp:options:$i";
}
foreach ($keys as $i => $k) {
    shmcache_set($k, sprintf('value-%06d', $i));
}
mt_srand(42);
shuffle($keys);
foreach ($keys as $k) {
    shmcache_get($k);
}
