<?php
/**
 * Installing and removing the object-cache drop-in (wp-content/object-cache.php).
 *
 * The drop-in is copied, never symlinked: a site that is moved or restored from a backup keeps
 * a working file. A drop-in that is not shmcache's is never overwritten or removed. These
 * functions take the target directory as a parameter and check no capability (their callers
 * do), so the tests can run them on a temporary directory.
 *
 * @package shmcache
 */

defined( 'ABSPATH' ) || exit;

/** Text every version of shmcache's drop-in carries in its header. */
const SHMCACHE_PLUGIN_DROPIN_MARK = 'shmcache object cache drop-in';

/**
 * The drop-in this plugin installs: its own copy (a built plugin, scripts/build-plugin.sh),
 * else the repository's wordpress/object-cache.php next to the plugin directory.
 *
 * @return string Path, or '' when neither exists.
 */
function shmcache_plugin_dropin_source() {
	foreach ( array( SHMCACHE_PLUGIN_DIR . '/object-cache.php', dirname( SHMCACHE_PLUGIN_DIR ) . '/object-cache.php' ) as $file ) {
		if ( is_file( $file ) && is_readable( $file ) ) {
			return $file;
		}
	}
	return '';
}

/**
 * Whether PHP code is shmcache's drop-in: its header names it and it defines
 * SHMCACHE_DROPIN_VERSION.
 */
function shmcache_plugin_is_our_dropin_code( $code ) {
	$head = substr( (string) $code, 0, 8192 );
	return false !== stripos( $head, SHMCACHE_PLUGIN_DROPIN_MARK ) && false !== strpos( $head, 'SHMCACHE_DROPIN_VERSION' );
}

/**
 * What a drop-in file is.
 *
 * @param string $file Path of an object-cache.php.
 * @return array{exists:bool, symlink:bool, ours:bool, version:string, owner:string}
 *   owner: the "Plugin Name:" (or the first line of the first doc comment) of a foreign file.
 */
function shmcache_plugin_dropin_file_info( $file ) {
	$out = array(
		'exists'  => false,
		'symlink' => is_link( $file ),
		'ours'    => false,
		'version' => '',
		'owner'   => '',
	);
	if ( ! is_file( $file ) ) {
		return $out;
	}
	$out['exists'] = true;
	$head          = is_readable( $file ) ? (string) file_get_contents( $file, false, null, 0, 8192 ) : '';
	$out['ours']   = shmcache_plugin_is_our_dropin_code( $head );
	if ( $out['ours'] ) {
		if ( preg_match( "/define\\(\\s*'SHMCACHE_DROPIN_VERSION'\\s*,\\s*'([^']+)'/", $head, $mm ) || preg_match( '/^[ \t\/*#@]*Version:\s*(\S+)/mi', $head, $mm ) ) {
			$out['version'] = $mm[1];
		}
	} elseif ( preg_match( '/^[ \t\/*#@]*Plugin Name:\s*(.+)$/mi', $head, $mm ) ) {
		$out['owner'] = trim( $mm[1] );
	} elseif ( preg_match( '#/\*\*?\s*\n?\s*\*?\s*([^\n*][^\n]*)#', $head, $mm ) ) {
		$out['owner'] = trim( $mm[1] );
	}
	$out['owner'] = substr( $out['owner'], 0, 120 );
	return $out;
}

/** Version of a drop-in source file ('' when it has none). */
function shmcache_plugin_dropin_version( $file ) {
	return '' === $file ? '' : shmcache_plugin_dropin_file_info( $file )['version'];
}

/**
 * Installs shmcache's drop-in as $content_dir/object-cache.php.
 *
 * A missing file is created; an older shmcache drop-in (or a symlink to a different one) is
 * replaced; a foreign file is left alone. The new file is written under a temporary name and
 * renamed into place, so a request never loads half a file, and a symlink is replaced by a
 * file instead of having its target written through.
 *
 * @param string      $content_dir Directory WordPress loads object-cache.php from (WP_CONTENT_DIR).
 * @param string|null $source      Drop-in to copy (default: shmcache_plugin_dropin_source()).
 * @return array{result:string, message:string, file:string}
 *   result: 'installed' (there was none), 'updated' (an older or different shmcache drop-in was
 *   replaced), 'unchanged' (the same or a newer shmcache drop-in is there), 'foreign' (another
 *   drop-in is there; nothing was written) or 'error'.
 */
function shmcache_install_dropin( $content_dir, $source = null ) {
	$content_dir = rtrim( (string) $content_dir, '/\\' );
	$target      = $content_dir . '/object-cache.php';
	$source      = null === $source ? shmcache_plugin_dropin_source() : (string) $source;
	$result      = static function ( $result, $message ) use ( $target ) {
		return array(
			'result'  => $result,
			'message' => $message,
			'file'    => $target,
		);
	};

	if ( '' === $source || ! is_file( $source ) || ! is_readable( $source ) ) {
		return $result( 'error', 'The plugin\'s copy of object-cache.php is missing (rebuild the plugin with scripts/build-plugin.sh).' );
	}
	$code = (string) file_get_contents( $source );
	if ( ! shmcache_plugin_is_our_dropin_code( $code ) ) {
		return $result( 'error', $source . ' is not shmcache\'s drop-in.' );
	}
	if ( ! is_dir( $content_dir ) ) {
		return $result( 'error', $content_dir . ' is not a directory.' );
	}

	$existing = shmcache_plugin_dropin_file_info( $target );
	if ( $existing['exists'] && ! $existing['ours'] ) {
		return $result( 'foreign', $target . ' belongs to ' . ( '' !== $existing['owner'] ? '"' . $existing['owner'] . '"' : 'another plugin' ) . '; shmcache did not overwrite it.' );
	}
	if ( $existing['exists'] ) {
		$new_version = shmcache_plugin_dropin_file_info( $source )['version'];
		if ( (string) file_get_contents( $target ) === $code ) {
			return $result( 'unchanged', 'shmcache\'s drop-in is already installed.' );
		}
		if ( '' !== $existing['version'] && '' !== $new_version && version_compare( $existing['version'], $new_version, '>' ) ) {
			return $result( 'unchanged', 'A newer shmcache drop-in (' . $existing['version'] . ') is installed; it was kept.' );
		}
	}

	if ( ! is_writable( $content_dir ) ) {
		return $result( 'error', $content_dir . ' is not writable by PHP: copy ' . $source . ' to ' . $target . ' yourself.' );
	}
	$tmp = $content_dir . '/.object-cache.php.shmcache-' . bin2hex( random_bytes( 6 ) );
	if ( false === file_put_contents( $tmp, $code, LOCK_EX ) ) {
		return $result( 'error', 'Could not write ' . $tmp . '.' );
	}
	chmod( $tmp, 0644 );
	// Whatever appeared meanwhile: still never replace a foreign file.
	$now = shmcache_plugin_dropin_file_info( $target );
	if ( $now['exists'] && ! $now['ours'] ) {
		unlink( $tmp );
		return $result( 'foreign', $target . ' appeared meanwhile and is not shmcache\'s; it was left alone.' );
	}
	if ( ! rename( $tmp, $target ) ) {
		unlink( $tmp );
		return $result( 'error', 'Could not move the drop-in into place as ' . $target . '.' );
	}
	if ( function_exists( 'opcache_invalidate' ) ) {
		opcache_invalidate( $target, true );
	}
	clearstatcache( true, $target );
	return $existing['exists']
		? $result( 'updated', 'shmcache\'s drop-in was updated.' )
		: $result( 'installed', 'shmcache\'s drop-in was installed.' );
}

/**
 * Removes $content_dir/object-cache.php if it is shmcache's drop-in (file or symlink).
 *
 * @return array{result:string, message:string, file:string}
 *   result: 'removed', 'absent', 'foreign' (left alone) or 'error'.
 */
function shmcache_uninstall_dropin( $content_dir ) {
	$target = rtrim( (string) $content_dir, '/\\' ) . '/object-cache.php';
	$result = static function ( $result, $message ) use ( $target ) {
		return array(
			'result'  => $result,
			'message' => $message,
			'file'    => $target,
		);
	};
	$info   = shmcache_plugin_dropin_file_info( $target );
	if ( ! $info['exists'] ) {
		return $result( 'absent', 'No object-cache drop-in is installed.' );
	}
	if ( ! $info['ours'] ) {
		return $result( 'foreign', $target . ' is not shmcache\'s drop-in; it was left alone.' );
	}
	if ( ! is_writable( dirname( $target ) ) || ! unlink( $target ) ) {
		return $result( 'error', 'Could not remove ' . $target . '; delete it yourself.' );
	}
	if ( function_exists( 'opcache_invalidate' ) ) {
		opcache_invalidate( $target, true );
	}
	clearstatcache( true, $target );
	return $result( 'removed', 'shmcache\'s drop-in was removed.' );
}

/**
 * The key salt shmcache's drop-in uses for this site (WP_Object_Cache::site_salt()), also when
 * the drop-in is not loaded in this request (core's cache then has no site_salt()).
 */
function shmcache_plugin_site_salt() {
	if ( class_exists( 'WP_Object_Cache', false ) && method_exists( 'WP_Object_Cache', 'site_salt' ) ) {
		return (string) WP_Object_Cache::site_salt();
	}
	return shmcache_plugin_derived_site_salt();
}

/**
 * The same derivation as WP_Object_Cache::site_salt() in object-cache.php, for requests where
 * the drop-in is not loaded (a test checks that the two agree).
 */
function shmcache_plugin_derived_site_salt() {
	if ( defined( 'WP_CACHE_KEY_SALT' ) && '' !== (string) WP_CACHE_KEY_SALT ) {
		return (string) WP_CACHE_KEY_SALT;
	}
	global $table_prefix;
	$parts = array(
		defined( 'DB_HOST' ) ? DB_HOST : '',
		defined( 'DB_NAME' ) ? DB_NAME : '',
		isset( $table_prefix ) ? $table_prefix : '',
		ABSPATH,
	);
	return 'wp-' . substr( md5( implode( '|', $parts ) ), 0, 12 );
}

/**
 * Retires everything shmcache holds for this site. With shmcache's drop-in loaded this is
 * wp_cache_flush(); without it (e.g. in the request that installs it), the site namespace is
 * flushed directly, which retires all of the site's group namespaces as wp_cache_flush() does.
 *
 * Used when the drop-in is installed where there was none: while it was absent WordPress wrote
 * to the database without updating shared memory, so whatever shared memory still holds from an
 * earlier installation is stale.
 *
 * @return bool Whether shared memory was flushed (false: no enabled extension in this process).
 */
function shmcache_plugin_flush_site() {
	if ( ! class_exists( 'ShmCache', false ) || ! function_exists( 'shmcache_info' ) ) {
		return false;
	}
	$info = shmcache_info();
	if ( empty( $info['enabled'] ) ) {
		return false;
	}
	$cache = isset( $GLOBALS['wp_object_cache'] ) ? $GLOBALS['wp_object_cache'] : null;
	if ( defined( 'SHMCACHE_DROPIN_VERSION' ) && is_object( $cache ) && ! empty( $cache->persistent ) ) {
		return (bool) wp_cache_flush();
	}
	return ( new ShmCache( shmcache_plugin_site_salt() ) )->flush();
}
