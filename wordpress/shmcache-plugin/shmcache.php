<?php
/**
 * Plugin Name:       shmcache
 * Description:       Keeps WordPress's object cache in shared memory with the shmcache PHP extension: installs the object-cache drop-in, shows the cache's health under Tools → shmcache and in Site Health, and flushes this site's entries.
 * Version:           0.1.0
 * Requires at least: 6.1
 * Requires PHP:      8.2
 * Network:           true
 * License:           MIT
 * Text Domain:       shmcache
 *
 * Activation copies the object-cache drop-in into wp-content (never over another plugin's
 * drop-in); deactivation removes it again if it is shmcache's. Everything that shows or changes
 * the cache needs manage_options (manage_network_options on multisite: the drop-in and the
 * cache serve the whole network).
 *
 * @package shmcache
 */

defined( 'ABSPATH' ) || exit;

const SHMCACHE_PLUGIN_VERSION = '0.1.0';
const SHMCACHE_PLUGIN_FILE    = __FILE__;
const SHMCACHE_PLUGIN_DIR     = __DIR__;

require_once __DIR__ . '/includes/health.php';
require_once __DIR__ . '/includes/dropin.php';
require_once __DIR__ . '/includes/admin.php';
require_once __DIR__ . '/includes/site-health.php';
if ( is_readable( __DIR__ . '/includes/page-cache.php' ) ) {
	require_once __DIR__ . '/includes/page-cache.php';
}

register_activation_hook( __FILE__, 'shmcache_plugin_activate' );
register_deactivation_hook( __FILE__, 'shmcache_plugin_deactivate' );

/** The capability that shows and changes the cache: the drop-in serves the whole network. */
function shmcache_plugin_capability() {
	return is_multisite() ? 'manage_network_options' : 'manage_options';
}

function shmcache_plugin_user_can_manage() {
	return current_user_can( shmcache_plugin_capability() );
}

/**
 * The directory WordPress loads object-cache.php from. The filter exists for the tests (and
 * for layouts where the drop-in is managed elsewhere): WordPress itself always reads
 * WP_CONTENT_DIR/object-cache.php.
 */
function shmcache_plugin_content_dir() {
	return (string) apply_filters( 'shmcache_plugin_content_dir', WP_CONTENT_DIR );
}

function shmcache_plugin_is_wp_cli() {
	return defined( 'WP_CLI' ) && WP_CLI;
}

/**
 * Activation: installs the drop-in (see shmcache_install_dropin()). A drop-in installed where
 * there was none starts from an empty cache for this site, since shared memory may still hold
 * values from an earlier installation that WordPress no longer kept up to date.
 *
 * @param bool $network_wide Unused: the drop-in always serves the whole installation.
 * @return array|null The install result, null when the current user may not do it.
 */
function shmcache_plugin_activate( $network_wide = false ) {
	if ( ! shmcache_plugin_user_can_manage() && ! shmcache_plugin_is_wp_cli() ) {
		return null;
	}
	$result = shmcache_install_dropin( shmcache_plugin_content_dir() );
	if ( 'installed' === $result['result'] ) {
		shmcache_plugin_flush_site();
	}
	if ( shmcache_plugin_is_wp_cli() && class_exists( 'WP_CLI' ) ) {
		WP_CLI::log( 'shmcache: ' . $result['message'] );
	}
	return $result;
}

/**
 * Deactivation: removes the drop-in if it is shmcache's; another plugin's stays.
 *
 * @param bool $network_wide Unused.
 * @return array|null The uninstall result, null when the current user may not do it.
 */
function shmcache_plugin_deactivate( $network_wide = false ) {
	if ( ! shmcache_plugin_user_can_manage() && ! shmcache_plugin_is_wp_cli() ) {
		return null;
	}
	$result = shmcache_uninstall_dropin( shmcache_plugin_content_dir() );
	// The page cache drop-in goes too: it would otherwise keep serving pages that nothing
	// purges any more once the plugin's hooks are gone.
	if ( function_exists( 'shmcache_page_cache_uninstall' ) ) {
		shmcache_page_cache_uninstall();
	}
	if ( shmcache_plugin_is_wp_cli() && class_exists( 'WP_CLI' ) ) {
		WP_CLI::log( 'shmcache: ' . $result['message'] );
	}
	return $result;
}

/**
 * Everything the admin screen and Site Health judge: shmcache_info() of this process and the
 * facts shmcache_health_verdict() takes as $context.
 *
 * @return array{info:array, context:array}
 */
function shmcache_plugin_state() {
	$loaded  = extension_loaded( 'shmcache' ) && function_exists( 'shmcache_info' );
	$info    = $loaded ? shmcache_info() : array();
	$file    = shmcache_plugin_content_dir() . '/object-cache.php';
	$fi      = shmcache_plugin_dropin_file_info( $file );
	$cache   = isset( $GLOBALS['wp_object_cache'] ) ? $GLOBALS['wp_object_cache'] : null;
	$active  = defined( 'SHMCACHE_DROPIN_VERSION' ) && is_object( $cache ) && property_exists( $cache, 'persistent' );
	$source  = shmcache_plugin_dropin_source();
	$reason  = '';
	if ( $active ) {
		$reason = (string) $cache->unavailable_reason;
	}
	return array(
		'info'    => is_array( $info ) ? $info : array(),
		'context' => array(
			'extension_loaded' => $loaded,
			'sapi'             => PHP_SAPI,
			'now'              => time(),
			'dropin'           => array(
				'file'               => $file,
				'installed'          => $fi['exists'],
				'symlink'            => $fi['symlink'],
				'ours'               => $fi['ours'],
				'owner'              => $fi['owner'],
				'version'            => $fi['version'],
				'active'             => $active,
				'loaded_version'     => $active ? (string) SHMCACHE_DROPIN_VERSION : '',
				'persistent'         => $active && ! empty( $cache->persistent ),
				'unavailable_reason' => $reason,
				'source'             => $source,
				'shipped_version'    => shmcache_plugin_dropin_version( $source ),
			),
		),
	);
}
