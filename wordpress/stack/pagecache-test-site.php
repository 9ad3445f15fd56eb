<?php
/**
 * Plugin Name: shmcache page cache test site
 * Description: Pages that depend on the visitor or on the response, the way popular plugins make them, for scripts/test-pagecache.sh. Installed as a must-use plugin only while that script runs.
 *
 * Each behaviour is what a real plugin does, reduced to the part that matters to a page cache:
 *
 *   cookie woocommerce_recently_viewed  the footer lists "recently viewed" product ids read from
 *                                        the cookie (WooCommerce's widget; no Set-Cookie is sent)
 *   cookie edd_items_in_cart            the footer shows the cart count (Easy Digital Downloads)
 *   cookie wp-wpml_current_language     the footer shows the language (WPML)
 *   cookie pll_language                 the footer shows the language (Polylang)
 *   cookie woocs_current_currency       the footer shows the currency (a currency switcher)
 *   ?pc_probe=csp                       a Content-Security-Policy with a fresh nonce, used by a
 *                                        <script nonce> in the page (CSP plugins)
 *   ?pc_probe=gzip                      the page goes through ob_gzhandler (compression plugins)
 *   ?pc_probe=device                    the footer says whether wp_is_mobile() is true
 *   posts titled "View counter ..."     each view adds one to the public post meta "views"
 *
 * A request without those cookies and parameters gets exactly the page it gets without this
 * plugin.
 */

// phpcs:disable WordPress.Security.NonceVerification.Recommended -- read-only test probes

$shmcache_pc_probe = isset( $_GET['pc_probe'] ) ? (string) $_GET['pc_probe'] : '';

if ( 'gzip' === $shmcache_pc_probe && 'cli' !== PHP_SAPI ) {
	ob_start( 'ob_gzhandler' );
}

/** What the page shows from the visitor's cookies, as one line of text each. */
function shmcache_pc_test_personal_lines() {
	$shown = array(
		'woocommerce_recently_viewed' => 'recently viewed: ',
		'edd_items_in_cart'           => 'items in cart: ',
		'wp-wpml_current_language'    => 'language (WPML): ',
		'pll_language'                => 'language (Polylang): ',
		'woocs_current_currency'      => 'currency: ',
	);
	$lines = array();
	foreach ( $shown as $cookie => $label ) {
		if ( isset( $_COOKIE[ $cookie ] ) ) {
			$lines[] = $label . preg_replace( '/[^A-Za-z0-9|_-]/', '', (string) wp_unslash( $_COOKIE[ $cookie ] ) );
		}
	}
	return $lines;
}

function shmcache_pc_test_csp_nonce() {
	static $nonce = null;
	if ( null === $nonce ) {
		$nonce = bin2hex( random_bytes( 12 ) );
	}
	return $nonce;
}

add_action(
	'send_headers',
	static function () use ( $shmcache_pc_probe ) {
		if ( 'csp' === $shmcache_pc_probe ) {
			header( "Content-Security-Policy: script-src 'self' 'nonce-" . shmcache_pc_test_csp_nonce() . "'" );
		}
	}
);

add_action(
	'wp_head',
	static function () use ( $shmcache_pc_probe ) {
		if ( 'csp' === $shmcache_pc_probe ) {
			echo '<script nonce="' . esc_attr( shmcache_pc_test_csp_nonce() ) . '">window.pcProbe = 1;</script>' . "\n";
		}
	}
);

add_action(
	'wp_footer',
	static function () use ( $shmcache_pc_probe ) {
		foreach ( shmcache_pc_test_personal_lines() as $line ) {
			echo '<p class="pc-personal">' . esc_html( $line ) . "</p>\n";
		}
		if ( 'device' === $shmcache_pc_probe ) {
			echo '<p class="pc-device">device: ' . ( wp_is_mobile() ? 'mobile' : 'desktop' ) . "</p>\n";
		}
	}
);

add_action(
	'template_redirect',
	static function () {
		if ( is_singular() ) {
			$post = get_queried_object();
			if ( $post instanceof WP_Post && 0 === strpos( $post->post_title, 'View counter' ) ) {
				update_post_meta( $post->ID, 'views', (int) get_post_meta( $post->ID, 'views', true ) + 1 );
			}
		}
	}
);
