<?php
/**
 * A command-line script that loads WordPress (wp-load.php, through bootstrap-wp.php) the way cron
 * runners and CLI tools do, and reports how the object cache came up, as one JSON line:
 *
 *   php cli-cache-check.php [set NAME VALUE | get NAME]
 *
 *   dropin       true when WP_Object_Cache is the drop-in's class (not core's)
 *   persistent   the drop-in's $persistent (shared memory in use), null for core's class
 *   reason       the drop-in's $unavailable_reason
 *   ext_cache    wp_using_ext_object_cache() once WordPress is loaded
 *   multisite    is_multisite(); sites: the paths of the network's sites
 *   second_name  the blogname of the site at /second/, read through switch_to_blog()
 *   transient    with `set`: set_transient()'s result; with `get`: the value, or false
 *
 * Used by scripts/test-multisite.sh; WP_STACK_HOST names the stack.
 */

if (PHP_SAPI !== 'cli') {
    exit(1);
}
define('SAVEQUERIES', false);
require __DIR__ . '/../tests/bootstrap-wp.php';

$cache = $GLOBALS['wp_object_cache'];
$dropin = (new ReflectionClass($cache))->getFileName() !== ABSPATH . WPINC . '/class-wp-object-cache.php';
$report = [
    'dropin' => $dropin,
    'persistent' => $dropin ? $cache->persistent : null,
    'reason' => $dropin ? $cache->unavailable_reason : null,
    'ext_cache' => wp_using_ext_object_cache(),
    'multisite' => is_multisite(),
];
if (is_multisite()) {
    $report['sites'] = array_map(static fn ($site) => $site->path, get_sites());
    $second = get_sites(['domain' => get_network()->domain, 'path' => '/second/']);
    if ($second) {
        switch_to_blog((int) $second[0]->blog_id);
        $report['second_name'] = get_option('blogname');
        restore_current_blog();
    }
}
$action = $argv[1] ?? '';
if ($action === 'set') {
    $report['transient'] = set_transient($argv[2], $argv[3], HOUR_IN_SECONDS);
} elseif ($action === 'get') {
    $report['transient'] = get_transient($argv[2]);
}
echo json_encode($report), "\n";
