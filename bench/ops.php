<?php
// One operation, repeated: bench/instructions.sh runs this under callgrind with two round counts
// and divides the difference in instructions by the difference in operations.
//   php ops.php CACHE OP ROUNDS     CACHE: shmcache | apcu     OP: see the switch below
[$_, $cache, $op, $rounds] = $argv + [null, 'shmcache', 'get', '1'];
$rounds = (int) $rounds;
$n = 5000;
$keys = [];
for ($i = 0; $i < $n; $i++) {
    $keys[] = "m:$i";
}
mt_srand(12345);
$order = $keys;
shuffle($order);
$array = [
    'ID' => 42, 'post_author' => '1', 'post_date' => '2024-12-01 10:00:00', 'post_title' => 'Hello world',
    'post_status' => 'publish', 'comment_status' => 'open', 'ping_status' => 'open', 'post_name' => 'hello-world',
    'menu_order' => 0, 'post_type' => 'post', 'comment_count' => 3, 'filter' => 'raw', 'sticky' => false,
    'score' => 3.14159, 'tags' => [1, 2, 3], 'meta' => ['a' => 'b'], 'guid' => 'http://example.test/?p=42',
    'post_parent' => 0, 'to_ping' => '', 'pinged' => null,
];
require __DIR__ . '/values.php';
$value = match ($op) {
    'get-object', 'set-object' => wp_post_object(42),
    'get-array', 'set-array' => $array,
    'incr', 'decr', 'cas', 'get-int', 'set-int' => 123456789,
    default => 'hello world, this is a small cached string',
};
$shm = $cache === 'shmcache';
$ns = $shm ? new ShmCache('bench') : null;
foreach ($keys as $k) {
    $shm ? shmcache_set($k, $value) : apcu_store($k, $value);
    $shm && $ns->set($k, $value);
}
$batches = array_chunk($order, 100);
for ($r = 0; $r < $rounds; $r++) {
    switch ("$cache $op") {
        case 'shmcache get': case 'shmcache get-array': case 'shmcache get-int': case 'shmcache get-object': foreach ($order as $k) { $x = shmcache_get($k); } break;
        case 'apcu get': case 'apcu get-array': case 'apcu get-int': case 'apcu get-object': foreach ($order as $k) { $x = apcu_fetch($k); } break;
        case 'shmcache method-get': foreach ($order as $k) { $x = $ns->get($k); } break;
        case 'shmcache miss': foreach ($order as $k) { $x = shmcache_get("x$k"); } break;
        case 'apcu miss': foreach ($order as $k) { $x = apcu_fetch("x$k"); } break;
        case 'shmcache set': case 'shmcache set-array': case 'shmcache set-int': case 'shmcache set-object': foreach ($order as $k) { shmcache_set($k, $value); } break;
        case 'apcu set': case 'apcu set-array': case 'apcu set-int': case 'apcu set-object': foreach ($order as $k) { apcu_store($k, $value); } break;
        case 'shmcache incr': foreach ($order as $k) { shmcache_incr($k, 1); } break;
        case 'apcu incr': foreach ($order as $k) { apcu_inc($k, 1); } break;
        case 'shmcache decr': foreach ($order as $k) { shmcache_decr($k, 1); } break;
        case 'apcu decr': foreach ($order as $k) { apcu_dec($k, 1); } break;
        case 'shmcache cas': foreach ($order as $k) { shmcache_cas($k, 1, 2); } break;
        case 'apcu cas': foreach ($order as $k) { apcu_cas($k, 1, 2); } break;
        case 'shmcache delete-and-add': foreach ($order as $k) { shmcache_delete($k); shmcache_add($k, $value); } break;
        case 'apcu delete-and-add': foreach ($order as $k) { apcu_delete($k); apcu_add($k, $value); } break;
        case 'shmcache multi-get': foreach ($batches as $b) { $x = shmcache_get_multi($b); } break;
        case 'apcu multi-get': foreach ($batches as $b) { $x = apcu_fetch($b); } break;
        default: fwrite(STDERR, "unknown: $cache $op\n"); exit(1);
    }
}
