<?php
/**
 * The page cache's rules (wordpress/advanced-cache.php) as pure functions: which requests and
 * responses are cached, the key, the headers replayed, conditional requests, entry states, which
 * changes purge; plus the lookup/lease logic and the purge hooks' wiring against the real
 * extension and WordPress (scripts/test-pagecache.sh runs it with shmcache.enable_cli=1):
 *
 *   php -d extension=target/release/libshmcache.so -d shmcache.enable_cli=1 /usr/bin/phpunit \
 *       -c wordpress/tests/phpunit.xml wordpress/tests/PageCacheTest.php
 *
 * Nothing here writes to the database.
 */

use PHPUnit\Framework\TestCase;

if ( ! defined( 'SHMCACHE_PAGE_CACHE_LIBRARY_ONLY' ) ) {
	define( 'SHMCACHE_PAGE_CACHE_LIBRARY_ONLY', true );
}
require_once dirname( __DIR__ ) . '/advanced-cache.php';
require_once dirname( __DIR__ ) . '/shmcache-plugin/includes/page-cache.php';

final class PageCacheTest extends TestCase {

	/** @var string[] temporary directories to remove */
	private $dirs = array();

	protected function setUp(): void {
		add_filter( 'shmcache_page_cache_relay', '__return_false' );
		$GLOBALS['shmcache_page_cache_pending'] = array();
	}

	protected function tearDown(): void {
		$GLOBALS['shmcache_page_cache_pending'] = array();
		remove_filter( 'shmcache_page_cache_relay', '__return_false' );
		remove_all_filters( 'shmcache_page_cache_content_dir' );
		foreach ( $this->dirs as $dir ) {
			foreach ( (array) glob( $dir . '/{,.}*', GLOB_BRACE ) as $f ) {
				if ( is_file( $f ) || is_link( $f ) ) {
					unlink( $f );
				}
			}
			rmdir( $dir );
		}
	}

	private function config( array $constants = array(), $global = null ) {
		return shmcache_pc_build_config( $constants, $global );
	}

	private function server( $uri, array $extra = array() ) {
		return array_merge(
			array(
				'REQUEST_METHOD'  => 'GET',
				'REQUEST_URI'     => $uri,
				'HTTP_HOST'       => '127.0.0.1:8089',
				'SCRIPT_FILENAME' => '/usr/share/wordpress/index.php',
				'SERVER_PORT'     => '8089',
			),
			$extra
		);
	}

	// ------------------------------------------------------------------ configuration

	public function test_defaults_and_documented_cookie_list() {
		$c = $this->config();
		$this->assertSame( 600, $c['ttl'] );
		$this->assertFalse( $c['cache_search'] );
		$this->assertTrue( $c['soft_purge'] );
		foreach ( array( 'wordpress_logged_in_', 'wordpress_sec_', 'comment_author_', 'wp-postpass_', 'woocommerce_items_in_cart', 'wp_woocommerce_session_' ) as $cookie ) {
			$this->assertContains( $cookie, $c['bypass_cookies'] );
		}
	}

	public function test_constants_extend_lists_and_replace_scalars_and_the_global_replaces() {
		$c = $this->config(
			array(
				'SHMCACHE_PAGE_CACHE_TTL'            => '120',
				'SHMCACHE_PAGE_CACHE_SEARCH'         => 1,
				'SHMCACHE_PAGE_CACHE_BYPASS_COOKIES' => array( 'edd_items_in_cart' ),
			)
		);
		$this->assertSame( 120, $c['ttl'] );
		$this->assertTrue( $c['cache_search'] );
		$this->assertContains( 'edd_items_in_cart', $c['bypass_cookies'] );
		$this->assertContains( 'wordpress_logged_in_', $c['bypass_cookies'] );

		$c = $this->config( array(), array( 'bypass_cookies' => array( 'only_this' ), 'ttl' => -5, 'nonsense' => 1 ) );
		$this->assertSame( array( 'only_this' ), $c['bypass_cookies'] );
		$this->assertSame( 1, $c['ttl'] );
		$this->assertArrayNotHasKey( 'nonsense', $c );
	}

	// ------------------------------------------------------------------ requests

	public function bypassed_requests() {
		return array(
			'POST'                 => array( array( 'REQUEST_METHOD' => 'POST' ), array(), '/', 'method POST' ),
			'PUT'                  => array( array( 'REQUEST_METHOD' => 'PUT' ), array(), '/', 'method PUT' ),
			'logged in'            => array( array(), array( 'wordpress_logged_in_abc' => 'x' ), '/', 'cookie wordpress_logged_in_' ),
			'secure auth'          => array( array(), array( 'wordpress_sec_abc' => 'x' ), '/', 'cookie wordpress_sec_' ),
			'commenter'            => array( array(), array( 'comment_author_abc' => 'x' ), '/', 'cookie comment_author_' ),
			'post password'        => array( array(), array( 'wp-postpass_abc' => 'x' ), '/', 'cookie wp-postpass_' ),
			'cart'                 => array( array(), array( 'woocommerce_items_in_cart' => '1' ), '/', 'cookie woocommerce_items_in_cart' ),
			'woo session'          => array( array(), array( 'wp_woocommerce_session_abc' => 'x' ), '/', 'cookie wp_woocommerce_session_' ),
			'admin'                => array( array(), array(), '/wp-admin/edit.php', 'path /wp-admin/' ),
			'admin index'          => array( array( 'SCRIPT_FILENAME' => '/usr/share/wordpress/wp-admin/index.php' ), array(), '/wp-admin/', 'path /wp-admin/' ),
			'login script'         => array( array( 'SCRIPT_FILENAME' => '/usr/share/wordpress/wp-login.php' ), array(), '/wp-login.php', 'script wp-login.php' ),
			'xmlrpc script'        => array( array( 'SCRIPT_FILENAME' => '/usr/share/wordpress/xmlrpc.php' ), array(), '/xmlrpc.php', 'script xmlrpc.php' ),
			'REST path'            => array( array(), array(), '/wp-json/wp/v2/posts', 'path /wp-json/' ),
			'REST route'           => array( array(), array(), '/?rest_route=/wp/v2/posts', 'parameter rest_route' ),
			'preview'              => array( array(), array(), '/?p=4&preview=true', 'parameter preview' ),
			'search'               => array( array(), array(), '/?s=cache', 'parameter s' ),
			'search array'         => array( array(), array(), '/?s[]=cache', 'parameter s' ),
			'unapproved comment'   => array( array(), array(), '/hello/?unapproved=3&moderation-hash=abc', 'parameter unapproved' ),
			'HTTP auth (feeds)'    => array( array( 'HTTP_AUTHORIZATION' => 'Basic YTpi' ), array(), '/feed/', 'authorization' ),
			'PHP auth'             => array( array( 'PHP_AUTH_USER' => 'a' ), array(), '/feed/', 'authorization' ),
			'customizer'           => array( array(), array(), '/?customize_changeset_uuid=1', 'parameter customize_changeset_uuid' ),
			// Cookies that change what WordPress renders without a Set-Cookie on that page.
			'recently viewed'      => array( array(), array( 'woocommerce_recently_viewed' => '12|34' ), '/', 'cookie woocommerce_recently_viewed (not known to be harmless)' ),
			'EDD cart'             => array( array(), array( 'edd_items_in_cart' => '1' ), '/', 'cookie edd_items_in_cart (not known to be harmless)' ),
			'WPML language'        => array( array(), array( 'wp-wpml_current_language' => 'de' ), '/', 'cookie wp-wpml_current_language (not known to be harmless)' ),
			'Polylang language'    => array( array(), array( 'pll_language' => 'fr' ), '/', 'cookie pll_language (not known to be harmless)' ),
			'currency'             => array( array(), array( 'woocs_current_currency' => 'EUR' ), '/', 'cookie woocs_current_currency (not known to be harmless)' ),
			'session'              => array( array(), array( 'PHPSESSID' => 'abc' ), '/', 'cookie PHPSESSID (not known to be harmless)' ),
			'harmless + personal'  => array( array(), array( '_ga' => 'GA1.1', 'pll_language' => 'fr', '_gid' => 'x' ), '/', 'cookie pll_language (not known to be harmless)' ),
			'lookalike of _ga'     => array( array(), array( '_gax' => '1' ), '/', 'cookie _gax (not known to be harmless)' ),
			'case matters'         => array( array(), array( '_GA' => '1' ), '/', 'cookie _GA (not known to be harmless)' ),
		);
	}

	/** @dataProvider bypassed_requests */
	public function test_requests_that_bypass_the_cache( array $server, array $cookies, $uri, $reason ) {
		$this->assertSame( $reason, shmcache_pc_request_bypass_reason( $this->server( $uri, $server ), $cookies, $this->config() ) );
	}

	public function cacheable_requests() {
		return array(
			'front page'        => array( array(), array(), '/' ),
			'HEAD'              => array( array( 'REQUEST_METHOD' => 'HEAD' ), array(), '/' ),
			'post'              => array( array(), array(), '/2022/01/a-post/' ),
			'feed'              => array( array(), array(), '/feed/' ),
			'tracking only'     => array( array(), array(), '/?utm_source=x&fbclid=y' ),
			'test cookie'       => array( array(), array( 'wordpress_test_cookie' => 'WP Cookie check' ), '/' ),
			'analytics'         => array( array(), array( '_ga' => 'GA1.1', '_ga_ABC123' => 'GS1', '_gid' => 'x', '_gcl_au' => '1', '_fbp' => 'fb', '_hjSessionUser_42' => 'h' ), '/' ),
			'consent'           => array( array(), array( 'cookieyes-consent' => 'yes', 'CookieConsent' => '{}', 'cmplz_marketing' => 'deny', 'euconsent-v2' => 'x' ), '/' ),
			'admin settings'    => array( array(), array( 'wp-settings-1' => 'a', 'wp-settings-time-1' => '1' ), '/' ),
			'paged'             => array( array(), array(), '/page/2/' ),
			'no script name'    => array( array( 'SCRIPT_FILENAME' => '' ), array(), '/' ),
		);
	}

	/** @dataProvider cacheable_requests */
	public function test_requests_that_may_be_cached( array $server, array $cookies, $uri ) {
		$this->assertNull( shmcache_pc_request_bypass_reason( $this->server( $uri, $server ), $cookies, $this->config() ) );
	}

	public function test_site_owner_extends_the_harmless_list() {
		$c = $this->config( array( 'SHMCACHE_PAGE_CACHE_HARMLESS_COOKIES' => array( 'my_banner_closed', 'ab_*' ) ) );
		$this->assertNull( shmcache_pc_request_bypass_reason( $this->server( '/' ), array( 'my_banner_closed' => '1', 'ab_test' => 'b', '_ga' => 'x' ), $c ) );
		$this->assertNotNull( shmcache_pc_request_bypass_reason( $this->server( '/' ), array( 'my_banner_closed' => '1' ), $this->config() ) );
	}

	public function test_site_cookie_names_come_from_wp_config() {
		$this->assertSame( array(), shmcache_pc_site_cookies( array() ), 'unknown without COOKIEHASH or WP_SITEURL' );
		$this->assertSame(
			array(
				'wordpress_logged_in_a9b9f04336ce0181a08e774e01113b31' => 'LOGGED_IN_COOKIE',
				'wordpress_sec_a9b9f04336ce0181a08e774e01113b31'       => 'SECURE_AUTH_COOKIE',
				'wordpress_a9b9f04336ce0181a08e774e01113b31'           => 'AUTH_COOKIE',
				'wordpresspass_a9b9f04336ce0181a08e774e01113b31'       => 'PASS_COOKIE',
				'wordpressuser_a9b9f04336ce0181a08e774e01113b31'       => 'USER_COOKIE',
			),
			shmcache_pc_site_cookies( array( 'WP_SITEURL' => 'http://example.com/' ) ),
			'COOKIEHASH is md5 of the site URL without its trailing slash'
		);
		$names = shmcache_pc_site_cookies( array( 'COOKIEHASH' => 'h1', 'WP_SITEURL' => 'http://example.com', 'LOGGED_IN_COOKIE' => 'member_session' ) );
		$this->assertSame( 'LOGGED_IN_COOKIE', $names['member_session'] );
		$this->assertSame( 'SECURE_AUTH_COOKIE', $names['wordpress_sec_h1'] );
		$this->assertArrayNotHasKey( 'wordpress_logged_in_h1', $names );
	}

	public function test_a_renamed_login_cookie_bypasses_even_when_a_harmless_pattern_matches_it() {
		$c = $this->config(
			array(
				'LOGGED_IN_COOKIE'                     => 'site_login',
				'SECURE_AUTH_COOKIE'                   => 'site_secure',
				'SHMCACHE_PAGE_CACHE_HARMLESS_COOKIES' => array( 'site_*' ),
			)
		);
		$this->assertSame( 'cookie LOGGED_IN_COOKIE', shmcache_pc_request_bypass_reason( $this->server( '/' ), array( '_ga' => '1', 'site_login' => 'admin|1|x|y' ), $c ) );
		$this->assertSame( 'cookie SECURE_AUTH_COOKIE', shmcache_pc_request_bypass_reason( $this->server( '/' ), array( 'site_secure' => 'admin|1|x|y' ), $c ) );
		$this->assertNull( shmcache_pc_request_bypass_reason( $this->server( '/' ), array( 'site_theme' => 'dark' ), $c ) );
	}

	public function test_lifetime_is_capped_below_the_nonce_lifetime_unless_allowed() {
		$c = $this->config( array( 'SHMCACHE_PAGE_CACHE_TTL' => 86400, 'SHMCACHE_PAGE_CACHE_GRACE' => 3600 ) );
		$this->assertSame( array( 39600, 0 ), array( $c['ttl'], $c['grace'] ) );
		$c = $this->config( array( 'SHMCACHE_PAGE_CACHE_TTL' => 39000, 'SHMCACHE_PAGE_CACHE_GRACE' => 3000 ) );
		$this->assertSame( array( 39000, 600 ), array( $c['ttl'], $c['grace'] ) );
		$c = $this->config( array( 'SHMCACHE_PAGE_CACHE_TTL' => 3600, 'SHMCACHE_PAGE_CACHE_GRACE' => 300 ) );
		$this->assertSame( array( 3600, 300 ), array( $c['ttl'], $c['grace'] ) );
		$c = $this->config( array( 'SHMCACHE_PAGE_CACHE_TTL' => 86400, 'SHMCACHE_PAGE_CACHE_GRACE' => 3600, 'SHMCACHE_PAGE_CACHE_LONG_TTL' => true ) );
		$this->assertSame( array( 86400, 3600 ), array( $c['ttl'], $c['grace'] ) );
		$this->assertLessThan( 12 * 3600, SHMCACHE_PAGE_CACHE_NONCE_SAFE_LIFETIME, "below the 12 h a nonce is at least valid" );
	}

	public function test_search_is_cacheable_when_configured_and_extra_cookies_bypass() {
		$c = $this->config( array( 'SHMCACHE_PAGE_CACHE_SEARCH' => true, 'SHMCACHE_PAGE_CACHE_BYPASS_COOKIES' => array( 'edd_items_in_cart' ) ) );
		$this->assertNull( shmcache_pc_request_bypass_reason( $this->server( '/?s=cache' ), array(), $c ) );
		$this->assertSame( 'cookie edd_items_in_cart', shmcache_pc_request_bypass_reason( $this->server( '/' ), array( 'edd_items_in_cart' => '1' ), $c ) );
	}

	// ------------------------------------------------------------------ keys

	private function key( $uri, array $server = array(), array $config = null ) {
		return shmcache_pc_request_key( $this->server( $uri, $server ), $config ? $config : $this->config() );
	}

	public function test_key_is_scheme_host_path_and_normalised_query() {
		$this->assertSame( 'http://127.0.0.1:8089/', $this->key( '/' ) );
		$this->assertSame( 'http://127.0.0.1:8089/a/?x=1', $this->key( '/a/?x=1' ) );
		$this->assertSame( 'https://127.0.0.1:8089/', $this->key( '/', array( 'HTTPS' => 'on' ) ) );
		$this->assertSame( 'http://example.com/', $this->key( '/', array( 'HTTP_HOST' => 'Example.COM:80' ) ) );
		$this->assertSame( 'https://example.com/', $this->key( '/', array( 'HTTP_HOST' => 'example.com:443', 'HTTPS' => '1' ) ) );
		$this->assertSame( 'http://example.com:8080/', $this->key( '/', array( 'HTTP_HOST' => 'example.com:8080' ) ) );
	}

	public function same_keys() {
		return array(
			'tracking params'   => array( '/', '/?utm_source=x&utm_medium=y&fbclid=1&gclid=2&msclkid=3&mc_cid=4&_ga=5' ),
			'tracking, upper'   => array( '/', '/?UTM_Source=x' ),
			'tracking + real'   => array( '/?page_id=2', '/?utm_campaign=c&page_id=2&gclid=x' ),
			'order'             => array( '/?a=1&b=2', '/?b=2&a=1' ),
			'encoding'          => array( '/?a=%7E%20b', '/?a=~+b' ),
			'empty pairs'       => array( '/?a=1', '/?&a=1&&' ),
			'name without ='    => array( '/?a', '/?a=' ),
			'fragment'          => array( '/x/', '/x/#comments' ),
			'empty query'       => array( '/', '/?' ),
			'absolute form'     => array( '/x/', 'http://127.0.0.1:8089/x/' ),
		);
	}

	/** @dataProvider same_keys */
	public function test_equivalent_urls_share_a_key( $a, $b ) {
		$this->assertSame( $this->key( $a ), $this->key( $b ) );
	}

	public function different_keys() {
		return array(
			'value'            => array( '/?a=1', '/?a=2' ),
			'path'             => array( '/a/', '/b/' ),
			'trailing slash'   => array( '/a/', '/a' ),
			'repeated order'   => array( '/?a=2&a=1', '/?a=1&a=2' ),
			'real param'       => array( '/', '/?foo=bar' ),
			'page'             => array( '/', '/?paged=2' ),
			'array param'      => array( '/?a[]=1', '/?a=1' ),
		);
	}

	/** @dataProvider different_keys */
	public function test_different_pages_get_different_keys( $a, $b ) {
		$this->assertNotSame( $this->key( $a ), $this->key( $b ) );
	}

	public function devices() {
		return array(
			'iPhone'          => array( array( 'HTTP_USER_AGENT' => 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1' ), 'mobile' ),
			'Android tablet'  => array( array( 'HTTP_USER_AGENT' => 'Mozilla/5.0 (Linux; Android 13; SM-X700) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36' ), 'mobile' ),
			'Kindle'          => array( array( 'HTTP_USER_AGENT' => 'Mozilla/5.0 (Linux; U; en-us; KFTT Build/IML74K) AppleWebKit/535.19 (KHTML, like Gecko) Silk/3.68 like Chrome/13.0 Safari/535.19' ), 'mobile' ),
			'hint, before 6.4' => array( array( 'HTTP_USER_AGENT' => 'Mozilla/5.0 (X11; Linux x86_64)', 'HTTP_SEC_CH_UA_MOBILE' => '?1' ), 'desktop' ),
			'hint, 6.4+'      => array( array( 'HTTP_USER_AGENT' => 'Mozilla/5.0 (X11; Linux x86_64)', 'HTTP_SEC_CH_UA_MOBILE' => '?1' ), 'mobile', true ),
			'hint ?0, 6.4+'   => array( array( 'HTTP_USER_AGENT' => 'Mozilla/5.0 (iPhone) Mobile/15E148', 'HTTP_SEC_CH_UA_MOBILE' => '?0' ), 'desktop', true ),
			'no hint, 6.4+'   => array( array( 'HTTP_USER_AGENT' => 'Mozilla/5.0 (iPhone) Mobile/15E148' ), 'mobile', true ),
			'desktop Chrome'  => array( array( 'HTTP_USER_AGENT' => 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36', 'HTTP_SEC_CH_UA_MOBILE' => '?0' ), 'desktop' ),
			'no agent'        => array( array(), 'desktop' ),
		);
	}

	/** @dataProvider devices */
	public function test_device_class( array $server, $class, $client_hint = false ) {
		$this->assertSame( $class, shmcache_pc_device_class( $server, $client_hint ) );
	}

	public function test_mobile_variant_puts_the_device_class_in_the_key_only_when_enabled() {
		$iphone = array( 'HTTP_USER_AGENT' => 'Mozilla/5.0 (iPhone) Mobile/15E148' );
		$this->assertSame( $this->key( '/' ), $this->key( '/', $iphone ), 'one copy for every device by default' );
		$mobile = $this->config( array( 'SHMCACHE_PAGE_CACHE_MOBILE' => true ) );
		$this->assertSame( 'http://127.0.0.1:8089/ mobile', $this->key( '/', $iphone, $mobile ) );
		$this->assertSame( 'http://127.0.0.1:8089/ desktop', $this->key( '/', array(), $mobile ) );
	}

	public function test_query_normalisation_sorts_and_keeps_repeated_names_in_order() {
		$this->assertSame( 'a=2&a=1&b=%20&c%5B%5D=x', shmcache_pc_normalize_query( 'c[]=x&a=2&utm_x=1&b=+&a=1', $this->config()['ignored_params'] ) );
		$this->assertSame( '', shmcache_pc_normalize_query( 'utm_source=a&fbclid=b', $this->config()['ignored_params'] ) );
	}

	public function test_url_key_matches_the_request_key_for_purging() {
		$c = $this->config();
		$this->assertSame( $this->key( '/2022/01/x/?b=1&a=2' ), shmcache_pc_url_key( 'http://127.0.0.1:8089/2022/01/x/?a=2&b=1&utm_source=z', $c ) );
		$this->assertSame( $this->key( '/' ), shmcache_pc_url_key( 'http://127.0.0.1:8089', $c ) );
		$this->assertSame( '', shmcache_pc_url_key( 'not a url', $c ) );
	}

	public function test_long_keys_are_hashed_and_stay_distinct() {
		$a = $this->key( '/?q=' . str_repeat( 'a', 2000 ) );
		$b = $this->key( '/?q=' . str_repeat( 'a', 1999 ) . 'b' );
		$this->assertStringStartsWith( 'sha256:', $a );
		$this->assertLessThan( 100, strlen( $a ) );
		$this->assertNotSame( $a, $b );
	}

	// ------------------------------------------------------------------ responses

	private function ctx( array $extra = array() ) {
		return array_merge( array( 'method' => 'GET', 'body_length' => 1000, 'rendered' => true ), $extra );
	}

	public function uncacheable_responses() {
		$html = array( 'Content-Type: text/html; charset=UTF-8' );
		return array(
			'404'                => array( 404, $html, array(), 'status 404' ),
			'301'                => array( 301, array( 'Location: /x/' ), array(), 'status 301' ),
			'500'                => array( 500, $html, array(), 'status 500' ),
			'304'                => array( 304, array(), array(), 'status 304' ),
			'set-cookie'         => array( 200, array_merge( $html, array( 'Set-Cookie: a=b' ) ), array(), 'sets a cookie' ),
			'private'            => array( 200, array( 'Cache-Control: private, max-age=60' ), array(), 'Cache-Control: private' ),
			'no-store'           => array( 200, array( 'cache-control: no-store' ), array(), 'Cache-Control: no-store' ),
			'nocache_headers()'  => array( 200, array( 'Cache-Control: no-cache, must-revalidate, max-age=0' ), array(), 'Cache-Control: no-cache' ),
			'pragma'             => array( 200, array( 'Pragma: no-cache' ), array(), 'Pragma: no-cache' ),
			'vary cookie'        => array( 200, array( 'Vary: Accept-Encoding, Cookie' ), array(), 'Vary: cookie' ),
			'DONOTCACHEPAGE'     => array( 200, $html, array( 'donotcachepage' => true ), 'DONOTCACHEPAGE' ),
			'logged in'          => array( 200, $html, array( 'logged_in' => true ), 'logged in' ),
			'admin'              => array( 200, $html, array( 'admin' => true ), 'admin' ),
			'REST'               => array( 200, array( 'Content-Type: application/json' ), array( 'rest' => true ), 'REST request' ),
			'preview'            => array( 200, $html, array( 'preview' => true ), 'preview' ),
			'customizer'         => array( 200, $html, array( 'customize' => true ), 'customizer preview' ),
			'search'             => array( 200, $html, array( 'search' => true ), 'search results' ),
			'not rendered'       => array( 200, $html, array( 'rendered' => false ), 'not a front-end page' ),
			'empty'              => array( 200, $html, array( 'body_length' => 0 ), 'empty body' ),
			'too large'          => array( 200, $html, array( 'body_length' => 3000000 ), 'body larger than 2097152 bytes' ),
			'HEAD'               => array( 200, $html, array( 'method' => 'HEAD' ), 'method HEAD' ),
			'discarded'          => array( 200, $html, array( 'discarded' => true ), 'output discarded' ),
			'CSP nonce'          => array( 200, array_merge( $html, array( "Content-Security-Policy: script-src 'nonce-r4nd0m' 'strict-dynamic'" ) ), array(), 'nonce in Content-Security-Policy' ),
			'CSP report nonce'   => array( 200, array( "Content-Security-Policy-Report-Only: script-src 'NONCE-abc'" ), array(), 'nonce in Content-Security-Policy-Report-Only' ),
			'Link nonce'         => array( 200, array( 'Link: </app.js>; rel=preload; as=script; nonce=abc' ), array(), 'nonce in Link' ),
			'nonce header'       => array( 200, array( 'X-Page-Nonce: abc' ), array(), 'nonce in X-Page-Nonce' ),
			'meta CSP nonce'     => array( 200, $html, array( 'body_nonce' => true ), 'nonce in a <meta> Content-Security-Policy' ),
			'gzip, no header'    => array( 200, $html, array( 'body_gzip' => true ), 'compressed body without Content-Encoding' ),
		);
	}

	/** @dataProvider uncacheable_responses */
	public function test_responses_that_are_not_stored( $status, array $headers, array $ctx, $reason ) {
		$this->assertSame( $reason, shmcache_pc_response_uncacheable_reason( $status, $headers, $this->ctx( $ctx ), $this->config() ) );
	}

	public function test_responses_that_are_stored() {
		$c = $this->config();
		$this->assertNull( shmcache_pc_response_uncacheable_reason( 200, array( 'Content-Type: text/html; charset=UTF-8', 'Link: <http://x/wp-json/>; rel="https://api.w.org/"' ), $this->ctx(), $c ) );
		$this->assertNull( shmcache_pc_response_uncacheable_reason( 200, array( 'Cache-Control: public, max-age=300', 'Vary: Accept-Encoding' ), $this->ctx(), $c ) );
		$this->assertNull( shmcache_pc_response_uncacheable_reason( 200, array( 'Content-Type: application/rss+xml; charset=UTF-8', 'ETag: "abc"' ), $this->ctx(), $c ) );
		$this->assertNull( shmcache_pc_response_uncacheable_reason( 200, array( "Content-Security-Policy: default-src 'self'" ), $this->ctx(), $c ) );
		$this->assertNull( shmcache_pc_response_uncacheable_reason( 200, array( 'Content-Encoding: gzip', 'Vary: Accept-Encoding' ), $this->ctx( array( 'body_gzip' => true ) ), $c ) );
		$nonces = $this->config( array( 'SHMCACHE_PAGE_CACHE_CACHE_NONCES' => true ) );
		$this->assertNull( shmcache_pc_response_uncacheable_reason( 200, array( "Content-Security-Policy: script-src 'nonce-r4nd0m'" ), $this->ctx( array( 'body_nonce' => true ) ), $nonces ) );
		$searching = $this->config( array( 'SHMCACHE_PAGE_CACHE_SEARCH' => true ) );
		$this->assertNull( shmcache_pc_response_uncacheable_reason( 200, array(), $this->ctx( array( 'search' => true ) ), $searching ) );
	}

	public function test_replayed_headers_are_the_ones_that_matter() {
		$list = array(
			'X-Powered-By: PHP/8.2',
			'Content-Type: text/html; charset=UTF-8',
			'Link: <http://127.0.0.1:8089/wp-json/>; rel="https://api.w.org/"',
			'Link: <http://127.0.0.1:8089/?p=4>; rel=shortlink',
			'X-Pingback: http://127.0.0.1:8089/xmlrpc.php',
			'Set-Cookie: a=b',
			'X-WP-Queries: 12',
			'Content-Length: 5',
			'ETag: "abc"',
			'Last-Modified: Mon, 30 Nov 2026 02:03:23 GMT',
			'X-Frame-Options: SAMEORIGIN',
			'X-Cache: MISS',
			'Cache-Control: max-age=0, must-revalidate',
		);
		$this->assertSame(
			array(
				'Content-Type: text/html; charset=UTF-8',
				'Link: <http://127.0.0.1:8089/wp-json/>; rel="https://api.w.org/"',
				'Link: <http://127.0.0.1:8089/?p=4>; rel=shortlink',
				'X-Pingback: http://127.0.0.1:8089/xmlrpc.php',
				'X-Frame-Options: SAMEORIGIN',
				'Cache-Control: max-age=0, must-revalidate',
			),
			shmcache_pc_replay_headers( $list, $this->config() )
		);
		// Set-Cookie is never replayed, even when configured; other names can be added.
		$c = $this->config( array( 'SHMCACHE_PAGE_CACHE_REPLAY_HEADERS' => array( 'Set-Cookie', 'X-WP-Queries' ) ) );
		$this->assertSame( array( 'X-WP-Queries: 12' ), array_values( array_filter( shmcache_pc_replay_headers( $list, $c ), static function ( $l ) {
			return 0 === stripos( $l, 'x-wp' ) || 0 === stripos( $l, 'set-cookie' );
		} ) ) );
	}

	public function test_meta_csp_nonce_is_found_in_the_body() {
		$this->assertTrue( shmcache_pc_body_has_csp_nonce( '<head><meta http-equiv="Content-Security-Policy" content="script-src \'nonce-abc\'"></head>' ) );
		$this->assertFalse( shmcache_pc_body_has_csp_nonce( '<head><meta http-equiv="Content-Security-Policy" content="default-src \'self\'"></head>' ) );
		$this->assertFalse( shmcache_pc_body_has_csp_nonce( '<p>About Content-Security-Policy</p><script nonce="x"></script>' ) );
	}

	public function accept_encodings() {
		return array(
			'listed'            => array( 'gzip, deflate, br', 'gzip', true ),
			'x-gzip'            => array( 'x-gzip', 'gzip', true ),
			'case'              => array( 'GZIP', 'gzip', true ),
			'absent'            => array( '', 'gzip', false ),
			'other only'        => array( 'br', 'gzip', false ),
			'refused'           => array( 'gzip;q=0, br', 'gzip', false ),
			'refused, spaced'   => array( 'gzip ; q = 0', 'gzip', false ),
			'low q'             => array( 'gzip;q=0.1', 'gzip', true ),
			'wildcard'          => array( '*', 'br', true ),
			'wildcard refused'  => array( '*;q=0', 'gzip', false ),
			'named beats *'     => array( 'gzip;q=0, *', 'gzip', false ),
			'identity'          => array( '', '', true ),
		);
	}

	/** @dataProvider accept_encodings */
	public function test_accept_encoding( $accept, $encoding, $expected ) {
		$this->assertSame( $expected, shmcache_pc_accepts_encoding( $accept, $encoding ) );
	}

	public function test_an_encoded_body_is_stored_with_its_encoding_and_vary() {
		$this->assertSame( 'gzip', shmcache_pc_content_encoding( array( 'Content-Type: text/html', 'Content-Encoding: GZIP' ) ) );
		$this->assertSame( '', shmcache_pc_content_encoding( array( 'Content-Encoding: identity' ) ) );
		$this->assertSame( array(), shmcache_pc_replay_headers( array( 'Content-Encoding: gzip' ), $this->config( array( 'SHMCACHE_PAGE_CACHE_REPLAY_HEADERS' => array( 'content-encoding' ) ) ) ) );
		$e = shmcache_pc_make_entry( 200, array( 'Content-Type: text/html' ), "\x1f\x8b...", 1000, 1, $this->config(), '"e"', 1000, 'gzip' );
		$this->assertSame( 'gzip', $e['c'] );
		$this->assertSame( array( 'Content-Type: text/html', 'Vary: Accept-Encoding' ), $e['h'] );
		$e = shmcache_pc_make_entry( 200, array( 'Vary: Accept-Encoding' ), 'x', 1000, 1, $this->config(), '"e"', 1000, 'gzip' );
		$this->assertSame( array( 'Vary: Accept-Encoding' ), $e['h'] );
		$this->assertSame( '', $this->entry( 1000, 1 )['c'] );
	}

	public function test_validators_keep_the_response_own_or_derive_them() {
		list( $etag, $lm ) = shmcache_pc_validators( array( 'Content-Type: text/html' ), 'body', 1700000000 );
		$this->assertSame( '"' . hash( 'xxh128', 'body' ) . '"', $etag );
		$this->assertSame( 1700000000, $lm );
		list( $etag, $lm ) = shmcache_pc_validators( array( 'ETag: "feed-1"', 'Last-Modified: Tue, 14 Nov 2023 22:13:20 GMT' ), 'body', 1800000000 );
		$this->assertSame( '"feed-1"', $etag );
		$this->assertSame( 1700000000, $lm );
	}

	public function test_conditional_requests() {
		$etag = '"abc"';
		$lm   = 1700000000;
		$date = shmcache_pc_http_date( $lm );
		$this->assertTrue( shmcache_pc_not_modified( array( 'HTTP_IF_NONE_MATCH' => '"abc"' ), $etag, $lm ) );
		$this->assertTrue( shmcache_pc_not_modified( array( 'HTTP_IF_NONE_MATCH' => 'W/"abc"' ), $etag, $lm ) );
		$this->assertTrue( shmcache_pc_not_modified( array( 'HTTP_IF_NONE_MATCH' => '"x", "abc"' ), $etag, $lm ) );
		$this->assertTrue( shmcache_pc_not_modified( array( 'HTTP_IF_NONE_MATCH' => '*' ), $etag, $lm ) );
		$this->assertFalse( shmcache_pc_not_modified( array( 'HTTP_IF_NONE_MATCH' => '"abd"' ), $etag, $lm ) );
		$this->assertTrue( shmcache_pc_not_modified( array( 'HTTP_IF_MODIFIED_SINCE' => $date ), $etag, $lm ) );
		$this->assertTrue( shmcache_pc_not_modified( array( 'HTTP_IF_MODIFIED_SINCE' => shmcache_pc_http_date( $lm + 60 ) ), $etag, $lm ) );
		$this->assertFalse( shmcache_pc_not_modified( array( 'HTTP_IF_MODIFIED_SINCE' => shmcache_pc_http_date( $lm - 1 ) ), $etag, $lm ) );
		$this->assertFalse( shmcache_pc_not_modified( array( 'HTTP_IF_MODIFIED_SINCE' => 'garbage' ), $etag, $lm ) );
		// If-None-Match wins: a changed ETag is a 200 whatever the date says.
		$this->assertFalse( shmcache_pc_not_modified( array( 'HTTP_IF_NONE_MATCH' => '"old"', 'HTTP_IF_MODIFIED_SINCE' => $date ), $etag, $lm ) );
		$this->assertFalse( shmcache_pc_not_modified( array(), $etag, $lm ) );
	}

	// ------------------------------------------------------------------ entries, stampede

	private function entry( $generated, $version ) {
		return shmcache_pc_make_entry( 200, array( 'Content-Type: text/html' ), '<p>page</p>', $generated, $version, $this->config(), '"e"', $generated );
	}

	public function test_entry_states() {
		$e = $this->entry( 1000, 7 );
		$this->assertSame( 'fresh', shmcache_pc_entry_state( $e, 1000, 7 ) );
		$this->assertSame( 'fresh', shmcache_pc_entry_state( $e, 1599, 7 ) );
		$this->assertSame( 'stale', shmcache_pc_entry_state( $e, 1600, 7 ), 'past the 600 s TTL' );
		$this->assertSame( 'stale', shmcache_pc_entry_state( $e, 1001, 8 ), 'written before a purge' );
		$this->assertSame( 'invalid', shmcache_pc_entry_state( 'x', 1000, 7 ) );
		$this->assertSame( 'invalid', shmcache_pc_entry_state( array( 'f' => 99 ) + $e, 1000, 7 ) );
		$broken = $e;
		unset( $broken['b'] );
		$this->assertSame( 'invalid', shmcache_pc_entry_state( $broken, 1000, 7 ) );
	}

	private function shm_namespace() {
		$this->assertTrue( class_exists( 'ShmCache' ), 'run with -d extension=libshmcache.so -d shmcache.enable_cli=1' );
		$ns = new ShmCache( 'pagecache-test-' . bin2hex( random_bytes( 6 ) ) );
		$this->assertGreaterThan( 0, $ns->generation(), 'the CLI has no region: shmcache.enable_cli=1' );
		return $ns;
	}

	public function test_lookup_one_request_regenerates_a_stale_page_while_others_get_the_stale_copy() {
		$ns  = $this->shm_namespace();
		$now = time();
		$this->assertSame( array( 'miss', null ), shmcache_pc_lookup( $ns, 'k', $now, 1, true, 30 ) );

		$ns->set( 'k', $this->entry( $now, 1 ), 900 );
		$this->assertSame( 'hit', shmcache_pc_lookup( $ns, 'k', $now, 1, true, 30 )[0] );

		// After a purge (version 2) or past the TTL: the first GET wins the lease ...
		$this->assertSame( 'regenerate', shmcache_pc_lookup( $ns, 'k', $now, 2, true, 30 )[0] );
		// ... and everyone else is served the stale copy meanwhile, HEAD included.
		list( $action, $entry ) = shmcache_pc_lookup( $ns, 'k', $now, 2, true, 30 );
		$this->assertSame( 'stale', $action );
		$this->assertSame( '<p>page</p>', $entry['b'] );
		$this->assertSame( 'stale', shmcache_pc_lookup( $ns, 'k', $now + 601, 1, false, 30 )[0] );

		// The regenerated page is stored and the lease freed: fresh again for everyone.
		$ns->set( 'k', $this->entry( $now, 2 ), 900 );
		$ns->delete( 'lease|k' );
		$this->assertSame( 'hit', shmcache_pc_lookup( $ns, 'k', $now, 2, true, 30 )[0] );
		// A lease that is not freed (the request died) expires: someone else regenerates.
		$this->assertSame( 'regenerate', shmcache_pc_lookup( $ns, 'k', $now, 3, true, -1 )[0] );
		$this->assertSame( 'regenerate', shmcache_pc_lookup( $ns, 'k', $now, 3, true, 30 )[0] );
		$ns->flush();
	}

	public function test_purge_all_changes_the_site_version_in_o1() {
		$this->shm_namespace();
		$this->assertSame( '', shmcache_pc_unavailable_reason() );
		$v1 = shmcache_pc_site_version();
		$this->assertIsInt( $v1 );
		$e = $this->entry( time(), $v1 );
		$this->assertTrue( shmcache_page_cache_purge_all( 'unit test' ) );
		$v2 = shmcache_pc_site_version();
		$this->assertNotSame( $v1, $v2 );
		$this->assertSame( 'stale', shmcache_pc_entry_state( $e, time(), $v2 ) );
		$this->assertSame( 'unit test', shmcache_page_cache_stats()['last_purge']['reason'] );
		// A hard purge also empties the namespace.
		shmcache_pc_pages()->set( 'http://x/', $this->entry( time(), $v2 ), 60 );
		$this->assertTrue( shmcache_page_cache_purge_all( 'hard', true ) );
		$this->assertFalse( shmcache_pc_pages()->exists( 'http://x/' ) );
	}

	// ------------------------------------------------------------------ purge mapping

	public function post_changes() {
		return array(
			'update published post'  => array( 'post', 'publish', 'publish', true, 'post' ),
			'update published page'  => array( 'page', 'publish', 'publish', true, 'post' ),
			'update public custom'   => array( 'product', 'publish', 'publish', true, 'post' ),
			'publish draft'          => array( 'post', 'draft', 'publish', true, 'flush' ),
			'scheduled goes live'    => array( 'post', 'future', 'publish', true, 'flush' ),
			'trash published'        => array( 'post', 'publish', 'trash', true, 'flush' ),
			'unpublish'              => array( 'post', 'publish', 'draft', true, 'flush' ),
			'delete published'       => array( 'page', 'publish', 'deleted', true, 'flush' ),
			'save draft'             => array( 'post', 'draft', 'draft', true, 'none' ),
			'new auto-draft'         => array( 'post', 'new', 'auto-draft', true, 'none' ),
			'schedule'               => array( 'post', 'draft', 'future', true, 'none' ),
			'private post'           => array( 'post', 'private', 'private', true, 'none' ),
			'delete trashed'         => array( 'post', 'trash', 'deleted', true, 'none' ),
			'autosave revision'      => array( 'revision', 'inherit', 'inherit', false, 'none' ),
			'revision of published'  => array( 'revision', 'publish', 'publish', false, 'none' ),
			'attachment'             => array( 'attachment', 'inherit', 'inherit', true, 'flush' ),
			'menu item'              => array( 'nav_menu_item', 'publish', 'publish', false, 'flush' ),
			'block template'         => array( 'wp_template', 'publish', 'publish', false, 'flush' ),
			'global styles'          => array( 'wp_global_styles', 'publish', 'publish', false, 'flush' ),
			'changeset'              => array( 'customize_changeset', 'draft', 'publish', false, 'none' ),
			'oembed cache'           => array( 'oembed_cache', 'publish', 'publish', false, 'none' ),
			'internal post type'     => array( 'shop_order', 'publish', 'publish', false, 'none' ),
			'public custom type'     => array( 'product', 'draft', 'publish', true, 'flush' ),
		);
	}

	/** @dataProvider post_changes */
	public function test_post_changes( $type, $old, $new, $viewable, $expected ) {
		$this->assertSame( $expected, shmcache_pc_post_change_action( $type, $old, $new, $viewable ) );
	}

	public function comment_changes() {
		return array(
			'new approved'          => array( '', '1', 'post' ),
			'new held'              => array( '', '0', 'none' ),
			'new spam'              => array( '', 'spam', 'none' ),
			'approve'               => array( 'unapproved', 'approved', 'post' ),
			'wp_set_comment_status' => array( '', 'approve', 'post' ),
			'unapprove'             => array( 'approved', 'unapproved', 'post' ),
			'spam an approved'      => array( 'approved', 'spam', 'post' ),
			'spam a held one'       => array( 'unapproved', 'spam', 'none' ),
			'trash spam'            => array( 'spam', 'trash', 'none' ),
			'delete approved'       => array( '1', 'deleted', 'post' ),
			'edit approved'         => array( '1', '1', 'post' ),
		);
	}

	/** @dataProvider comment_changes */
	public function test_comment_changes( $old, $new, $expected ) {
		$this->assertSame( $expected, shmcache_pc_comment_change_action( $old, $new ) );
	}

	public function test_option_changes() {
		$c = $this->config();
		foreach ( array( 'blogname', 'blogdescription', 'permalink_structure', 'show_on_front', 'page_on_front', 'posts_per_page', 'stylesheet', 'theme_mods_twentytwentythree', 'sidebars_widgets', 'widget_block', 'sticky_posts', 'date_format', 'site_icon' ) as $option ) {
			$this->assertSame( 'flush', shmcache_pc_option_change_action( $option, $c ), $option );
		}
		foreach ( array( 'cron', '_transient_doing_cron', '_site_transient_update_core', '_transient_widget_x', 'recently_activated', 'some_plugin_setting', 'admin_email', 'auto_core_update_notified' ) as $option ) {
			$this->assertSame( 'none', shmcache_pc_option_change_action( $option, $c ), $option );
		}
		$extra = $this->config( array( 'SHMCACHE_PAGE_CACHE_FLUSH_OPTIONS' => array( 'my_theme_*' ) ) );
		$this->assertSame( 'flush', shmcache_pc_option_change_action( 'my_theme_colors', $extra ) );
	}

	public function test_meta_term_and_user_changes() {
		$this->assertSame( 'none', shmcache_pc_meta_change_action( '_edit_lock', 'post', 'publish', true ) );
		$this->assertSame( 'none', shmcache_pc_meta_change_action( '_edit_last', 'post', 'publish', true ) );
		$this->assertSame( 'post', shmcache_pc_meta_change_action( '_thumbnail_id', 'post', 'publish', true ) );
		$this->assertSame( 'post', shmcache_pc_meta_change_action( 'views', 'post', 'publish', true ) );
		$this->assertSame( 'none', shmcache_pc_meta_change_action( 'views', 'post', 'publish', true, true ), 'a view counter while a page renders' );
		$this->assertSame( 'flush', shmcache_pc_meta_change_action( '_wp_attachment_image_alt', 'attachment', 'inherit', true ) );
		$this->assertSame( 'none', shmcache_pc_meta_change_action( '_thumbnail_id', 'post', 'draft', true ) );
		$this->assertSame( 'post', shmcache_pc_meta_change_action( 'subtitle', 'page', 'publish', true ) );
		$this->assertSame( 'flush', shmcache_pc_term_change_action( 'category', true ) );
		$this->assertSame( 'flush', shmcache_pc_term_change_action( 'nav_menu', false ) );
		$this->assertSame( 'none', shmcache_pc_term_change_action( 'internal_tax', false ) );
		$this->assertSame( 'flush', shmcache_pc_user_change_action( 3 ) );
		$this->assertSame( 'none', shmcache_pc_user_change_action( 0 ) );
	}

	public function test_front_end_view_is_a_get_of_the_front_end_only() {
		$view = array( 'sapi' => 'fpm-fcgi', 'method' => 'GET' );
		$this->assertTrue( shmcache_pc_is_front_end_view( $view ) );
		$this->assertTrue( shmcache_pc_is_front_end_view( array( 'method' => 'HEAD' ) + $view ) );
		$this->assertFalse( shmcache_pc_is_front_end_view( array( 'method' => 'POST' ) + $view ) );
		$this->assertFalse( shmcache_pc_is_front_end_view( array( 'sapi' => 'cli' ) + $view ) );
		foreach ( array( 'admin', 'ajax', 'cron', 'rest', 'xmlrpc' ) as $flag ) {
			$this->assertFalse( shmcache_pc_is_front_end_view( array( $flag => true ) + $view ), $flag );
		}
	}

	public function path_groups() {
		return array(
			'home'                => array( '/', 'example.com/' ),
			'home paged'          => array( '/page/3/', 'example.com/' ),
			'home feed'           => array( '/feed/', 'example.com/' ),
			'home atom feed'      => array( '/feed/atom/', 'example.com/' ),
			'post'                => array( '/2024/05/hello-world/', 'example.com/2024/05/hello-world/' ),
			'post, no slash'      => array( '/2024/05/hello-world', 'example.com/2024/05/hello-world/' ),
			'post page 2'         => array( '/2024/05/hello-world/2/', 'example.com/2024/05/hello-world/' ),
			'post comment page'   => array( '/2024/05/hello-world/comment-page-2/', 'example.com/2024/05/hello-world/' ),
			'post comment feed'   => array( '/2024/05/hello-world/feed/', 'example.com/2024/05/hello-world/' ),
			'post embed'          => array( '/2024/05/hello-world/embed/', 'example.com/2024/05/hello-world/' ),
			'month archive'       => array( '/2024/05/', 'example.com/2024/05/' ),
			'month archive paged' => array( '/2024/05/page/2/', 'example.com/2024/05/' ),
			'year archive'        => array( '/2024/', 'example.com/2024/' ),
			'category paged feed' => array( '/category/News/page/2/', 'example.com/category/news/' ),
			'category feed'       => array( '/category/news/feed/rss2/', 'example.com/category/news/' ),
			'comments feed'       => array( '/comments/feed/', 'example.com/comments/' ),
			'sitemap index'       => array( '/wp-sitemap.xml', 'example.com/#sitemaps' ),
			'sitemap page'        => array( '/wp-sitemap-posts-post-1.xml', 'example.com/#sitemaps' ),
		);
	}

	/** @dataProvider path_groups */
	public function test_path_groups_cover_pagination_and_feeds( $path, $group ) {
		$this->assertSame( $group, shmcache_pc_path_group( 'Example.com:443', $path ) );
	}

	public function test_url_and_request_groups_agree_across_schemes_and_query_strings() {
		$request = shmcache_pc_request_group( $this->server( '/category/news/page/2/?utm_source=x&orderby=date', array( 'HTTP_HOST' => '127.0.0.1:8089' ) ) );
		$this->assertSame( '127.0.0.1:8089/category/news/', $request );
		$this->assertSame( $request, shmcache_pc_url_group( 'https://127.0.0.1:8089/category/news/' ) );
		$this->assertSame( '', shmcache_pc_url_group( 'not a url' ) );
		$this->assertNotSame( $request, shmcache_pc_url_group( 'http://127.0.0.1:8089/category/news-2/' ) );
	}

	public function test_a_group_purge_makes_its_pages_stale_and_leaves_the_others_fresh() {
		$this->shm_namespace();
		$ns  = shmcache_pc_pages();
		$now = time();
		$g1  = 'unit-' . bin2hex( random_bytes( 4 ) ) . '/post/';
		$g2  = 'unit-' . bin2hex( random_bytes( 4 ) ) . '/other/';
		$v   = shmcache_pc_site_version();
		$p1  = shmcache_pc_path_version( $g1 );
		$p2  = shmcache_pc_path_version( $g2 );
		$ns->set( 'k1', shmcache_pc_make_entry( 200, array(), 'one', $now, $v, $this->config(), '"1"', $now, '', 1, $p1 ), 60 );
		$ns->set( 'k2', shmcache_pc_make_entry( 200, array(), 'two', $now, $v, $this->config(), '"2"', $now, '', 1, $p2 ), 60 );
		$versions = static function ( $group ) {
			return static function ( $entry ) use ( $group ) {
				return array( shmcache_pc_site_version( (int) $entry['o'] ), shmcache_pc_path_version( $group ) );
			};
		};
		$this->assertSame( 'hit', shmcache_pc_lookup( $ns, 'k1', $now, $versions( $g1 ), false, 30 )[0] );
		$this->assertTrue( shmcache_page_cache_purge_groups( array( $g1 ), 'unit test' ) );
		$this->assertSame( $v, shmcache_pc_site_version(), 'a targeted purge leaves the site version alone' );
		$this->assertSame( 'stale', shmcache_pc_lookup( $ns, 'k1', $now, $versions( $g1 ), false, 30 )[0] );
		$this->assertSame( 'hit', shmcache_pc_lookup( $ns, 'k2', $now, $versions( $g2 ), false, 30 )[0] );
		// A path version that is lost (evicted) restarts at random: its old pages are stale.
		shmcache_pc_control()->delete( 'path|' . $g2 );
		$this->assertSame( 'stale', shmcache_pc_lookup( $ns, 'k2', $now, $versions( $g2 ), false, 30 )[0] );
		$ns->delete( 'k1' );
		$ns->delete( 'k2' );
	}

	public function test_a_whole_site_purge_stays_within_its_site() {
		$this->shm_namespace();
		$v1 = shmcache_pc_site_version( 1 );
		$v2 = shmcache_pc_site_version( 2 );
		$e1 = shmcache_pc_make_entry( 200, array(), 'site 1', time(), $v1, $this->config(), '"1"', time(), '', 1, 5 );
		$e2 = shmcache_pc_make_entry( 200, array(), 'site 2', time(), $v2, $this->config(), '"2"', time(), '', 2, 5 );
		$this->assertTrue( shmcache_page_cache_purge_all( 'site 2 changed', false, 2 ) );
		$this->assertSame( 'fresh', shmcache_pc_entry_state( $e1, time(), shmcache_pc_site_version( (int) $e1['o'] ), 5 ) );
		$this->assertSame( 'stale', shmcache_pc_entry_state( $e2, time(), shmcache_pc_site_version( (int) $e2['o'] ), 5 ) );
	}

	// ------------------------------------------------------------------ hooks (no database writes)

	private function fake_post( $type, $status ) {
		return new WP_Post( (object) array( 'ID' => 987654321, 'post_type' => $type, 'post_status' => $status, 'filter' => 'raw' ) );
	}

	public function test_purge_hooks_are_registered() {
		$hooks = array(
			'transition_post_status'         => 'shmcache_page_cache_on_transition_post_status',
			'save_post'                      => 'shmcache_page_cache_on_save_post',
			'deleted_post'                   => 'shmcache_page_cache_on_deleted_post',
			'trashed_post'                   => 'shmcache_page_cache_on_trashed_post',
			'updated_post_meta'              => 'shmcache_page_cache_on_post_meta',
			'set_object_terms'               => 'shmcache_page_cache_on_set_object_terms',
			'edited_term'                    => 'shmcache_page_cache_on_term',
			'comment_post'                   => 'shmcache_page_cache_on_comment_post',
			'transition_comment_status'      => 'shmcache_page_cache_on_transition_comment_status',
			'wp_set_comment_status'          => 'shmcache_page_cache_on_set_comment_status',
			'edit_comment'                   => 'shmcache_page_cache_on_edit_comment',
			'deleted_comment'                => 'shmcache_page_cache_on_deleted_comment',
			'updated_option'                 => 'shmcache_page_cache_on_option',
			'post_updated'                   => 'shmcache_page_cache_on_post_updated',
			'added_option'                   => 'shmcache_page_cache_on_option',
			'deleted_option'                 => 'shmcache_page_cache_on_option',
			'switch_theme'                   => 'shmcache_page_cache_on_site_change',
			'customize_save_after'           => 'shmcache_page_cache_on_site_change',
			'wp_update_nav_menu'             => 'shmcache_page_cache_on_site_change',
			'update_option_sidebars_widgets' => 'shmcache_page_cache_on_site_change',
			'rest_after_save_widget'         => 'shmcache_page_cache_on_site_change',
			'widget_update_callback'         => 'shmcache_page_cache_on_widget_update',
			'shutdown'                       => 'shmcache_page_cache_on_shutdown',
		);
		foreach ( $hooks as $hook => $callback ) {
			$this->assertNotFalse( has_action( $hook, $callback ), "$callback on $hook" );
		}
	}

	/** The handlers are called directly: do_action() would also run core's callbacks, which write. */
	public function test_handlers_queue_one_purge_for_changes_that_show() {
		shmcache_page_cache_on_transition_post_status( 'draft', 'draft', $this->fake_post( 'post', 'draft' ) );
		shmcache_page_cache_on_transition_post_status( 'inherit', 'new', $this->fake_post( 'revision', 'inherit' ) );
		shmcache_page_cache_on_save_post( 987654321, $this->fake_post( 'post', 'private' ) );
		shmcache_page_cache_on_option( '_transient_x' );
		shmcache_page_cache_on_option( 'cron' );
		shmcache_page_cache_on_comment_post( 5, 0 );
		shmcache_page_cache_on_transition_comment_status( 'spam', 'unapproved', (object) array( 'comment_ID' => 5 ) );
		shmcache_page_cache_on_deleted_comment( 5, (object) array( 'comment_approved' => 'spam' ) );
		$this->assertSame( array(), shmcache_page_cache_pending() );
		$this->assertSame( array(), shmcache_page_cache_pending_urls() );

		shmcache_page_cache_on_transition_post_status( 'publish', 'draft', $this->fake_post( 'post', 'publish' ) );
		shmcache_page_cache_on_deleted_post( 987654321, $this->fake_post( 'post', 'publish' ) );
		shmcache_page_cache_on_save_post( 987654321, $this->fake_post( 'nav_menu_item', 'publish' ) );
		shmcache_page_cache_on_option( 'blogname' );
		shmcache_page_cache_on_term( 1, 1, 'category' );
		$this->assertSame( array( 'x' ), shmcache_page_cache_on_widget_update( array( 'x' ) ) );
		$pending = shmcache_page_cache_pending();
		$this->assertCount( 6, $pending, implode( "\n", $pending ) );
		$this->assertStringContainsString( 'draft to publish', $pending[0] );

		// One purge for all of them, at the end of the request.
		$v = shmcache_pc_site_version();
		$this->assertTrue( shmcache_page_cache_run_pending() );
		$this->assertSame( array(), shmcache_page_cache_pending() );
		$this->assertNotSame( $v, shmcache_pc_site_version() );
		$this->assertFalse( shmcache_page_cache_run_pending() );
	}

	private function published_post() {
		$posts = get_posts( array( 'numberposts' => 1, 'post_status' => 'publish', 'post_type' => 'post' ) );
		$this->assertNotEmpty( $posts, 'the harness site has published posts' );
		return $posts[0];
	}

	public function test_an_edit_of_a_published_post_purges_its_pages_and_archives_only() {
		$post = $this->published_post();
		shmcache_page_cache_on_save_post( $post->ID, $post );
		shmcache_page_cache_on_post_meta( array( 1 ), $post->ID, 'subtitle' );
		shmcache_page_cache_on_transition_comment_status( 'approved', 'unapproved', (object) array( 'comment_ID' => 7, 'comment_post_ID' => $post->ID ) );
		$this->assertSame( array(), shmcache_page_cache_pending(), 'no whole-site purge' );
		$urls = array_keys( shmcache_page_cache_pending_urls() );
		$cats = get_the_category( $post->ID );
		$time = strtotime( $post->post_date );
		$want = array(
			get_permalink( $post ),
			home_url( '/' ),
			get_author_posts_url( (int) $post->post_author ),
			get_year_link( (int) gmdate( 'Y', $time ) ),
			get_month_link( (int) gmdate( 'Y', $time ), (int) gmdate( 'm', $time ) ),
			get_feed_link( 'comments_rss2' ),
		);
		if ( $cats ) {
			$want[] = get_category_link( $cats[0] );
		}
		foreach ( $want as $url ) {
			$this->assertContains( $url, $urls );
		}

		$site      = shmcache_pc_site_version();
		$own       = shmcache_pc_path_version( shmcache_pc_url_group( get_permalink( $post ) ) );
		$home      = shmcache_pc_path_version( shmcache_pc_url_group( home_url( '/page/2/' ) ) );
		$unrelated = shmcache_pc_path_version( shmcache_pc_url_group( home_url( '/an-unrelated-page/' ) ) );
		$this->assertTrue( shmcache_page_cache_run_pending() );
		$this->assertSame( $site, shmcache_pc_site_version() );
		$this->assertNotSame( $own, shmcache_pc_path_version( shmcache_pc_url_group( get_permalink( $post ) ) ) );
		$this->assertNotSame( $home, shmcache_pc_path_version( shmcache_pc_url_group( home_url( '/page/2/' ) ) ), 'the pagination of the home page' );
		$this->assertSame( $unrelated, shmcache_pc_path_version( shmcache_pc_url_group( home_url( '/an-unrelated-page/' ) ) ) );
	}

	public function test_relay_signature_age_and_site_are_checked() {
		$secret = str_repeat( 'k', 64 );
		$body   = json_encode( array( 't' => 1000, 'n' => 'abc', 'site' => 'wp-x', 'object' => true ) );
		$sig    = hash_hmac( 'sha256', $body, $secret );
		$this->assertIsArray( shmcache_pc_relay_check( $body, $sig, $secret, 1100, 'wp-x' ) );
		$this->assertSame( 'bad signature', shmcache_pc_relay_check( $body . ' ', $sig, $secret, 1100, 'wp-x' ) );
		$this->assertSame( 'bad signature', shmcache_pc_relay_check( $body, $sig, $secret . 'x', 1100, 'wp-x' ) );
		$this->assertSame( 'expired', shmcache_pc_relay_check( $body, $sig, $secret, 1000 + 301, 'wp-x' ) );
		$this->assertSame( 'another site', shmcache_pc_relay_check( $body, $sig, $secret, 1100, 'wp-y' ) );
		$this->assertSame( 'no secret keys in wp-config.php', shmcache_pc_relay_check( $body, $sig, '', 1100, 'wp-x' ) );
		$this->assertNotSame( '', shmcache_pc_relay_secret(), 'the harness config has secret keys' );
	}

	// ------------------------------------------------------------------ install, admin

	private function temp_content_dir() {
		$dir = sys_get_temp_dir() . '/shmcache-pc-' . bin2hex( random_bytes( 6 ) );
		mkdir( $dir );
		$this->dirs[] = $dir;
		add_filter(
			'shmcache_page_cache_content_dir',
			static function () use ( $dir ) {
				return $dir;
			}
		);
		return $dir;
	}

	public function test_install_and_uninstall_never_touch_another_plugins_drop_in() {
		$dir = $this->temp_content_dir();
		$this->assertNotSame( '', shmcache_page_cache_dropin_source() );
		$this->assertSame( 'installed', shmcache_page_cache_install()['result'] );
		$this->assertTrue( shmcache_page_cache_is_dropin_file( $dir . '/advanced-cache.php' ) );
		$this->assertSame( 'current', shmcache_page_cache_install()['result'] );
		$this->assertSame( 'removed', shmcache_page_cache_uninstall()['result'] );
		$this->assertFileDoesNotExist( $dir . '/advanced-cache.php' );
		$this->assertSame( 'absent', shmcache_page_cache_uninstall()['result'] );

		file_put_contents( $dir . '/advanced-cache.php', "<?php // another cache plugin\n" );
		$this->assertSame( 'foreign', shmcache_page_cache_install()['result'] );
		$this->assertSame( 'foreign', shmcache_page_cache_uninstall()['result'] );
		$this->assertSame( "<?php // another cache plugin\n", file_get_contents( $dir . '/advanced-cache.php' ) );
	}

	public function test_admin_section_shows_the_hit_rate() {
		$this->temp_content_dir();
		$user = get_current_user_id();
		wp_set_current_user( 1 );
		ob_start();
		shmcache_page_cache_admin_section();
		$html = ob_get_clean();
		wp_set_current_user( $user );
		$this->assertStringContainsString( 'Hit rate', $html );
		$this->assertStringContainsString( 'data-key="hit_rate"', $html );
		$this->assertStringContainsString( 'name="action" value="shmcache_page_cache"', $html );

		wp_set_current_user( 0 );
		ob_start();
		shmcache_page_cache_admin_section();
		$this->assertSame( '', ob_get_clean(), 'nothing for visitors without the capability' );
		wp_set_current_user( $user );
	}
}
