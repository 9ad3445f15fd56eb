<?php
/**
 * Plugin Name: shmcache test harness
 * Description: Per-request statistics for the wp-stack harness (scripts/wp-stack.sh), only for requests that send "X-WP-Stack-Stats: 1". Other requests are not touched.
 *
 * Installed as a must-use plugin (symlink) in the harness's content dir. With the request header
 * "X-WP-Stack-Stats: 1" the response gets:
 *
 *   X-WP-Queries        get_num_queries(): database queries of the request
 *   X-WP-Cache-Calls    $wp_object_cache->calls when the object cache exposes such a public counter
 *                       (an int, or an array of ints that is summed); -1 when it does not
 *   X-WP-Worker-Pid     getmypid() of the PHP-FPM worker
 *   X-WP-Ext-Cache      1 when a persistent object cache (drop-in) is in use, else 0
 *   X-WP-Cache-Class    class of $wp_object_cache
 *   X-WP-Time-Ms        milliseconds since WordPress started ($timestart)
 *   X-WP-Peak-Memory    memory_get_peak_usage() in bytes
 *
 * How: at mu-plugin load (before any output) an output buffer is started; its handler runs when
 * the buffer ends (WordPress's wp_ob_end_flush_all() on 'shutdown', priority 1, or PHP's own flush
 * at the end of the request), while the whole page is still in the buffer and no header has been
 * sent, so header() still works there. The numbers are taken at that moment, i.e. they include all
 * the work that produced the page (and anything on 'shutdown' before priority 1).
 *
 * Fallback: if something flushed the buffer earlier (headers already sent), the same values are
 * appended to the body as one HTML comment, <!-- wp-stack-stats X-WP-Queries=12 ... -->, and the
 * header X-WP-Stack-Stats-Mode is then absent; it is "headers" when the headers were set.
 */

if (($_SERVER['HTTP_X_WP_STACK_STATS'] ?? '') === '1' && PHP_SAPI !== 'cli') {
    ob_start('shmcache_harness_stats_ob');
}

/** @return array<string, string> header name => value */
function shmcache_harness_stats(): array
{
    $cache = $GLOBALS['wp_object_cache'] ?? null;
    $calls = -1;
    if (is_object($cache)) {
        // `??` on an inaccessible (private/protected) or missing property gives the default.
        $v = $cache->calls ?? null;
        if (is_int($v)) {
            $calls = $v;
        } elseif (is_array($v)) {
            $calls = (int) array_sum(array_map('intval', $v));
        }
    }
    $start = $GLOBALS['timestart'] ?? ($_SERVER['REQUEST_TIME_FLOAT'] ?? microtime(true));
    return [
        'X-WP-Queries' => (string) (function_exists('get_num_queries') ? get_num_queries() : -1),
        'X-WP-Cache-Calls' => (string) $calls,
        'X-WP-Worker-Pid' => (string) getmypid(),
        'X-WP-Ext-Cache' => function_exists('wp_using_ext_object_cache') && wp_using_ext_object_cache() ? '1' : '0',
        'X-WP-Cache-Class' => is_object($cache) ? get_class($cache) : 'none',
        'X-WP-Time-Ms' => sprintf('%.1f', (microtime(true) - (float) $start) * 1000),
        'X-WP-Peak-Memory' => (string) memory_get_peak_usage(),
    ];
}

function shmcache_harness_stats_ob(string $buffer, int $phase): string
{
    if (!($phase & PHP_OUTPUT_HANDLER_FINAL)) {
        return $buffer; // an early flush: pass through, report at the end
    }
    $stats = shmcache_harness_stats();
    if (!headers_sent()) {
        foreach ($stats as $name => $value) {
            header("$name: $value");
        }
        header('X-WP-Stack-Stats-Mode: headers');
        return $buffer;
    }
    $pairs = [];
    foreach ($stats as $name => $value) {
        $pairs[] = $name . '=' . str_replace(['--', ' '], ['-', '_'], $value);
    }
    return $buffer . "\n<!-- wp-stack-stats " . implode(' ', $pairs) . " -->\n";
}

/*
 * Cross-worker check for the test suite: a request carrying
 *   X-WP-Stack-Cache-Set: <key>=<value>   stores the value with wp_cache_set() in group wp-stack;
 *   X-WP-Stack-Cache-Get: <key>           answers with X-WP-Stack-Cache-Value (or "MISS").
 * Either also answers X-WP-Stack-Cache-Pid. Inert for requests without these headers.
 */
if (PHP_SAPI !== 'cli' && (isset($_SERVER['HTTP_X_WP_STACK_CACHE_SET']) || isset($_SERVER['HTTP_X_WP_STACK_CACHE_GET']))) {
    add_action('init', static function (): void {
        header('X-WP-Stack-Cache-Pid: ' . getmypid());
        if (isset($_SERVER['HTTP_X_WP_STACK_CACHE_SET'])) {
            [$key, $value] = array_pad(explode('=', (string) $_SERVER['HTTP_X_WP_STACK_CACHE_SET'], 2), 2, '');
            header('X-WP-Stack-Cache-Stored: ' . (wp_cache_set($key, $value, 'wp-stack') ? '1' : '0'));
        }
        if (isset($_SERVER['HTTP_X_WP_STACK_CACHE_GET'])) {
            $value = wp_cache_get((string) $_SERVER['HTTP_X_WP_STACK_CACHE_GET'], 'wp-stack', false, $found);
            header('X-WP-Stack-Cache-Value: ' . ($found ? rawurlencode((string) $value) : 'MISS'));
        }
    });
}

/*
 * Transients for the test suite: a request carrying
 *   X-WP-Stack-Transient-Set: <name>=<value>   stores it with set_transient() (one hour);
 *   X-WP-Stack-Transient-Get: <name>           answers with X-WP-Stack-Transient-Value (or "MISS").
 * A transient that a later request reads survived its request: in the database, or in a
 * persistent object cache. Inert for requests without these headers.
 */
if (PHP_SAPI !== 'cli' && (isset($_SERVER['HTTP_X_WP_STACK_TRANSIENT_SET']) || isset($_SERVER['HTTP_X_WP_STACK_TRANSIENT_GET']))) {
    add_action('init', static function (): void {
        if (isset($_SERVER['HTTP_X_WP_STACK_TRANSIENT_SET'])) {
            [$name, $value] = array_pad(explode('=', (string) $_SERVER['HTTP_X_WP_STACK_TRANSIENT_SET'], 2), 2, '');
            header('X-WP-Stack-Transient-Stored: ' . (set_transient($name, $value, HOUR_IN_SECONDS) ? '1' : '0'));
        }
        if (isset($_SERVER['HTTP_X_WP_STACK_TRANSIENT_GET'])) {
            $value = get_transient((string) $_SERVER['HTTP_X_WP_STACK_TRANSIENT_GET']);
            header('X-WP-Stack-Transient-Value: ' . (false === $value ? 'MISS' : rawurlencode((string) $value)));
        }
    });
}
