<?php
/**
 * Tools → shmcache: the health verdict, the shared cache's counters, the drop-in's state, the
 * groups this page load used, and the "Flush this site" and "Install the drop-in" buttons.
 * On multisite the same screen is also under Network Admin → Settings.
 *
 * @package shmcache
 */

defined( 'ABSPATH' ) || exit;

add_action( 'admin_menu', 'shmcache_plugin_admin_menu' );
add_action( 'network_admin_menu', 'shmcache_plugin_network_admin_menu' );
add_action( 'admin_post_shmcache_flush', 'shmcache_plugin_admin_post_flush' );
add_action( 'admin_post_shmcache_install_dropin', 'shmcache_plugin_admin_post_install' );
add_action( 'admin_notices', 'shmcache_plugin_admin_notices' );
add_action( 'network_admin_notices', 'shmcache_plugin_admin_notices' );
add_filter( 'plugin_action_links_' . plugin_basename( SHMCACHE_PLUGIN_FILE ), 'shmcache_plugin_action_links' );
add_filter( 'network_admin_plugin_action_links_' . plugin_basename( SHMCACHE_PLUGIN_FILE ), 'shmcache_plugin_action_links' );

function shmcache_plugin_admin_menu() {
	add_management_page(
		__( 'shmcache', 'shmcache' ),
		__( 'shmcache', 'shmcache' ),
		shmcache_plugin_capability(),
		'shmcache',
		'shmcache_plugin_render_admin_page'
	);
}

function shmcache_plugin_network_admin_menu() {
	add_submenu_page(
		'settings.php',
		__( 'shmcache', 'shmcache' ),
		__( 'shmcache', 'shmcache' ),
		shmcache_plugin_capability(),
		'shmcache',
		'shmcache_plugin_render_admin_page'
	);
}

/** URL of the admin screen (the network one in the network admin). */
function shmcache_plugin_page_url() {
	return is_network_admin() ? network_admin_url( 'settings.php?page=shmcache' ) : admin_url( 'tools.php?page=shmcache' );
}

function shmcache_plugin_action_links( $links ) {
	if ( shmcache_plugin_user_can_manage() ) {
		array_unshift( $links, '<a href="' . esc_url( shmcache_plugin_page_url() ) . '">' . esc_html__( 'Status', 'shmcache' ) . '</a>' );
	}
	return $links;
}

/** Where a form handler sends the browser back to: the screen the form was on. */
function shmcache_plugin_return_url( array $args ) {
	$back = wp_get_referer();
	if ( ! $back || false === strpos( $back, 'page=shmcache' ) ) {
		$back = admin_url( 'tools.php?page=shmcache' );
	}
	return add_query_arg( $args, remove_query_arg( array( 'shmcache_flushed', 'shmcache_dropin' ), $back ) );
}

/** Refuses (HTTP 403) a user without the capability. */
function shmcache_plugin_require_capability() {
	if ( ! shmcache_plugin_user_can_manage() ) {
		wp_die(
			esc_html__( 'Sorry, you are not allowed to manage the shmcache object cache.', 'shmcache' ),
			esc_html__( 'Forbidden', 'shmcache' ),
			array(
				'response'  => 403,
				'back_link' => true,
			)
		);
	}
}

/**
 * The "Flush this site" form's handler: checks the capability and the nonce (wp_die() with
 * 403 when either is missing), then wp_cache_flush(), which with shmcache's drop-in retires
 * every namespace of this site (other sites sharing the cache are not touched).
 *
 * @return string The URL to send the browser back to, carrying the outcome.
 */
function shmcache_plugin_handle_flush() {
	shmcache_plugin_require_capability();
	check_admin_referer( 'shmcache_flush', 'shmcache_flush_nonce' );
	$cache      = isset( $GLOBALS['wp_object_cache'] ) ? $GLOBALS['wp_object_cache'] : null;
	$persistent = defined( 'SHMCACHE_DROPIN_VERSION' ) && is_object( $cache ) && ! empty( $cache->persistent );
	$ok         = wp_cache_flush();
	if ( function_exists( 'shmcache_page_cache_purge_all' ) ) {
		shmcache_page_cache_purge_all( 'site flushed from the admin screen', true );
	}
	return shmcache_plugin_return_url( array( 'shmcache_flushed' => $ok ? ( $persistent ? 'shared' : 'request' ) : 'failed' ) );
}

/**
 * The "Install or update the drop-in" form's handler (same checks as the flush).
 *
 * @return string The URL to send the browser back to, carrying the outcome.
 */
function shmcache_plugin_handle_install() {
	shmcache_plugin_require_capability();
	check_admin_referer( 'shmcache_install_dropin', 'shmcache_install_nonce' );
	$result = shmcache_install_dropin( shmcache_plugin_content_dir() );
	if ( 'installed' === $result['result'] ) {
		shmcache_plugin_flush_site();
	}
	return shmcache_plugin_return_url( array( 'shmcache_dropin' => $result['result'] ) );
}

function shmcache_plugin_admin_post_flush() {
	wp_safe_redirect( shmcache_plugin_handle_flush() );
	exit;
}

function shmcache_plugin_admin_post_install() {
	wp_safe_redirect( shmcache_plugin_handle_install() );
	exit;
}

/**
 * Notices on the Plugins screen and the Dashboard when the drop-in is not shmcache's or is
 * missing (activation never overwrites another plugin's drop-in; this says so).
 */
function shmcache_plugin_admin_notices() {
	if ( ! shmcache_plugin_user_can_manage() || ! function_exists( 'get_current_screen' ) ) {
		return;
	}
	$screen = get_current_screen();
	if ( ! $screen || ! in_array( $screen->id, array( 'plugins', 'plugins-network', 'dashboard', 'dashboard-network' ), true ) ) {
		return;
	}
	$file = shmcache_plugin_content_dir() . '/object-cache.php';
	$fi   = shmcache_plugin_dropin_file_info( $file );
	if ( $fi['exists'] && $fi['ours'] ) {
		return;
	}
	if ( $fi['exists'] ) {
		$text = sprintf(
			/* translators: 1: file path, 2: name of the other drop-in */
			__( 'shmcache did not install its object-cache drop-in: %1$s belongs to %2$s, and shmcache never overwrites another plugin\'s drop-in. WordPress keeps using that one. To use shmcache, deactivate the plugin that owns it (or delete the file), then install shmcache\'s drop-in.', 'shmcache' ),
			$file,
			'' !== $fi['owner'] ? '"' . $fi['owner'] . '"' : __( 'another plugin', 'shmcache' )
		);
	} else {
		$text = sprintf(
			/* translators: %s: file path */
			__( 'shmcache is active but its object-cache drop-in (%s) is not installed, so WordPress does not use the shared cache.', 'shmcache' ),
			$file
		);
	}
	printf(
		'<div class="notice notice-warning shmcache-dropin-notice"><p>%s <a href="%s">%s</a></p></div>',
		esc_html( $text ),
		esc_url( admin_url( 'tools.php?page=shmcache' ) ),
		esc_html__( 'Tools → shmcache', 'shmcache' )
	);
}

/** A table row of the counters: name, value (raw in data-value, for scripts), explanation. */
function shmcache_plugin_counter_row( $key, $label, $shown, $raw, $help ) {
	printf(
		'<tr data-counter="%1$s" data-value="%2$s"><th scope="row">%3$s</th><td class="shmcache-value">%4$s</td><td class="description">%5$s</td></tr>' . "\n",
		esc_attr( $key ),
		esc_attr( (string) $raw ),
		esc_html( $label ),
		esc_html( $shown ),
		esc_html( $help )
	);
}

/** The outcome notice after one of the buttons, from the query string. */
function shmcache_plugin_result_notice() {
	// Only a message chosen from a fixed list is shown: no state changes here, so no nonce.
	// phpcs:disable WordPress.Security.NonceVerification.Recommended
	$notices = array();
	if ( isset( $_GET['shmcache_flushed'] ) ) {
		$flushed = sanitize_key( wp_unslash( $_GET['shmcache_flushed'] ) );
		$map     = array(
			'shared'  => array( 'success', __( 'Flushed: this site\'s entries in shmcache\'s shared memory are gone. Other sites sharing the cache were not touched.', 'shmcache' ) ),
			'request' => array( 'warning', __( 'Flushed, but the object cache is not in shared memory (see the drop-in below), so only this page load\'s cache was emptied.', 'shmcache' ) ),
			'failed'  => array( 'error', __( 'The object cache could not be flushed.', 'shmcache' ) ),
		);
		if ( isset( $map[ $flushed ] ) ) {
			$notices[] = $map[ $flushed ];
		}
	}
	if ( isset( $_GET['shmcache_dropin'] ) ) {
		$dropin = sanitize_key( wp_unslash( $_GET['shmcache_dropin'] ) );
		$map    = array(
			'installed' => array( 'success', __( 'shmcache\'s object-cache drop-in was installed; this site\'s cache starts empty.', 'shmcache' ) ),
			'updated'   => array( 'success', __( 'shmcache\'s object-cache drop-in was updated.', 'shmcache' ) ),
			'unchanged' => array( 'info', __( 'shmcache\'s object-cache drop-in was already installed.', 'shmcache' ) ),
			'foreign'   => array( 'error', __( 'Another plugin\'s object-cache drop-in is installed; shmcache did not overwrite it.', 'shmcache' ) ),
			'error'     => array( 'error', __( 'The drop-in could not be installed: wp-content is probably not writable by PHP. Copy object-cache.php from the plugin into wp-content yourself.', 'shmcache' ) ),
		);
		if ( isset( $map[ $dropin ] ) ) {
			$notices[] = $map[ $dropin ];
		}
	}
	// phpcs:enable
	foreach ( $notices as $n ) {
		printf( '<div class="notice notice-%1$s inline shmcache-result"><p>%2$s</p></div>', esc_attr( $n[0] ), esc_html( $n[1] ) );
	}
}

/**
 * The "Region" table: which region this page load used, and whether the command line can
 * reach it.
 *
 * @param array $region shmcache_plugin_region().
 */
function shmcache_plugin_render_region( array $region ) {
	if ( 'unknown' === $region['kind'] ) {
		return; // an extension without named regions: nothing to show
	}
	$kinds = array(
		'named'     => __( 'named: a file shared by every PHP process that names it (PHP-FPM, WP-CLI, cron), kept across PHP-FPM reloads', 'shmcache' ),
		'anonymous' => 'cli' === PHP_SAPI || 'phpdbg' === PHP_SAPI
			? __( 'anonymous: private to this command-line process', 'shmcache' )
			: __( 'anonymous: this PHP-FPM master\'s own; the command line cannot reach it, and a reload empties it', 'shmcache' ),
		'error'     => __( 'named, but it could not be opened: no cache in this process', 'shmcache' ),
		'none'      => __( 'none', 'shmcache' ),
	);
	$rows  = array(
		'kind'           => array( __( 'Region', 'shmcache' ), isset( $kinds[ $region['kind'] ] ) ? $kinds[ $region['kind'] ] : $region['kind'] ),
		'name'           => array( __( 'Name (shmcache.region)', 'shmcache' ), '' !== $region['name'] ? $region['name'] : '-' ),
		'path'           => array( __( 'File', 'shmcache' ), '' !== $region['path'] ? $region['path'] : '-' ),
		'opened'         => array( __( 'Opened by this page load', 'shmcache' ), '' !== $region['opened'] ? $region['opened'] : '-' ),
		'layout_version' => array( __( 'Layout version', 'shmcache' ), (string) $region['layout_version'] ),
	);
	if ( '' !== $region['error'] ) {
		$rows['error'] = array( __( 'Error', 'shmcache' ), $region['error'] );
	}
	?>
	<h2><?php esc_html_e( 'Region', 'shmcache' ); ?></h2>
	<table class="widefat striped shmcache-table shmcache-region" data-region-kind="<?php echo esc_attr( $region['kind'] ); ?>">
		<tbody>
		<?php
		foreach ( $rows as $key => $row ) {
			$raw = 'kind' === $key ? $region['kind'] : ( isset( $region[ $key ] ) ? (string) $region[ $key ] : '' );
			printf(
				'<tr data-region="%1$s" data-value="%2$s"><th scope="row">%3$s</th><td colspan="2">%4$s</td></tr>' . "\n",
				esc_attr( $key ),
				esc_attr( $raw ),
				esc_html( $row[0] ),
				in_array( $key, array( 'name', 'path' ), true ) && '-' !== $row[1] ? '<code>' . esc_html( $row[1] ) . '</code>' : esc_html( $row[1] )
			);
		}
		?>
		</tbody>
	</table>
	<?php
}

/** Tools → shmcache. */
function shmcache_plugin_render_admin_page() {
	if ( ! shmcache_plugin_user_can_manage() ) {
		echo '<div class="wrap"><p>' . esc_html__( 'Sorry, you are not allowed to manage the shmcache object cache.', 'shmcache' ) . '</p></div>';
		return;
	}
	$state   = shmcache_plugin_state();
	$info    = $state['info'];
	$context = $state['context'];
	$d       = $context['dropin'];
	$verdict = shmcache_health_verdict( $info, $context );
	$m       = shmcache_plugin_metrics( $info, $context['now'] );
	$enabled = ! empty( $info['enabled'] );
	$g       = static function ( $key ) use ( $info ) {
		return isset( $info[ $key ] ) && is_numeric( $info[ $key ] ) ? (int) $info[ $key ] : 0;
	};
	$titles  = array(
		'good'        => __( 'Good', 'shmcache' ),
		'recommended' => __( 'Should be improved', 'shmcache' ),
		'critical'    => __( 'Critical', 'shmcache' ),
	);
	$classes = array(
		'good'        => 'success',
		'recommended' => 'warning',
		'critical'    => 'error',
	);
	$yes     = __( 'yes', 'shmcache' );
	$no      = __( 'no', 'shmcache' );
	?>
	<div class="wrap shmcache-admin">
	<style>
		.shmcache-admin .shmcache-verdict h2 { margin: .6em 0 .3em; }
		.shmcache-admin .shmcache-verdict ul { list-style: disc; margin-left: 1.5em; }
		.shmcache-admin table.shmcache-table { max-width: 64em; margin-bottom: 1.5em; }
		.shmcache-admin table.shmcache-table th { width: 16em; }
		.shmcache-admin table.shmcache-table th, .shmcache-admin table.shmcache-table td { vertical-align: top; }
		.shmcache-admin table.shmcache-table td.shmcache-value { width: 14em; font-variant-numeric: tabular-nums; }
		.shmcache-admin .shmcache-badge { display: inline-block; padding: 0 .6em; border-radius: 3px; color: #fff; font-size: 13px; vertical-align: middle; }
		.shmcache-admin .shmcache-badge-good { background: #00a32a; }
		.shmcache-admin .shmcache-badge-recommended { background: #dba617; }
		.shmcache-admin .shmcache-badge-critical { background: #d63638; }
	</style>
	<h1><?php esc_html_e( 'shmcache', 'shmcache' ); ?></h1>
	<?php shmcache_plugin_result_notice(); ?>

	<div class="notice inline notice-<?php echo esc_attr( $classes[ $verdict['status'] ] ); ?> shmcache-verdict" data-shmcache-verdict="<?php echo esc_attr( $verdict['status'] ); ?>">
		<h2>
			<span class="shmcache-badge shmcache-badge-<?php echo esc_attr( $verdict['status'] ); ?>"><?php echo esc_html( $titles[ $verdict['status'] ] ); ?></span>
			<span class="shmcache-verdict-label"><?php echo esc_html( $verdict['label'] ); ?></span>
		</h2>
		<ul class="shmcache-reasons">
			<?php foreach ( $verdict['reasons'] as $reason ) : ?>
				<li><?php echo esc_html( $reason ); ?></li>
			<?php endforeach; ?>
		</ul>
		<?php if ( $verdict['actions'] ) : ?>
			<p><strong><?php esc_html_e( 'What to do:', 'shmcache' ); ?></strong></p>
			<ul class="shmcache-actions">
				<?php foreach ( $verdict['actions'] as $action ) : ?>
					<li><?php echo esc_html( $action ); ?></li>
				<?php endforeach; ?>
			</ul>
		<?php endif; ?>
	</div>

	<h2><?php esc_html_e( 'Object-cache drop-in', 'shmcache' ); ?></h2>
	<table class="widefat striped shmcache-table shmcache-dropin">
		<tbody>
		<tr><th scope="row"><?php esc_html_e( 'File', 'shmcache' ); ?></th><td colspan="2"><code><?php echo esc_html( $d['file'] ); ?></code></td></tr>
		<tr data-dropin="installed"><th scope="row"><?php esc_html_e( 'Installed', 'shmcache' ); ?></th><td colspan="2">
			<?php
			if ( ! $d['installed'] ) {
				echo esc_html( $no );
			} elseif ( $d['ours'] ) {
				/* translators: %s: drop-in version */
				echo esc_html( sprintf( __( 'yes: shmcache\'s drop-in, version %s', 'shmcache' ), '' !== $d['version'] ? $d['version'] : '?' ) . ( $d['symlink'] ? ' ' . __( '(a symlink)', 'shmcache' ) : '' ) );
			} else {
				/* translators: %s: name of the other drop-in */
				echo esc_html( sprintf( __( 'yes, but not shmcache\'s: %s (left alone)', 'shmcache' ), '' !== $d['owner'] ? $d['owner'] : __( 'another plugin\'s drop-in', 'shmcache' ) ) );
			}
			?>
		</td></tr>
		<tr data-dropin="active"><th scope="row"><?php esc_html_e( 'Used by this page load', 'shmcache' ); ?></th><td colspan="2">
			<?php
			if ( $d['active'] ) {
				/* translators: %s: drop-in version */
				echo esc_html( sprintf( __( 'yes (version %s)', 'shmcache' ), $d['loaded_version'] ) );
			} else {
				$class = isset( $GLOBALS['wp_object_cache'] ) && is_object( $GLOBALS['wp_object_cache'] ) ? get_class( $GLOBALS['wp_object_cache'] ) : '-';
				/* translators: %s: class name */
				echo esc_html( sprintf( __( 'no: WordPress uses %s', 'shmcache' ), wp_using_ext_object_cache() ? __( 'another drop-in', 'shmcache' ) . ' (' . $class . ')' : __( 'its own per-request cache', 'shmcache' ) ) );
			}
			?>
		</td></tr>
		<tr data-dropin="persistent" data-value="<?php echo $d['persistent'] ? '1' : '0'; ?>"><th scope="row"><?php esc_html_e( 'Shared memory', 'shmcache' ); ?></th><td colspan="2">
			<?php
			if ( $d['persistent'] ) {
				esc_html_e( 'yes: values are shared by every PHP-FPM worker', 'shmcache' );
			} elseif ( $d['active'] ) {
				/* translators: %s: the reason */
				echo esc_html( sprintf( __( 'no: %s', 'shmcache' ), '' !== $d['unavailable_reason'] ? $d['unavailable_reason'] : __( 'no reason given', 'shmcache' ) ) );
			} else {
				esc_html_e( 'no: shmcache\'s drop-in is not in use', 'shmcache' );
			}
			?>
		</td></tr>
		<tr><th scope="row"><?php esc_html_e( 'Plugin\'s copy', 'shmcache' ); ?></th><td colspan="2">
			<?php
			echo esc_html(
				'' !== $d['source']
					/* translators: 1: version, 2: path */
					? sprintf( __( 'version %1$s (%2$s)', 'shmcache' ), '' !== $d['shipped_version'] ? $d['shipped_version'] : '?', $d['source'] )
					: __( 'missing: rebuild the plugin with scripts/build-plugin.sh', 'shmcache' )
			);
			?>
		</td></tr>
		</tbody>
	</table>
	<?php if ( '' !== $d['source'] && ( ! $d['installed'] || ( $d['ours'] && $d['version'] !== $d['shipped_version'] ) ) ) : ?>
		<form method="post" action="<?php echo esc_url( admin_url( 'admin-post.php' ) ); ?>" class="shmcache-install-form">
			<input type="hidden" name="action" value="shmcache_install_dropin" />
			<?php wp_nonce_field( 'shmcache_install_dropin', 'shmcache_install_nonce' ); ?>
			<p><button type="submit" class="button button-primary"><?php esc_html_e( 'Install or update the drop-in', 'shmcache' ); ?></button></p>
		</form>
	<?php endif; ?>

	<?php shmcache_plugin_render_region( shmcache_plugin_region( $info ) ); ?>

	<h2><?php esc_html_e( 'Shared cache', 'shmcache' ); ?></h2>
	<?php if ( ! $enabled ) : ?>
		<p class="shmcache-no-counters"><?php esc_html_e( 'No counters: the shmcache extension is not loaded or not enabled in this PHP.', 'shmcache' ); ?></p>
	<?php else : ?>
		<p class="description">
			<?php
			/* translators: %s: SAPI name */
			$sapi = isset( $info['sapi'] ) ? (string) $info['sapi'] : PHP_SAPI;
			echo esc_html(
				'' !== (string) ( isset( $info['region'] ) ? $info['region'] : '' )
					/* translators: %s: SAPI name */
					? sprintf( __( 'Counted since the region was created, for every process that uses it (PHP-FPM pools, the command line; SAPI %s).', 'shmcache' ), $sapi )
					/* translators: %s: SAPI name */
					: sprintf( __( 'Counted since PHP-FPM started, for every site this PHP-FPM master serves (one shared region; SAPI %s).', 'shmcache' ), $sapi )
			);
			?>
		</p>
		<table class="widefat striped shmcache-table shmcache-counters">
			<tbody>
			<?php
			shmcache_plugin_counter_row( 'hit_rate', __( 'Hit rate', 'shmcache' ), $m['lookups'] > 0 ? shmcache_plugin_pct( $m['hit_rate'] ) : '-', round( $m['hit_rate'], 4 ), sprintf( /* translators: 1: hits, 2: misses */ __( '%1$s hits, %2$s misses', 'shmcache' ), shmcache_plugin_num( $g( 'hits' ) ), shmcache_plugin_num( $g( 'misses' ) ) ) );
			shmcache_plugin_counter_row( 'hits', __( 'Hits', 'shmcache' ), shmcache_plugin_num( $g( 'hits' ) ), $g( 'hits' ), __( 'lookups that found a live value', 'shmcache' ) );
			shmcache_plugin_counter_row( 'misses', __( 'Misses', 'shmcache' ), shmcache_plugin_num( $g( 'misses' ) ), $g( 'misses' ), __( 'lookups that found nothing (absent, expired, flushed or invalid)', 'shmcache' ) );
			shmcache_plugin_counter_row( 'sets', __( 'Writes', 'shmcache' ), shmcache_plugin_num( $g( 'sets' ) ), $g( 'sets' ), __( 'values stored (set, add, replace, incr, ...)', 'shmcache' ) );
			shmcache_plugin_counter_row( 'deletes', __( 'Deletes', 'shmcache' ), shmcache_plugin_num( $g( 'deletes' ) ), $g( 'deletes' ), __( 'live entries removed', 'shmcache' ) );
			shmcache_plugin_counter_row( 'slot_usage', __( 'Key slots used', 'shmcache' ), shmcache_plugin_pct( $m['slot_use'] ), round( $m['slot_use'], 4 ), sprintf( /* translators: 1: used, 2: total, 3: size */ __( '%1$s of %2$s slots (shmcache.keys_memory_size = %3$s)', 'shmcache' ), shmcache_plugin_num( $g( 'slots_used' ) ), shmcache_plugin_num( $g( 'slots_total' ) ), shmcache_plugin_bytes( $g( 'keys_memory_size' ) ) ) );
			shmcache_plugin_counter_row( 'ring_usage', __( 'Value ring used', 'shmcache' ), shmcache_plugin_pct( $m['ring_use'] ), round( $m['ring_use'], 4 ), sprintf( /* translators: 1: used, 2: total */ __( '%1$s of %2$s (shmcache.values_memory_size)', 'shmcache' ), shmcache_plugin_bytes( $g( 'values_used_bytes' ) ), shmcache_plugin_bytes( $g( 'values_memory_size' ) ) ) );
			shmcache_plugin_counter_row( 'kicks', __( 'Kicks', 'shmcache' ), shmcache_plugin_num( $g( 'kicks' ) ), $g( 'kicks' ), __( 'live keys evicted because the key table had no room', 'shmcache' ) );
			shmcache_plugin_counter_row( 'recycles', __( 'Recycles', 'shmcache' ), shmcache_plugin_num( $g( 'recycles' ) ), $g( 'recycles' ), sprintf( /* translators: %s: written bytes */ __( 'times the value ring wrapped around (%s written in all)', 'shmcache' ), shmcache_plugin_bytes( $g( 'values_written_bytes' ) ) ) );
			shmcache_plugin_counter_row( 'validation_failures', __( 'Validation failures', 'shmcache' ), shmcache_plugin_num( $g( 'validation_failures' ) ), $g( 'validation_failures' ), __( 'reads whose value failed its checks (never returned; counted as misses)', 'shmcache' ) );
			shmcache_plugin_counter_row( 'expired', __( 'Expired', 'shmcache' ), shmcache_plugin_num( $g( 'expired' ) ), $g( 'expired' ), __( 'lookups that found a value past its expiry time', 'shmcache' ) );
			shmcache_plugin_counter_row( 'flushes', __( 'Full flushes', 'shmcache' ), shmcache_plugin_num( $g( 'flushes' ) ), $g( 'flushes' ), __( 'the whole cache emptied (every site)', 'shmcache' ) );
			shmcache_plugin_counter_row( 'namespace_flushes', __( 'Namespace flushes', 'shmcache' ), shmcache_plugin_num( $g( 'namespace_flushes' ) ), $g( 'namespace_flushes' ), __( 'one site or one group emptied (wp_cache_flush, wp_cache_flush_group)', 'shmcache' ) );
			shmcache_plugin_counter_row( 'compressed_count', __( 'Compressed values', 'shmcache' ), shmcache_plugin_num( $g( 'compressed_count' ) ), $g( 'compressed_count' ), __( 'values stored LZ4-compressed', 'shmcache' ) );
			shmcache_plugin_counter_row( 'uptime', __( 'Uptime', 'shmcache' ), $g( 'start_time' ) > 0 ? shmcache_plugin_duration( $m['uptime'] ) : '-', $m['uptime'], __( 'since the cache was created (PHP-FPM start or reload)', 'shmcache' ) );
			shmcache_plugin_counter_row( 'version', __( 'Extension version', 'shmcache' ), isset( $info['version'] ) ? (string) $info['version'] : '-', isset( $info['version'] ) ? (string) $info['version'] : '', '' );
			if ( isset( $info['tier_redis'] ) ) {
				// Tiered mode: these are the counters of the worker that served this page.
				$near = $g( 'tier_near_hits' ) + $g( 'tier_near_misses' );
				shmcache_plugin_counter_row( 'tier_redis', __( 'Redis (tiered mode)', 'shmcache' ), (string) $info['tier_redis'], (string) $info['tier_redis'], __( 'the shared truth; this server keeps a near copy (counters below: this PHP worker)', 'shmcache' ) );
				shmcache_plugin_counter_row( 'tier_near_hit_rate', __( 'Near-cache hit rate', 'shmcache' ), $near > 0 ? shmcache_plugin_pct( $g( 'tier_near_hits' ) / $near ) : '-', $near > 0 ? round( $g( 'tier_near_hits' ) / $near, 4 ) : 0, sprintf( /* translators: 1: hits, 2: misses */ __( '%1$s served here, %2$s read from Redis', 'shmcache' ), shmcache_plugin_num( $g( 'tier_near_hits' ) ), shmcache_plugin_num( $g( 'tier_near_misses' ) ) ) );
				shmcache_plugin_counter_row( 'tier_round_trips', __( 'Redis round trips', 'shmcache' ), shmcache_plugin_num( $g( 'tier_round_trips' ) ), $g( 'tier_round_trips' ), __( 'one per request to check for invalidations, plus one per near miss and per write', 'shmcache' ) );
				shmcache_plugin_counter_row( 'tier_invalidations_applied', __( 'Invalidations applied', 'shmcache' ), shmcache_plugin_num( $g( 'tier_invalidations_applied' ) ), $g( 'tier_invalidations_applied' ), sprintf( /* translators: %s: milliseconds */ __( 'writes made on other servers, removed from the near copy (last lag %s ms)', 'shmcache' ), shmcache_plugin_num( $g( 'tier_lag_ms' ) ) ) );
				shmcache_plugin_counter_row( 'tier_untrusted_requests', __( 'Requests without Redis', 'shmcache' ), shmcache_plugin_num( $g( 'tier_untrusted_requests' ) ), $g( 'tier_untrusted_requests' ), __( 'Redis did not answer in time: those requests used no object cache', 'shmcache' ) );
			}
			?>
			</tbody>
		</table>
	<?php endif; ?>

	<?php
	$refused_cache = isset( $GLOBALS['wp_object_cache'] ) ? $GLOBALS['wp_object_cache'] : null;
	$refused       = $d['active'] && is_object( $refused_cache ) && method_exists( $refused_cache, 'refused_values' ) ? $refused_cache->refused_values() : array();
	?>
	<h2><?php esc_html_e( 'Values not kept in shared memory', 'shmcache' ); ?></h2>
	<?php if ( ! $refused ) : ?>
		<p class="shmcache-refused-none"><?php esc_html_e( 'None in the last day.', 'shmcache' ); ?></p>
	<?php else : ?>
		<p class="description"><?php esc_html_e( 'The extension refused these values in the last day. Each request that needs one keeps it for itself and rebuilds it, as without an object cache.', 'shmcache' ); ?></p>
		<table class="widefat striped shmcache-table shmcache-refused">
			<thead><tr><th><?php esc_html_e( 'Group', 'shmcache' ); ?></th><th><?php esc_html_e( 'Key', 'shmcache' ); ?></th><th><?php esc_html_e( 'Why', 'shmcache' ); ?></th><th><?php esc_html_e( 'What to do', 'shmcache' ); ?></th></tr></thead>
			<tbody>
			<?php foreach ( $refused as $r ) : ?>
				<tr data-refused-group="<?php echo esc_attr( $r['group'] ); ?>" data-refused-key="<?php echo esc_attr( $r['key'] ); ?>" data-refused-setting="<?php echo esc_attr( $r['setting'] ); ?>">
					<td><code><?php echo esc_html( $r['group'] ); ?></code></td>
					<td><code><?php echo esc_html( $r['key'] ); ?></code></td>
					<td><?php echo esc_html( $r['reason'] ); ?></td>
					<td>
						<?php
						echo esc_html(
							'' !== $r['setting']
								/* translators: %s: INI setting */
								? sprintf( __( 'raise %s (PHP-FPM master ini, then restart PHP-FPM)', 'shmcache' ), $r['setting'] )
								: __( 'nothing to raise: the value cannot be serialized (a closure or a resource); the code that caches it should store plain data', 'shmcache' )
						);
						?>
					</td>
				</tr>
			<?php endforeach; ?>
			</tbody>
		</table>
	<?php endif; ?>

	<h2><?php esc_html_e( 'Groups used by this page load', 'shmcache' ); ?></h2>
	<?php
	$cache  = isset( $GLOBALS['wp_object_cache'] ) ? $GLOBALS['wp_object_cache'] : null;
	$groups = $d['active'] && is_object( $cache ) && method_exists( $cache, 'group_counts' ) ? $cache->group_counts() : null;
	if ( null === $groups ) :
		?>
		<p class="shmcache-groups-none"><?php esc_html_e( 'Not available: shmcache\'s drop-in is not in use in this page load.', 'shmcache' ); ?></p>
	<?php else : ?>
		<p class="description">
			<?php
			echo esc_html(
				sprintf(
					/* translators: 1: calls, 2: hits, 3: misses */
					__( 'What this admin page itself has read or written so far, from the drop-in\'s per-request layer: not the contents of shared memory. %1$s cache calls, %2$s hits, %3$s misses.', 'shmcache' ),
					shmcache_plugin_num( (int) $cache->calls ),
					shmcache_plugin_num( (int) $cache->cache_hits ),
					shmcache_plugin_num( (int) $cache->cache_misses )
				)
			);
			?>
		</p>
		<?php ksort( $groups ); ?>
		<table class="widefat striped shmcache-table shmcache-groups">
			<thead><tr><th scope="col"><?php esc_html_e( 'Group', 'shmcache' ); ?></th><th scope="col"><?php esc_html_e( 'Entries', 'shmcache' ); ?></th></tr></thead>
			<tbody>
			<?php foreach ( $groups as $group => $count ) : ?>
				<tr data-group="<?php echo esc_attr( (string) $group ); ?>"><td><code><?php echo esc_html( (string) $group ); ?></code></td><td><?php echo esc_html( shmcache_plugin_num( (int) $count ) ); ?></td></tr>
			<?php endforeach; ?>
			</tbody>
		</table>
	<?php endif; ?>

	<h2><?php esc_html_e( 'Flush', 'shmcache' ); ?></h2>
	<form method="post" action="<?php echo esc_url( admin_url( 'admin-post.php' ) ); ?>" class="shmcache-flush-form">
		<input type="hidden" name="action" value="shmcache_flush" />
		<?php wp_nonce_field( 'shmcache_flush', 'shmcache_flush_nonce' ); ?>
		<p class="description">
			<?php
			echo esc_html(
				is_multisite()
					? __( 'Empties everything shmcache holds for this network (all of its sites share one cache namespace). Other WordPress installations using the same PHP-FPM are not touched.', 'shmcache' )
					: __( 'Empties everything shmcache holds for this site. Other sites using the same PHP-FPM are not touched.', 'shmcache' )
			);
			?>
		</p>
		<p><button type="submit" class="button"><?php echo esc_html( is_multisite() ? __( 'Flush this network', 'shmcache' ) : __( 'Flush this site', 'shmcache' ) ); ?></button></p>
	</form>

	<?php
	if ( function_exists( 'shmcache_page_cache_admin_section' ) ) {
		shmcache_page_cache_admin_section();
	}
	?>
	</div>
	<?php
}
