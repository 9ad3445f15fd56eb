<?php
/**
 * The page cache, WordPress side: purge hooks, the CLI relay, installing and removing the
 * advanced-cache.php drop-in, and the admin screen's "Page cache" section.
 *
 * Loaded by the shmcache plugin (shmcache.php requires it when present), or on its own as a
 * must-use plugin (copy or symlink it into wp-content/mu-plugins/; the wp-stack harness does
 * that with `wp-stack.sh pagecache on`). Either way it needs the page cache library, which is
 * the drop-in itself (wordpress/advanced-cache.php): already loaded when WP_CACHE is on, else
 * included from wp-content/advanced-cache.php or from the plugin's copy with
 * SHMCACHE_PAGE_CACHE_LIBRARY_ONLY (functions only, nothing served).
 *
 * Purges are collected during the request and done once, on 'shutdown': after everything the
 * request changed (a REST save sets terms and meta after save_post), and once for a bulk edit.
 * An edit of a published post purges its own pages and its archives (home, terms, author,
 * dates, feeds, with their pagination); changes that show on every page (theme, menus,
 * widgets, options, a post appearing or disappearing) purge the whole site, in O(1). See
 * docs/page-cache.md. In the CLI, whose shared memory is not the web server's, the purge is
 * also sent to the web server as a signed request (the relay).
 *
 * @package shmcache
 */

defined( 'ABSPATH' ) || exit;

if ( ! function_exists( 'shmcache_page_cache_admin_section' ) ) {

	/** Text every version of the page cache drop-in carries in its header. */
	function shmcache_page_cache_dropin_mark() {
		return 'shmcache-page-cache-dropin';
	}

	/** Whether PHP code is shmcache's page cache drop-in. */
	function shmcache_page_cache_is_dropin_code( $code ) {
		$head = substr( (string) $code, 0, 8192 );
		return false !== stripos( $head, shmcache_page_cache_dropin_mark() ) && false !== strpos( (string) $code, 'SHMCACHE_PAGE_CACHE_VERSION' );
	}

	function shmcache_page_cache_is_dropin_file( $file ) {
		return is_file( $file ) && is_readable( $file ) && shmcache_page_cache_is_dropin_code( (string) file_get_contents( $file ) );
	}

	/**
	 * The drop-in this code installs: the plugin's own copy (a built plugin), else the
	 * repository's wordpress/advanced-cache.php next to the plugin directory.
	 *
	 * @return string Path, or '' when there is none.
	 */
	function shmcache_page_cache_dropin_source() {
		$plugin_dir = defined( 'SHMCACHE_PLUGIN_DIR' ) ? SHMCACHE_PLUGIN_DIR : dirname( __DIR__ );
		$candidates = array( $plugin_dir . '/advanced-cache.php', dirname( $plugin_dir ) . '/advanced-cache.php' );
		// __DIR__ has symlinks resolved: a symlinked must-use plugin still finds the repository.
		$candidates[] = dirname( __DIR__ ) . '/advanced-cache.php';
		$candidates[] = dirname( __DIR__, 2 ) . '/advanced-cache.php';
		foreach ( array_unique( $candidates ) as $file ) {
			if ( shmcache_page_cache_is_dropin_file( $file ) ) {
				return $file;
			}
		}
		return '';
	}

	/** wp-content/advanced-cache.php (the directory can be filtered, for tests). */
	function shmcache_page_cache_dropin_target() {
		return rtrim( (string) apply_filters( 'shmcache_page_cache_content_dir', WP_CONTENT_DIR ), '/' ) . '/advanced-cache.php';
	}

	/** Loads the page cache library (the drop-in's functions). */
	function shmcache_page_cache_load_library() {
		if ( function_exists( 'shmcache_page_cache_boot' ) ) {
			return true;
		}
		$file = WP_CONTENT_DIR . '/advanced-cache.php';
		if ( ! shmcache_page_cache_is_dropin_file( $file ) ) {
			$file = shmcache_page_cache_dropin_source();
		}
		if ( '' === $file ) {
			return false;
		}
		if ( ! defined( 'SHMCACHE_PAGE_CACHE_LIBRARY_ONLY' ) ) {
			define( 'SHMCACHE_PAGE_CACHE_LIBRARY_ONLY', true );
		}
		require_once $file;
		return function_exists( 'shmcache_page_cache_boot' );
	}

	// ----------------------------------------------------------------------- purge queue
	// Pending purges are kept per site (blog id): a change made under switch_to_blog() purges the
	// site it was made on, even though the request ends on another one.

	/** The site a change made now belongs to: the current blog (switch_to_blog() included). */
	function shmcache_page_cache_queue_scope() {
		$scope = shmcache_pc_current_scope();
		return null === $scope ? 1 : (int) $scope;
	}

	/**
	 * Reasons of the whole-site purges this request will do at its end, every site's.
	 *
	 * @return string[]
	 */
	function shmcache_page_cache_pending() {
		$out = array();
		foreach ( shmcache_page_cache_pending_by_site() as $reasons ) {
			$out = array_merge( $out, $reasons );
		}
		return $out;
	}

	/** @return array<int, string[]> blog id => reasons of its whole-site purge */
	function shmcache_page_cache_pending_by_site() {
		return isset( $GLOBALS['shmcache_page_cache_pending'] ) && is_array( $GLOBALS['shmcache_page_cache_pending'] ) ? $GLOBALS['shmcache_page_cache_pending'] : array();
	}

	/**
	 * The URLs this request will purge at its end (those of sites with no whole-site purge
	 * pending), with the reason of each.
	 *
	 * @return array<string, string> url => reason
	 */
	function shmcache_page_cache_pending_urls() {
		$out = array();
		foreach ( shmcache_page_cache_pending_urls_by_site() as $urls ) {
			$out += $urls;
		}
		return $out;
	}

	/** @return array<int, array<string, string>> blog id => (url => reason) */
	function shmcache_page_cache_pending_urls_by_site() {
		return isset( $GLOBALS['shmcache_page_cache_pending_urls'] ) && is_array( $GLOBALS['shmcache_page_cache_pending_urls'] ) ? $GLOBALS['shmcache_page_cache_pending_urls'] : array();
	}

	/** Asks for a purge of some URLs (with their groups) at the end of this request. */
	function shmcache_page_cache_queue_purge_urls( array $urls, $reason ) {
		$scope   = shmcache_page_cache_queue_scope();
		$by_site = shmcache_page_cache_pending_urls_by_site();
		$pending = isset( $by_site[ $scope ] ) ? $by_site[ $scope ] : array();
		foreach ( $urls as $url ) {
			if ( is_string( $url ) && '' !== $url && ! isset( $pending[ $url ] ) ) {
				$pending[ $url ] = (string) $reason;
			}
		}
		$by_site[ $scope ]                           = $pending;
		$GLOBALS['shmcache_page_cache_pending_urls'] = $by_site;
		if ( ! empty( $GLOBALS['shmcache_page_cache_shutdown_done'] ) ) {
			shmcache_page_cache_run_pending();
		}
	}

	/**
	 * Asks for a purge of the current site's pages at the end of this request (once, whatever
	 * the number of changes). After 'shutdown' has run it purges at once.
	 */
	function shmcache_page_cache_queue_purge( $reason ) {
		$scope   = shmcache_page_cache_queue_scope();
		$by_site = shmcache_page_cache_pending_by_site();
		$pending = isset( $by_site[ $scope ] ) ? $by_site[ $scope ] : array();
		if ( count( $pending ) < 20 && ! in_array( (string) $reason, $pending, true ) ) {
			$pending[] = (string) $reason;
		} elseif ( empty( $pending ) ) {
			$pending[] = (string) $reason;
		}
		$by_site[ $scope ]                      = $pending;
		$GLOBALS['shmcache_page_cache_pending'] = $by_site;
		if ( ! empty( $GLOBALS['shmcache_page_cache_shutdown_done'] ) ) {
			shmcache_page_cache_run_pending();
		}
	}

	/** 'shutdown': does the pending purge. */
	function shmcache_page_cache_on_shutdown() {
		$GLOBALS['shmcache_page_cache_shutdown_done'] = true;
		shmcache_page_cache_run_pending();
	}

	/**
	 * Does the pending purges: here (this process's shared memory), and from the CLI also in the
	 * web server (relay). Each site with a whole-site change gets its own O(1) purge; the URLs of
	 * the other sites are purged together, by group.
	 *
	 * @return bool Whether there was anything to purge.
	 */
	function shmcache_page_cache_run_pending() {
		$whole = shmcache_page_cache_pending_by_site();
		$urls  = shmcache_page_cache_pending_urls_by_site();
		$GLOBALS['shmcache_page_cache_pending']      = array();
		$GLOBALS['shmcache_page_cache_pending_urls'] = array();
		if ( empty( $whole ) && empty( $urls ) ) {
			return false;
		}
		$groups      = array();
		$url_reasons = array();
		$purged_urls = array();
		foreach ( $urls as $scope => $site_urls ) {
			if ( isset( $whole[ $scope ] ) ) {
				continue; // that site's pages all go
			}
			$site_groups = array_values( array_unique( array_filter( array_map( 'shmcache_pc_url_group', array_keys( $site_urls ) ) ) ) );
			if ( count( $site_groups ) > 500 ) {
				$whole[ $scope ] = array_values( array_unique( $site_urls ) ); // a bulk edit of many posts: one O(1) purge instead
				continue;
			}
			$groups      = array_merge( $groups, $site_groups );
			$url_reasons = array_merge( $url_reasons, array_values( $site_urls ) );
			$purged_urls = array_merge( $purged_urls, array_keys( $site_urls ) );
		}
		foreach ( $whole as $scope => $reasons ) {
			shmcache_page_cache_do_purge( array_values( array_unique( $reasons ) ), null, array(), (int) $scope );
		}
		if ( ! empty( $groups ) ) {
			shmcache_page_cache_do_purge( array_values( array_unique( $url_reasons ) ), array_values( array_unique( $groups ) ), $purged_urls, null );
		}
		return true;
	}

	/**
	 * One purge: a whole site (groups null, scope its blog id) or some groups.
	 *
	 * @param string[]      $reasons
	 * @param string[]|null $groups
	 * @param string[]      $urls    The URLs behind the groups.
	 * @param int|null      $scope
	 */
	function shmcache_page_cache_do_purge( array $reasons, $groups, array $urls, $scope ) {
		$reason = implode( '; ', array_slice( $reasons, 0, 20 ) );
		/**
		 * Fires before the page cache is purged.
		 *
		 * @param string[] $reasons The changes that caused it.
		 * @param string[] $urls    The URLs purged (with their pagination and feeds), or an empty
		 *                          array when a whole site is purged.
		 * @param int|null $site    The blog id whose pages are all purged, or null for URLs.
		 */
		do_action( 'shmcache_page_cache_purge', $reasons, null === $groups ? array() : $urls, $scope );
		if ( shmcache_pc_available() ) {
			if ( null === $groups ) {
				shmcache_page_cache_purge_all( $reason, null, $scope );
			} else {
				shmcache_page_cache_purge_groups( $groups, $reason );
			}
		}
		if ( shmcache_page_cache_should_relay( $reasons ) ) {
			$result = shmcache_page_cache_relay( $reason, $groups, $scope );
			if ( is_wp_error( $result ) ) {
				shmcache_page_cache_cli_warning( 'the page cache of the web server was not purged: ' . $result->get_error_message() . ' Flush it from Tools → shmcache.' );
			}
		}
	}

	/** Whether purges of this process must be sent to the web server. */
	function shmcache_page_cache_should_relay( array $reasons ) {
		if ( 'cli' !== PHP_SAPI && 'phpdbg' !== PHP_SAPI ) {
			return false; // the web server's own shared memory was purged
		}
		if ( ! defined( 'SHMCACHE_PAGE_CACHE_DROPIN' ) || ! shmcache_pc_config()['relay'] ) {
			return false; // no page cache here (WP_CACHE off or another drop-in), or relay off
		}
		/**
		 * Whether a purge made in the CLI is relayed to the web server.
		 *
		 * @param bool     $relay
		 * @param string[] $reasons
		 */
		return (bool) apply_filters( 'shmcache_page_cache_relay', true, $reasons );
	}

	function shmcache_page_cache_cli_warning( $message ) {
		if ( class_exists( 'WP_CLI' ) && method_exists( 'WP_CLI', 'warning' ) ) {
			WP_CLI::warning( 'shmcache: ' . $message );
		} elseif ( defined( 'STDERR' ) ) {
			fwrite( STDERR, 'shmcache: ' . $message . "\n" );
		}
	}

	/**
	 * Sends a purge to the web server: a POST to the home URL (or SHMCACHE_PAGE_CACHE_RELAY_URL)
	 * signed with an HMAC of the site's secret keys, answered by the drop-in before WordPress
	 * loads. It also flushes this site's object cache there (relay_object_cache).
	 *
	 * @return true|WP_Error
	 */
	function shmcache_page_cache_relay( $reason, $groups = null, $scope = null ) {
		$secret = shmcache_pc_relay_secret();
		if ( '' === $secret ) {
			return new WP_Error( 'shmcache_relay', 'wp-config.php has no secret keys to sign the request with.' );
		}
		$config  = shmcache_pc_config();
		$url     = '' !== $config['relay_url'] ? $config['relay_url'] : home_url( '/' );
		$payload = wp_json_encode(
			array(
				't'      => time(),
				'n'      => bin2hex( random_bytes( 16 ) ),
				'site'   => shmcache_pc_site_salt(),
				'object' => (bool) $config['relay_object_cache'],
				'reason' => substr( (string) $reason, 0, 200 ),
				'scope'  => null !== $scope ? (int) $scope : shmcache_page_cache_queue_scope(),
			) + ( null === $groups ? array() : array( 'groups' => array_values( $groups ) ) )
		);
		// PHP's own HTTP stream, not the WordPress HTTP API: WordPress 6.1's Requests library
		// raises deprecation notices under PHP 8.1+ on every use.
		$verify  = (bool) apply_filters( 'https_local_ssl_verify', false );
		$context = stream_context_create(
			array(
				'http' => array(
					'method'          => 'POST',
					'header'          => "Content-Type: application/json\r\nX-Shmcache-Relay: " . hash_hmac( 'sha256', $payload, $secret ) . "\r\nConnection: close\r\n",
					'content'         => $payload,
					'timeout'         => 15,
					'ignore_errors'   => true,
					'follow_location' => 0,
				),
				'ssl'  => array(
					'verify_peer'      => $verify,
					'verify_peer_name' => $verify,
				),
			)
		);
		$http_response_header = array();
		$body                 = @file_get_contents( $url, false, $context ); // phpcs:ignore WordPress.PHP.NoSilencedErrors -- reported below
		if ( false === $body ) {
			$error = error_get_last();
			return new WP_Error( 'shmcache_relay', $url . ': ' . ( $error ? $error['message'] : 'no answer' ) );
		}
		$code = 0;
		foreach ( (array) $http_response_header as $line ) {
			if ( preg_match( '~^HTTP/\S+\s+(\d{3})~', $line, $m ) ) {
				$code = (int) $m[1]; // the last status line wins
			}
		}
		$data = json_decode( (string) $body, true );
		if ( 200 !== $code || ! is_array( $data ) || empty( $data['ok'] ) ) {
			$error = is_array( $data ) && isset( $data['error'] ) ? (string) $data['error'] : 'not answered by the page cache drop-in';
			return new WP_Error( 'shmcache_relay', $url . ': HTTP ' . $code . ', ' . $error . '.' );
		}
		return true;
	}

	// ----------------------------------------------------------------------- hooks

	function shmcache_page_cache_post_viewable( $post_type ) {
		return function_exists( 'is_post_type_viewable' ) && is_post_type_viewable( $post_type );
	}

	/**
	 * The pages an edit of a published post changes: its own (with its pages, comment pages and
	 * comment feed, which share its group), the front page and the posts page (with their
	 * pagination and the main feeds), the archives of its terms, its author, its dates and its
	 * post type, the comments feed and the sitemaps.
	 *
	 * @param WP_Post  $post
	 * @param string[] $extra_term_ids term_taxonomy ids whose archives also change (terms removed).
	 * @return string[] URLs
	 */
	function shmcache_page_cache_post_urls( WP_Post $post, array $extra_term_ids = array() ) {
		global $wp_rewrite;
		if ( ! function_exists( 'ms_is_switched' ) || ! ms_is_switched() || ! $wp_rewrite instanceof WP_Rewrite ) {
			return shmcache_page_cache_post_urls_of_current_site( $post, $extra_term_ids );
		}
		// Under switch_to_blog() WordPress keeps the permalink settings of the site it started on
		// (the main site's "/blog/" front on a subdirectory network): the archive links would
		// point at pages that do not exist. Build them with the switched site's own settings.
		$saved = $wp_rewrite;
		$site  = clone $saved;
		$site->init();
		foreach ( $site->extra_permastructs as $name => $args ) {
			$struct = isset( $args['struct'] ) ? (string) $args['struct'] : '';
			if ( ! empty( $args['with_front'] ) && '' !== $saved->front && 0 === strpos( $struct, $saved->front ) ) {
				$site->extra_permastructs[ $name ]['struct'] = $site->front . substr( $struct, strlen( $saved->front ) );
			}
		}
		$wp_rewrite = $site; // phpcs:ignore WordPress.WP.GlobalVariablesOverride -- restored below
		try {
			return shmcache_page_cache_post_urls_of_current_site( $post, $extra_term_ids );
		} finally {
			$wp_rewrite = $saved; // phpcs:ignore WordPress.WP.GlobalVariablesOverride
		}
	}

	/** shmcache_page_cache_post_urls() with the permalink settings as they are. */
	function shmcache_page_cache_post_urls_of_current_site( WP_Post $post, array $extra_term_ids = array() ) {
		$urls = array( get_permalink( $post ), home_url( '/' ), get_feed_link( 'comments_rss2' ), home_url( '/wp-sitemap.xml' ) );
		$page_for_posts = (int) get_option( 'page_for_posts' );
		if ( $page_for_posts > 0 ) {
			$urls[] = get_permalink( $page_for_posts );
		}
		$archive = get_post_type_archive_link( $post->post_type );
		if ( $archive ) {
			$urls[] = $archive;
		}
		foreach ( get_object_taxonomies( $post->post_type ) as $taxonomy ) {
			if ( ! is_taxonomy_viewable( $taxonomy ) ) {
				continue;
			}
			$terms = get_the_terms( $post, $taxonomy );
			foreach ( is_array( $terms ) ? $terms : array() as $term ) {
				$urls[] = get_term_link( $term );
			}
		}
		foreach ( $extra_term_ids as $tt_id ) {
			$term = get_term_by( 'term_taxonomy_id', (int) $tt_id );
			if ( $term && is_taxonomy_viewable( $term->taxonomy ) ) {
				$urls[] = get_term_link( $term );
			}
		}
		if ( (int) $post->post_author > 0 ) {
			$urls[] = get_author_posts_url( (int) $post->post_author );
		}
		$time = strtotime( (string) $post->post_date );
		if ( false !== $time && $time > 0 ) {
			$y      = (int) gmdate( 'Y', $time );
			$m      = (int) gmdate( 'm', $time );
			$urls[] = get_year_link( $y );
			$urls[] = get_month_link( $y, $m );
			$urls[] = get_day_link( $y, $m, (int) gmdate( 'd', $time ) );
		}
		/**
		 * The URLs purged when a published post is edited (each with its pagination and feeds).
		 *
		 * @param string[] $urls
		 * @param WP_Post  $post
		 */
		$urls = (array) apply_filters( 'shmcache_page_cache_post_urls', $urls, $post );
		return array_values( array_unique( array_filter( $urls, 'is_string' ) ) );
	}

	/** Queues what a post change needs: its pages and archives, or the whole site. */
	function shmcache_page_cache_queue_post_change( $action, WP_Post $post, $reason, array $extra_term_ids = array() ) {
		if ( 'flush' === $action ) {
			shmcache_page_cache_queue_purge( $reason );
		} elseif ( 'post' === $action ) {
			shmcache_page_cache_queue_purge_urls( shmcache_page_cache_post_urls( $post, $extra_term_ids ), $reason );
		}
	}

	function shmcache_page_cache_on_transition_post_status( $new_status, $old_status, $post ) {
		if ( $post instanceof WP_Post ) {
			$action = shmcache_pc_post_change_action( $post->post_type, (string) $old_status, (string) $new_status, shmcache_page_cache_post_viewable( $post->post_type ) );
			shmcache_page_cache_queue_post_change( $action, $post, "{$post->post_type} {$post->ID}: {$old_status} to {$new_status}" );
		}
	}

	function shmcache_page_cache_on_save_post( $post_id, $post = null ) {
		$post = $post instanceof WP_Post ? $post : get_post( $post_id );
		if ( $post instanceof WP_Post ) {
			$action = shmcache_pc_post_change_action( $post->post_type, $post->post_status, $post->post_status, shmcache_page_cache_post_viewable( $post->post_type ) );
			shmcache_page_cache_queue_post_change( $action, $post, "{$post->post_type} {$post->ID} saved" );
		}
	}

	/** 'post_updated': the pages of the post as it was (its old permalink, author, date, ...). */
	function shmcache_page_cache_on_post_updated( $post_id, $post_after, $post_before ) {
		if ( $post_before instanceof WP_Post && $post_after instanceof WP_Post ) {
			$action = shmcache_pc_post_change_action( $post_before->post_type, $post_before->post_status, $post_after->post_status, shmcache_page_cache_post_viewable( $post_before->post_type ) );
			shmcache_page_cache_queue_post_change( $action, $post_before, "{$post_before->post_type} {$post_before->ID} updated" );
		}
	}

	function shmcache_page_cache_on_deleted_post( $post_id, $post = null ) {
		if ( $post instanceof WP_Post && 'none' !== shmcache_pc_post_change_action( $post->post_type, $post->post_status, 'deleted', shmcache_page_cache_post_viewable( $post->post_type ) ) ) {
			shmcache_page_cache_queue_purge( "{$post->post_type} {$post->ID} deleted" );
		}
	}

	function shmcache_page_cache_on_trashed_post( $post_id ) {
		$post = get_post( $post_id );
		if ( ! $post instanceof WP_Post ) {
			return;
		}
		$old = (string) get_post_meta( $post->ID, '_wp_trash_meta_status', true );
		if ( 'none' !== shmcache_pc_post_change_action( $post->post_type, $old, 'trash', shmcache_page_cache_post_viewable( $post->post_type ) ) ) {
			shmcache_page_cache_queue_purge( "{$post->post_type} {$post->ID} trashed" );
		}
	}

	/** Whether this request renders a visitor's page (see shmcache_pc_is_front_end_view()). */
	function shmcache_page_cache_during_view() {
		return shmcache_pc_is_front_end_view(
			array(
				'sapi'   => PHP_SAPI,
				'method' => isset( $_SERVER['REQUEST_METHOD'] ) ? (string) $_SERVER['REQUEST_METHOD'] : '',
				'admin'  => is_admin(),
				'ajax'   => wp_doing_ajax(),
				'cron'   => wp_doing_cron(),
				'rest'   => defined( 'REST_REQUEST' ) && REST_REQUEST,
				'xmlrpc' => defined( 'XMLRPC_REQUEST' ) && XMLRPC_REQUEST,
			)
		);
	}

	function shmcache_page_cache_on_post_meta( $meta_ids, $object_id, $meta_key ) {
		$post = get_post( $object_id );
		if ( $post instanceof WP_Post ) {
			$action = shmcache_pc_meta_change_action( $meta_key, $post->post_type, $post->post_status, shmcache_page_cache_post_viewable( $post->post_type ), shmcache_page_cache_during_view() );
			shmcache_page_cache_queue_post_change( $action, $post, "{$post->post_type} {$post->ID}: meta {$meta_key}" );
		}
	}

	function shmcache_page_cache_on_set_object_terms( $object_id, $terms, $tt_ids, $taxonomy, $append = false, $old_tt_ids = array() ) {
		$new = array_map( 'intval', (array) $tt_ids );
		$old = array_map( 'intval', (array) $old_tt_ids );
		sort( $new );
		sort( $old );
		if ( $new === $old ) {
			return;
		}
		$post = get_post( $object_id );
		if ( $post instanceof WP_Post ) {
			$action = shmcache_pc_post_change_action( $post->post_type, $post->post_status, $post->post_status, shmcache_page_cache_post_viewable( $post->post_type ) );
			// The archives of the terms it left change too.
			shmcache_page_cache_queue_post_change( $action, $post, "{$post->post_type} {$post->ID}: {$taxonomy} terms", array_diff( $old, $new ) );
		}
	}

	function shmcache_page_cache_on_term( $term_id, $tt_id = 0, $taxonomy = '' ) {
		if ( 'flush' === shmcache_pc_term_change_action( (string) $taxonomy, function_exists( 'is_taxonomy_viewable' ) && is_taxonomy_viewable( (string) $taxonomy ) ) ) {
			shmcache_page_cache_queue_purge( "term {$term_id} ({$taxonomy}) changed" );
		}
	}

	/**
	 * Queues the pages a visible comment changes: those of its post (the comment, the counts in
	 * the archives, the comment feeds). A comment on a post that is not public changes nothing.
	 */
	function shmcache_page_cache_queue_comment_change( $action, $comment, $reason ) {
		if ( 'post' !== $action ) {
			return;
		}
		$comment = is_object( $comment ) ? $comment : get_comment( $comment );
		$post    = is_object( $comment ) && isset( $comment->comment_post_ID ) ? get_post( (int) $comment->comment_post_ID ) : null;
		if ( ! $post instanceof WP_Post ) {
			shmcache_page_cache_queue_purge( $reason ); // the post is unknown: the whole site
			return;
		}
		$post_action = shmcache_pc_post_change_action( $post->post_type, $post->post_status, $post->post_status, shmcache_page_cache_post_viewable( $post->post_type ) );
		shmcache_page_cache_queue_post_change( $post_action, $post, $reason );
	}

	function shmcache_page_cache_on_comment_post( $comment_id, $approved ) {
		shmcache_page_cache_queue_comment_change( shmcache_pc_comment_change_action( '', (string) $approved ), $comment_id, "comment {$comment_id} posted" );
	}

	function shmcache_page_cache_on_transition_comment_status( $new_status, $old_status, $comment ) {
		$id = is_object( $comment ) && isset( $comment->comment_ID ) ? $comment->comment_ID : '?';
		shmcache_page_cache_queue_comment_change( shmcache_pc_comment_change_action( (string) $old_status, (string) $new_status ), $comment, "comment {$id}: {$old_status} to {$new_status}" );
	}

	function shmcache_page_cache_on_set_comment_status( $comment_id, $status ) {
		shmcache_page_cache_queue_comment_change( shmcache_pc_comment_change_action( '', (string) $status ), $comment_id, "comment {$comment_id}: {$status}" );
	}

	function shmcache_page_cache_on_edit_comment( $comment_id ) {
		$comment = get_comment( $comment_id );
		if ( $comment ) {
			shmcache_page_cache_queue_comment_change( shmcache_pc_comment_change_action( $comment->comment_approved, $comment->comment_approved ), $comment, "comment {$comment_id} edited" );
		}
	}

	function shmcache_page_cache_on_deleted_comment( $comment_id, $comment = null ) {
		if ( is_object( $comment ) ) {
			shmcache_page_cache_queue_comment_change( shmcache_pc_comment_change_action( (string) $comment->comment_approved, 'deleted' ), $comment, "comment {$comment_id} deleted" );
		}
	}

	function shmcache_page_cache_on_option( $option ) {
		if ( 'flush' === shmcache_pc_option_change_action( (string) $option, shmcache_page_cache_flush_options_config() ) ) {
			shmcache_page_cache_queue_purge( "option {$option}" );
		}
	}

	/** The configuration with the 'shmcache_page_cache_flush_options' filter applied. */
	function shmcache_page_cache_flush_options_config() {
		static $config = null;
		if ( null === $config || ! did_action( 'init' ) ) {
			$config = shmcache_pc_config();
			/**
			 * Options whose change empties the page cache (exact names or "prefix*").
			 *
			 * @param string[] $options
			 */
			$config['flush_options'] = (array) apply_filters( 'shmcache_page_cache_flush_options', $config['flush_options'] );
		}
		return $config;
	}

	function shmcache_page_cache_on_user( $user_id ) {
		if ( 'flush' === shmcache_pc_user_change_action( count_user_posts( (int) $user_id, 'post', true ) ) ) {
			shmcache_page_cache_queue_purge( "author {$user_id} changed" );
		}
	}

	/** For hooks that always change what pages show (theme, menus, widgets, plugins). */
	function shmcache_page_cache_on_site_change() {
		shmcache_page_cache_queue_purge( current_action() );
	}

	/** 'widget_update_callback' filter: a legacy widget was saved. */
	function shmcache_page_cache_on_widget_update( $instance ) {
		shmcache_page_cache_queue_purge( 'widget saved' );
		return $instance;
	}

	function shmcache_page_cache_register_hooks() {
		add_action( 'shutdown', 'shmcache_page_cache_on_shutdown', 0 );

		add_action( 'transition_post_status', 'shmcache_page_cache_on_transition_post_status', 10, 3 );
		add_action( 'save_post', 'shmcache_page_cache_on_save_post', 10, 2 );
		add_action( 'post_updated', 'shmcache_page_cache_on_post_updated', 10, 3 );
		add_action( 'deleted_post', 'shmcache_page_cache_on_deleted_post', 10, 2 );
		add_action( 'trashed_post', 'shmcache_page_cache_on_trashed_post', 10, 1 );
		add_action( 'edit_attachment', 'shmcache_page_cache_on_save_post', 10, 1 );
		foreach ( array( 'added_post_meta', 'updated_post_meta', 'deleted_post_meta' ) as $hook ) {
			add_action( $hook, 'shmcache_page_cache_on_post_meta', 10, 3 );
		}
		add_action( 'set_object_terms', 'shmcache_page_cache_on_set_object_terms', 10, 6 );
		foreach ( array( 'created_term', 'edited_term', 'delete_term' ) as $hook ) {
			add_action( $hook, 'shmcache_page_cache_on_term', 10, 3 );
		}

		add_action( 'comment_post', 'shmcache_page_cache_on_comment_post', 10, 2 );
		add_action( 'transition_comment_status', 'shmcache_page_cache_on_transition_comment_status', 10, 3 );
		add_action( 'wp_set_comment_status', 'shmcache_page_cache_on_set_comment_status', 10, 2 );
		add_action( 'edit_comment', 'shmcache_page_cache_on_edit_comment', 10, 1 );
		add_action( 'deleted_comment', 'shmcache_page_cache_on_deleted_comment', 10, 2 );

		add_action( 'added_option', 'shmcache_page_cache_on_option', 10, 1 );
		add_action( 'updated_option', 'shmcache_page_cache_on_option', 10, 1 );
		add_action( 'deleted_option', 'shmcache_page_cache_on_option', 10, 1 );

		foreach ( array( 'switch_theme', 'customize_save_after', 'wp_update_nav_menu', 'wp_delete_nav_menu', 'update_option_sidebars_widgets', 'rest_after_save_widget', 'rest_delete_widget', 'delete_widget', 'activated_plugin', 'deactivated_plugin', 'upgrader_process_complete' ) as $hook ) {
			add_action( $hook, 'shmcache_page_cache_on_site_change', 10, 0 );
		}
		add_filter( 'widget_update_callback', 'shmcache_page_cache_on_widget_update', 10, 1 );

		add_action( 'profile_update', 'shmcache_page_cache_on_user', 10, 1 );
		add_action( 'delete_user', 'shmcache_page_cache_on_user', 10, 1 );

		add_action( 'admin_post_shmcache_page_cache', 'shmcache_page_cache_admin_post' );
	}

	// ----------------------------------------------------------------------- install

	/** The "Version:" of a drop-in file, or ''. */
	function shmcache_page_cache_file_version( $file ) {
		if ( ! is_file( $file ) || ! is_readable( $file ) ) {
			return '';
		}
		return preg_match( '/^\s*\*\s*Version:\s*(\S+)/m', (string) file_get_contents( $file, false, null, 0, 8192 ), $m ) ? $m[1] : '';
	}

	/**
	 * Copies the drop-in to wp-content/advanced-cache.php. Another plugin's advanced-cache.php is
	 * never overwritten. WP_CACHE must still be defined true in wp-config.php (not edited here).
	 *
	 * @return array{result:string, message:string} result: installed|updated|current|foreign|error
	 */
	function shmcache_page_cache_install() {
		$source = shmcache_page_cache_dropin_source();
		$target = shmcache_page_cache_dropin_target();
		if ( '' === $source ) {
			return array( 'result' => 'error', 'message' => 'The page cache drop-in (advanced-cache.php) is missing from the plugin.' );
		}
		$exists = file_exists( $target ) || is_link( $target );
		if ( $exists && ! shmcache_page_cache_is_dropin_file( $target ) ) {
			return array( 'result' => 'foreign', 'message' => 'wp-content/advanced-cache.php belongs to another plugin; it was left alone.' );
		}
		if ( $exists && (string) file_get_contents( $target ) === (string) file_get_contents( $source ) ) {
			return array( 'result' => 'current', 'message' => 'The page cache drop-in is installed and current.' );
		}
		$tmp = $target . '.shmcache-' . getmypid() . '.tmp';
		if ( ! @copy( $source, $tmp ) ) { // phpcs:ignore WordPress.PHP.NoSilencedErrors -- reported below
			return array( 'result' => 'error', 'message' => 'Could not write to ' . dirname( $target ) . '.' );
		}
		if ( is_link( $target ) ) {
			unlink( $target );
		}
		if ( ! @rename( $tmp, $target ) ) { // phpcs:ignore WordPress.PHP.NoSilencedErrors
			@unlink( $tmp ); // phpcs:ignore WordPress.PHP.NoSilencedErrors
			return array( 'result' => 'error', 'message' => 'Could not replace ' . $target . '.' );
		}
		// Pages stored before (another install, the drop-in off while content changed) are stale.
		if ( shmcache_pc_available() ) {
			shmcache_page_cache_purge_all( 'drop-in installed', true );
		}
		$wp_cache = defined( 'WP_CACHE' ) && WP_CACHE;
		return array(
			'result'  => $exists ? 'updated' : 'installed',
			'message' => ( $exists ? 'The page cache drop-in was updated.' : 'The page cache drop-in was installed.' )
				. ( $wp_cache ? '' : " Add define( 'WP_CACHE', true ); to wp-config.php to turn it on." ),
		);
	}

	/**
	 * Removes wp-content/advanced-cache.php if it is shmcache's, and empties the page cache.
	 *
	 * @return array{result:string, message:string} result: removed|absent|foreign|error
	 */
	function shmcache_page_cache_uninstall() {
		$target = shmcache_page_cache_dropin_target();
		if ( ! file_exists( $target ) && ! is_link( $target ) ) {
			return array( 'result' => 'absent', 'message' => 'No page cache drop-in is installed.' );
		}
		if ( ! shmcache_page_cache_is_dropin_file( $target ) ) {
			return array( 'result' => 'foreign', 'message' => 'wp-content/advanced-cache.php belongs to another plugin; it was left alone.' );
		}
		if ( ! @unlink( $target ) ) { // phpcs:ignore WordPress.PHP.NoSilencedErrors
			return array( 'result' => 'error', 'message' => 'Could not remove ' . $target . '.' );
		}
		if ( shmcache_pc_available() ) {
			shmcache_page_cache_purge_all( 'drop-in removed', true );
		}
		return array( 'result' => 'removed', 'message' => 'The page cache drop-in was removed.' );
	}

	/**
	 * What the admin section shows.
	 *
	 * @return array<string, mixed>
	 */
	function shmcache_page_cache_status() {
		$target = shmcache_page_cache_dropin_target();
		$source = shmcache_page_cache_dropin_source();
		return array(
			'target'          => $target,
			'installed'       => file_exists( $target ),
			'ours'            => shmcache_page_cache_is_dropin_file( $target ),
			'version'         => shmcache_page_cache_file_version( $target ),
			'source'          => $source,
			'shipped_version' => shmcache_page_cache_file_version( $source ),
			'wp_cache'        => defined( 'WP_CACHE' ) && WP_CACHE,
			'loaded'          => defined( 'SHMCACHE_PAGE_CACHE_DROPIN' ),
			'unavailable'     => shmcache_pc_unavailable_reason(),
			'config'          => shmcache_pc_config(),
			'stats'           => shmcache_page_cache_stats(),
		);
	}

	// ----------------------------------------------------------------------- admin

	function shmcache_page_cache_capability() {
		return function_exists( 'shmcache_plugin_capability' ) ? shmcache_plugin_capability() : 'manage_options';
	}

	/** admin-post.php?action=shmcache_page_cache: flush, install, uninstall, reset_stats. */
	function shmcache_page_cache_admin_post() {
		if ( ! current_user_can( shmcache_page_cache_capability() ) ) {
			wp_die( esc_html__( 'Sorry, you are not allowed to manage the page cache.', 'shmcache' ), 403 );
		}
		check_admin_referer( 'shmcache_page_cache', 'shmcache_page_cache_nonce' );
		$op   = isset( $_POST['op'] ) ? sanitize_key( wp_unslash( $_POST['op'] ) ) : '';
		$code = 'error';
		if ( 'flush' === $op ) {
			$code = shmcache_page_cache_purge_all( 'flushed from the admin screen', true ) ? 'flushed' : 'error';
		} elseif ( 'install' === $op ) {
			$code = shmcache_page_cache_install()['result'];
		} elseif ( 'uninstall' === $op ) {
			$code = shmcache_page_cache_uninstall()['result'];
		} elseif ( 'reset_stats' === $op ) {
			$code = shmcache_page_cache_reset_stats() ? 'reset' : 'error';
		}
		$back = wp_get_referer();
		wp_safe_redirect( add_query_arg( 'shmcache_pc', $code, $back ? $back : admin_url() ) );
		exit;
	}

	/** The message of an admin-post result code (a fixed list: nothing from the URL is shown). */
	function shmcache_page_cache_result_message( $code ) {
		$messages = array(
			'flushed'   => __( 'The page cache was emptied.', 'shmcache' ),
			'installed' => __( 'The page cache drop-in was installed.', 'shmcache' ),
			'updated'   => __( 'The page cache drop-in was updated.', 'shmcache' ),
			'current'   => __( 'The page cache drop-in is already current.', 'shmcache' ),
			'removed'   => __( 'The page cache drop-in was removed.', 'shmcache' ),
			'absent'    => __( 'No page cache drop-in was installed.', 'shmcache' ),
			'foreign'   => __( 'wp-content/advanced-cache.php belongs to another plugin; it was left alone.', 'shmcache' ),
			'reset'     => __( 'The page cache counters were reset.', 'shmcache' ),
			'error'     => __( 'The page cache operation failed.', 'shmcache' ),
		);
		return isset( $messages[ $code ] ) ? $messages[ $code ] : '';
	}

	/** One form button posting to admin-post.php. */
	function shmcache_page_cache_button( $op, $label, $primary = false ) {
		?>
		<form method="post" action="<?php echo esc_url( admin_url( 'admin-post.php' ) ); ?>" style="display:inline-block;margin-right:8px">
			<input type="hidden" name="action" value="shmcache_page_cache" />
			<input type="hidden" name="op" value="<?php echo esc_attr( $op ); ?>" />
			<?php wp_nonce_field( 'shmcache_page_cache', 'shmcache_page_cache_nonce' ); ?>
			<button type="submit" class="button<?php echo $primary ? ' button-primary' : ''; ?>"><?php echo esc_html( $label ); ?></button>
		</form>
		<?php
	}

	/** The "Page cache" section of the shmcache admin screen. */
	function shmcache_page_cache_admin_section() {
		if ( ! current_user_can( shmcache_page_cache_capability() ) ) {
			return;
		}
		if ( ! function_exists( 'shmcache_pc_config' ) ) {
			echo '<h2 id="shmcache-page-cache">' . esc_html__( 'Page cache', 'shmcache' ) . '</h2><p>'
				. esc_html__( 'Unavailable: the page cache drop-in (advanced-cache.php) is missing from the plugin.', 'shmcache' ) . '</p>';
			return;
		}
		$s      = shmcache_page_cache_status();
		$st     = $s['stats'];
		$config = $s['config'];
		$num    = static function ( $n ) {
			return number_format_i18n( (float) $n );
		};
		// phpcs:ignore WordPress.Security.NonceVerification.Recommended -- display only, fixed messages
		$result = isset( $_GET['shmcache_pc'] ) ? shmcache_page_cache_result_message( sanitize_key( wp_unslash( $_GET['shmcache_pc'] ) ) ) : '';
		if ( $s['loaded'] && '' === $s['unavailable'] ) {
			$state = __( 'On: pages for anonymous visitors are served from shared memory.', 'shmcache' );
		} elseif ( ! $s['installed'] ) {
			$state = __( 'Off: the drop-in wp-content/advanced-cache.php is not installed.', 'shmcache' );
		} elseif ( ! $s['ours'] ) {
			$state = __( 'Off: wp-content/advanced-cache.php belongs to another plugin.', 'shmcache' );
		} elseif ( ! $s['wp_cache'] ) {
			$state = __( "Off: add define( 'WP_CACHE', true ); to wp-config.php.", 'shmcache' );
		} else {
			/* translators: %s: the reason */
			$state = sprintf( __( 'Off: %s.', 'shmcache' ), '' !== $s['unavailable'] ? $s['unavailable'] : __( 'the drop-in was not loaded', 'shmcache' ) );
		}
		?>
		<h2 id="shmcache-page-cache"><?php esc_html_e( 'Page cache', 'shmcache' ); ?></h2>
		<?php if ( '' !== $result ) : ?>
			<div class="notice notice-info inline"><p><?php echo esc_html( $result ); ?></p></div>
		<?php endif; ?>
		<p><?php echo esc_html( $state ); ?></p>
		<table class="widefat striped shmcache-table shmcache-page-cache">
			<tbody>
				<tr><th scope="row"><?php esc_html_e( 'Hit rate', 'shmcache' ); ?></th><td data-key="hit_rate"><?php echo esc_html( number_format_i18n( $st['hit_rate'] * 100, 1 ) . '%' ); ?></td></tr>
				<tr><th scope="row"><?php esc_html_e( 'Hits (of which stale)', 'shmcache' ); ?></th><td data-key="hit"><?php echo esc_html( $num( $st['hit'] + $st['stale'] ) . ' (' . $num( $st['stale'] ) . ')' ); ?></td></tr>
				<tr><th scope="row"><?php esc_html_e( 'Misses (stored / not cacheable)', 'shmcache' ); ?></th><td data-key="miss"><?php echo esc_html( $num( $st['miss'] ) . ' (' . $num( $st['store'] ) . ' / ' . $num( $st['skip'] ) . ')' ); ?></td></tr>
				<tr><th scope="row"><?php esc_html_e( 'Bypassed (logged in, admin, POST, ...)', 'shmcache' ); ?></th><td data-key="bypass"><?php echo esc_html( $num( $st['bypass'] ) ); ?></td></tr>
				<tr><th scope="row"><?php esc_html_e( '304 Not Modified', 'shmcache' ); ?></th><td data-key="not_modified"><?php echo esc_html( $num( $st['not_modified'] ) ); ?></td></tr>
				<tr><th scope="row"><?php esc_html_e( 'Purges', 'shmcache' ); ?></th><td data-key="purge"><?php echo esc_html( $num( $st['purge'] ) ); ?></td></tr>
				<tr><th scope="row"><?php esc_html_e( 'Last purge', 'shmcache' ); ?></th><td data-key="last_purge"><?php echo esc_html( is_array( $st['last_purge'] ) ? human_time_diff( (int) $st['last_purge']['time'] ) . ' ' . __( 'ago', 'shmcache' ) . ': ' . $st['last_purge']['reason'] : '—' ); ?></td></tr>
				<tr><th scope="row"><?php esc_html_e( 'Counting since', 'shmcache' ); ?></th><td><?php echo esc_html( $st['since'] > 0 ? human_time_diff( $st['since'] ) . ' ' . __( 'ago', 'shmcache' ) : '—' ); ?></td></tr>
				<tr><th scope="row"><?php esc_html_e( 'Lifetime / grace', 'shmcache' ); ?></th><td><?php echo esc_html( sprintf( '%d s / %d s', $config['ttl'], $config['grace'] ) ); ?></td></tr>
				<tr><th scope="row"><?php esc_html_e( 'Drop-in', 'shmcache' ); ?></th><td><code><?php echo esc_html( $s['target'] ); ?></code> <?php echo esc_html( $s['installed'] ? ( $s['ours'] ? 'shmcache ' . $s['version'] : __( '(another plugin)', 'shmcache' ) ) : __( '(not installed)', 'shmcache' ) ); ?></td></tr>
			</tbody>
		</table>
		<p>
			<?php
			shmcache_page_cache_button( 'flush', __( 'Empty the page cache', 'shmcache' ) );
			if ( ! $s['installed'] || ( $s['ours'] && $s['version'] !== $s['shipped_version'] ) ) {
				shmcache_page_cache_button( 'install', $s['installed'] ? __( 'Update the drop-in', 'shmcache' ) : __( 'Install the drop-in', 'shmcache' ), true );
			}
			if ( $s['ours'] ) {
				shmcache_page_cache_button( 'uninstall', __( 'Remove the drop-in', 'shmcache' ) );
			}
			shmcache_page_cache_button( 'reset_stats', __( 'Reset counters', 'shmcache' ) );
			?>
		</p>
		<?php
	}

	if ( shmcache_page_cache_load_library() ) {
		shmcache_page_cache_register_hooks();
	}
}
