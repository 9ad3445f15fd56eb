<?php
/**
 * wp-stack harness probe, served by the harness's nginx as /__wp-stack/probe.php (outside
 * WordPress). Answers JSON from whichever PHP-FPM worker takes the request:
 *   GET /__wp-stack/probe.php               pid, SAPI, whether shmcache is loaded, shmcache_info(),
 *                                           whether mysqli and phpredis are loaded, the error
 *                                           settings the pool gives PHP
 *   GET /__wp-stack/probe.php?action=flush  also shmcache_flush() (the region is shared by all
 *                                           workers, so this empties the cache for all of them)
 * Only reachable on 127.0.0.1 (the harness's nginx listens there only).
 */
header('Content-Type: application/json');
header('Cache-Control: no-store');

$loaded = extension_loaded('shmcache');
$out = [
    'pid' => getmypid(),
    'sapi' => PHP_SAPI,
    'php' => PHP_VERSION,
    'shmcache_loaded' => $loaded,
    'shmcache_info' => $loaded ? shmcache_info() : null,
    'mysqli_loaded' => extension_loaded('mysqli'),
    'redis_loaded' => extension_loaded('redis'),
    'opcache_enabled' => function_exists('opcache_get_status') && is_array(@opcache_get_status(false))
        && (opcache_get_status(false)['opcache_enabled'] ?? false),
    'error_reporting' => error_reporting(),
    'display_errors' => ini_get('display_errors'),
    'log_errors' => ini_get('log_errors'),
    'error_log' => ini_get('error_log'),
];
if (($_GET['action'] ?? '') === 'flush') {
    $out['flushed'] = $loaded ? shmcache_flush() : false;
}
echo json_encode($out, JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES), "\n";
