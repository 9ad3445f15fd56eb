<?php
/**
 * One cache operation on this process's region, for scripts/test-named-regions.sh: served by
 * PHP-FPM pools (query string) and run by the CLI (arguments), so that both sides speak the same
 * one-line answer:
 *
 *   RESULT {"op":..., "found":..., "value":..., "ok":..., "uid":..., "info":{...}}
 *
 *   op=info                  shmcache_info()'s region fields and sizes
 *   op=set&key=K&value=V     shmcache_set(K, V)
 *   op=get&key=K             shmcache_get(K)
 *   op=flush                 shmcache_flush()
 */
if (PHP_SAPI === 'cli') {
    $args = [];
    foreach (array_slice($argv, 1) as $a) {
        [$k, $v] = array_pad(explode('=', $a, 2), 2, '');
        $args[$k] = $v;
    }
} else {
    $args = $_GET;
}
$op = (string) ($args['op'] ?? 'info');
$key = (string) ($args['key'] ?? '');

// The effective uid, without the posix extension (php -n loads none).
$uid = null;
if (preg_match('/^Uid:\s+\d+\s+(\d+)/m', (string) @file_get_contents('/proc/self/status'), $m)) {
    $uid = (int) $m[1];
}

$out = ['op' => $op, 'pid' => getmypid(), 'uid' => $uid, 'sapi' => PHP_SAPI];
switch ($op) {
    case 'set':
        $out['ok'] = shmcache_set($key, (string) ($args['value'] ?? ''));
        break;
    case 'get':
        $value = shmcache_get($key, $found);
        $out['found'] = $found;
        $out['value'] = $found ? $value : null;
        break;
    case 'flush':
        $out['ok'] = shmcache_flush();
        break;
}
$info = shmcache_info();
$out['info'] = [];
foreach (['enabled', 'region', 'region_path', 'region_opened', 'region_error', 'layout_version',
    'keys_memory_size', 'values_memory_size', 'sets', 'start_time'] as $field) {
    if (array_key_exists($field, $info)) {
        $out['info'][$field] = $info[$field];
    }
}
echo 'RESULT ', json_encode($out, JSON_UNESCAPED_SLASHES), "\n";
