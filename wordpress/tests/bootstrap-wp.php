<?php
/**
 * Loads the wp-stack harness site (scripts/wp-stack.sh) in the PHP CLI: for PHPUnit
 * (`phpunit --bootstrap wordpress/tests/bootstrap-wp.php ...`), for `php -r 'require ...'`
 * and for the harness's own scripts. The site must be installed (`scripts/wp-stack.sh start`);
 * MariaDB must be running.
 *
 * Debian's /usr/share/wordpress/wp-config.php picks /etc/wordpress/config-<host>.php from
 * $_SERVER['HTTP_HOST'] (port dropped), so this sets HTTP_HOST to the harness host
 * "127.0.0.1:PORT": from the environment variable WP_STACK_HOST, else from
 * target/wp-stack/conf/host (written by every start), else 127.0.0.1:8089.
 *
 * The object-cache drop-in is used when it is enabled (`wp-stack.sh dropin on`); give PHP the
 * extension with `-d extension=target/release/libshmcache.so -d shmcache.enable_cli=1` (a CLI
 * process gets a private region of its own, shared with no FPM worker).
 *
 * Before requiring this file a caller may define SAVEQUERIES (the harness config defines it true
 * otherwise: every query is kept in memory) or WP_INSTALLING.
 *
 * PHPUnit includes its bootstrap file inside a method, so the variables that the WordPress files
 * set at their top level would be locals of that method: they are declared global here first.
 */

if (PHP_SAPI !== 'cli' && PHP_SAPI !== 'phpdbg') {
    http_response_code(403);
    exit('bootstrap-wp.php is for the command line' . PHP_EOL);
}

(static function (): void {
    $host = getenv('WP_STACK_HOST');
    if ($host === false || $host === '') {
        $file = dirname(__DIR__, 2) . '/target/wp-stack/conf/host';
        $host = is_readable($file) ? trim((string) file_get_contents($file)) : '';
    }
    if ($host === '') {
        $host = '127.0.0.1:8089';
    }
    $port = (int) (parse_url('http://' . $host, PHP_URL_PORT) ?: 80);
    $_SERVER['HTTP_HOST'] = $host;
    $_SERVER['SERVER_NAME'] = (string) parse_url('http://' . $host, PHP_URL_HOST);
    $_SERVER['SERVER_PORT'] = (string) $port;
    $_SERVER['SERVER_PROTOCOL'] = $_SERVER['SERVER_PROTOCOL'] ?? 'HTTP/1.1';
    $_SERVER['REQUEST_METHOD'] = $_SERVER['REQUEST_METHOD'] ?? 'GET';
    $_SERVER['REQUEST_URI'] = $_SERVER['REQUEST_URI'] ?? '/';
    $_SERVER['REMOTE_ADDR'] = $_SERVER['REMOTE_ADDR'] ?? '127.0.0.1';
    $_SERVER['HTTP_USER_AGENT'] = $_SERVER['HTTP_USER_AGENT'] ?? 'wp-stack-cli';
    unset($_SERVER['HTTPS']);
})();

if (!is_file('/etc/wordpress/config-' . $_SERVER['SERVER_NAME'] . '.php')) {
    fwrite(STDERR, "bootstrap-wp.php: /etc/wordpress/config-{$_SERVER['SERVER_NAME']}.php is missing: run `bash scripts/wp-stack.sh start`\n");
    exit(1);
}

// Top-level variables of wp-config.php (Debian's and the harness's) and wp-settings.php.
global $table_prefix, $wpdb, $wp_version, $wp_db_version, $tinymce_version, $required_php_version,
    $required_mysql_version, $wp_local_package, $blog_id, $locale, $locale_file,
    $debian_server, $debian_file, $debian_main_server, $debian_main_file,
    $wp, $wp_query, $wp_the_query, $wp_rewrite, $wp_roles, $wp_locale, $wp_embed,
    $wp_widget_factory, $wp_object_cache, $wp_filter, $wp_actions, $wp_current_filter,
    $current_user, $shortcode_tags, $wp_theme_directories, $wp_plugin_paths, $PHP_SELF,
    $timestart, $pagenow, $is_apache, $is_IIS, $is_iis7, $is_nginx, $allowedposttags,
    $allowedtags, $allowedentitynames, $wp_textdomain_registry, $wp_locale_switcher,
    $wp_post_types, $wp_taxonomies, $wp_scripts, $wp_styles, $_wp_using_ext_object_cache;

require_once '/usr/share/wordpress/wp-load.php';
