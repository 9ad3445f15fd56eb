<?php
/**
 * shmcache page cache drop-in for WordPress (advanced-cache.php).
 *
 * Copy (or symlink) to wp-content/advanced-cache.php and define WP_CACHE true in wp-config.php.
 * Whole pages for anonymous visitors are kept in the shmcache extension's shared memory and
 * served before WordPress loads its database, plugins or theme. See docs/page-cache.md.
 *
 * This file is also the page cache's library: the purge hooks of the shmcache plugin
 * (shmcache-plugin/includes/page-cache.php) and the unit tests include it with
 * SHMCACHE_PAGE_CACHE_LIBRARY_ONLY defined, which defines the functions and serves nothing.
 * The rules (which requests and responses are cached, the key, the headers replayed, which
 * changes purge) are pure functions, shmcache_pc_*(), that take everything as parameters.
 *
 * Safe failure: without the extension, with the extension disabled in this SAPI, or with
 * SHMCACHE_PAGE_CACHE_DISABLE true, this file does nothing and WordPress runs as usual.
 *
 * Marker for installers: shmcache-page-cache-dropin
 *
 * Version: 0.1.0
 */

if ( ! defined( 'SHMCACHE_PAGE_CACHE_VERSION' ) ) {

	define( 'SHMCACHE_PAGE_CACHE_VERSION', '0.1.0' );

	/** Layout of a stored entry; entries of another layout are ignored (misses). */
	define( 'SHMCACHE_PAGE_CACHE_ENTRY_FORMAT', 2 );

	/**
	 * Longest a page may be kept (TTL + grace) unless SHMCACHE_PAGE_CACHE_LONG_TTL is true:
	 * WordPress nonces in a page stay valid for at least 12 hours after it was generated, so a
	 * copy younger than 11 hours leaves a visitor an hour to use its forms.
	 */
	define( 'SHMCACHE_PAGE_CACHE_NONCE_SAFE_LIFETIME', 11 * 3600 );

	// --------------------------------------------------------------------------- configuration

	/**
	 * The defaults. Every key can be changed, see shmcache_pc_build_config().
	 *
	 * @return array<string, mixed>
	 */
	function shmcache_pc_default_config() {
		return array(
			// Turns the page cache off (the drop-in then does nothing).
			'disable'            => false,
			// Seconds a page is fresh.
			'ttl'                => 600,
			// Seconds after that during which the stale copy may still be served to other
			// visitors while one request regenerates the page.
			'grace'              => 300,
			// Seconds a regeneration lease lasts (a request that dies frees it after this).
			'lease'              => 30,
			// Cache search results (?s=, /search/...)?
			'cache_search'       => false,
			// Largest body stored, in bytes.
			'max_bytes'          => 2097152,
			// Purges mark every page stale (true, the next visit of each page regenerates it
			// while concurrent visitors get the old copy for the length of that regeneration)
			// or empty the namespace (false, concurrent first visitors all regenerate).
			'soft_purge'         => true,
			// Count hits, misses, ... in shared memory (the admin screen's hit rate).
			'stats'              => true,
			// From the CLI (WP-CLI, cron from the shell) purges are sent to the web server,
			// whose shared memory the CLI cannot reach; see docs/page-cache.md.
			'relay'              => true,
			// Where the relay request goes; '' = home_url('/').
			'relay_url'          => '',
			// A relayed purge also flushes this site's object cache in the web server (what the
			// CLI changed in the database is stale there too).
			'relay_object_cache' => true,
			// Cache-Control sent with cacheable pages that set none themselves ('' = none):
			// browsers revalidate (ETag / Last-Modified, cheap 304s) instead of guessing.
			'cache_control'      => 'max-age=0, must-revalidate',
			// Cookies (name prefixes) that always make a request bypass the cache, even when a
			// harmless pattern would match them; the reason then names the prefix. The site's own
			// login cookie names (LOGGED_IN_COOKIE, ... of wp-config.php) are added at runtime.
			'bypass_cookies'     => array(
				'wordpress_logged_in_',
				'wordpress_sec_',
				'wp-postpass_',
				'comment_author_',
				'woocommerce_items_in_cart',
				'wp_woocommerce_session_',
			),
			// Cookies that cannot change a page ("name*" = prefix, case-sensitive). A request is
			// served from the cache, and its page stored, only when every cookie it carries is on
			// this list: any other cookie (a cart, a language, a currency, "recently viewed", a
			// session) may change what WordPress renders, so the request goes to WordPress.
			'harmless_cookies'   => array(
				// WordPress: the login form's test cookie, the admin's screen settings (read only
				// for a logged-in user, whom the login cookie already sends to WordPress).
				'wordpress_test_cookie', 'wp-settings-*',
				// Analytics and advertising, read by scripts in the browser only.
				'_ga', '_ga_*', '_gid', '_gat', '_gat_*', '_gcl_*', '__utm*', '_fbp', '_fbc', '_hj*',
				'_clck', '_clsk', '_uetsid', '_uetvid', '_pk_id*', '_pk_ses*', '_pk_ref*', 'hubspotutk',
				'__hstc', '__hssc', '__hssrc', '_tt_*', '_ttp', '_pin_unauth', '_scid', '_rdt_uuid',
				// Consent banners that block scripts in the browser (not on the server).
				'cookieyes-consent', 'CookieConsent', 'OptanonConsent', 'OptanonAlertBoxClosed',
				'euconsent-v2', 'cmplz_*', 'borlabs-cookie', 'moove_gdpr_popup', 'viewed_cookie_policy',
				'cookielawinfo-checkbox-*', 'CookieLawInfoConsent', 'real_cookie_banner*',
			),
			// Query parameters left out of the key ("name*" = prefix). The page must not depend on them.
			'ignored_params'     => array(
				'utm_*', 'fbclid', 'gclid', 'gclsrc', 'dclid', 'gbraid', 'wbraid', 'msclkid', 'yclid',
				'twclid', 'ttclid', 'igshid', 'li_fat_id', 'mc_cid', 'mc_eid', '_ga', '_gl', '_ke',
				'_hsenc', '_hsmi', '__hssc', '__hstc', '__hsfp', 'hsctatracking', 'mkt_tok', 'srsltid',
				'epik', 's_kwcid', 'ef_id', 'oly_anon_id', 'oly_enc_id', 'vero_id', 'vero_conv',
				'wickedid', 'rb_clickid', '_branch_match_id', 'ref_src', 'cmpid', 'dm_i', 'trk_*',
			),
			// Query parameters that make a request bypass the cache.
			'bypass_params'      => array(
				'preview', 'preview_id', 'preview_nonce', '_wpnonce', '_ppp', 'customize_changeset_uuid',
				'customize_theme', 'customize_messenger_channel', 'customize_autosaved', 'rest_route',
				'doing_wp_cron', 'replytocom', 'unapproved', 'moderation-hash', 'wc-ajax', 'wc-api',
				'add-to-cart', 'remove_item', 'undo_item', 'nocache',
			),
			// Path fragments that make a request bypass the cache.
			'bypass_paths'       => array(
				'/wp-admin/', '/wp-login.php', '/wp-json/', '/xmlrpc.php', '/wp-cron.php',
				'/wp-comments-post.php', '/wp-signup.php', '/wp-activate.php', '/wp-trackback.php',
				'/wp-mail.php',
			),
			// Keep a separate copy for phones and tablets (for themes or plugins that render
			// differently when wp_is_mobile() is true): the key then includes the device class.
			'mobile'             => false,
			// Cache responses that carry a nonce in a header (a Content-Security-Policy
			// 'nonce-...', a nonce= parameter): replaying one visitor's nonce to everyone defeats
			// its purpose, so by default such a response is not stored.
			'cache_nonces'       => false,
			// Allow TTL + grace above SHMCACHE_PAGE_CACHE_NONCE_SAFE_LIFETIME (11 h). Pages can
			// then carry WordPress nonces that have already expired.
			'long_ttl'           => false,
			// Response headers stored and replayed (lower case). ETag and Last-Modified are
			// always sent, and Content-Encoding with the body it describes; Set-Cookie and
			// hop-by-hop headers never are.
			'replay_headers'     => array(
				'content-type', 'content-language', 'link', 'x-pingback', 'cache-control', 'expires',
				'vary', 'x-robots-tag', 'content-security-policy', 'content-security-policy-report-only',
				'x-frame-options', 'x-content-type-options', 'referrer-policy', 'permissions-policy',
				'strict-transport-security', 'access-control-allow-origin', 'cross-origin-opener-policy',
				'cross-origin-embedder-policy', 'cross-origin-resource-policy', 'x-xss-protection',
				'x-ua-compatible', 'content-disposition',
			),
			// Options whose change empties the page cache ("name*" = prefix).
			'flush_options'      => array(
				'blogname', 'blogdescription', 'home', 'siteurl', 'permalink_structure', 'category_base',
				'tag_base', 'show_on_front', 'page_on_front', 'page_for_posts', 'posts_per_page',
				'posts_per_rss', 'rss_use_excerpt', 'date_format', 'time_format', 'start_of_week',
				'timezone_string', 'gmt_offset', 'WPLANG', 'blog_charset', 'site_icon', 'site_logo',
				'stylesheet', 'template', 'current_theme', 'theme_switched', 'theme_mods_*',
				'sidebars_widgets', 'widget_*', 'nav_menu_options', 'sticky_posts', 'active_plugins',
				'blog_public', 'default_comment_status', 'default_ping_status', 'comment_registration',
				'comments_per_page', 'default_comments_page', 'comment_order', 'page_comments',
				'thread_comments', 'thread_comments_depth', 'show_avatars', 'avatar_default',
				'avatar_rating', 'close_comments_for_old_posts', 'close_comments_days_old',
				'require_name_email', 'show_comments_cookies_opt_in', 'wp_page_for_privacy_policy',
				'users_can_register', 'use_smilies',
			),
		);
	}

	/**
	 * Constants (wp-config.php) that change the configuration: scalar ones replace the default,
	 * list ones (arrays) are added to it.
	 *
	 * @return array<string, string> constant name => configuration key
	 */
	function shmcache_pc_config_constants() {
		return array(
			'SHMCACHE_PAGE_CACHE_DISABLE'            => 'disable',
			'SHMCACHE_PAGE_CACHE_TTL'                => 'ttl',
			'SHMCACHE_PAGE_CACHE_GRACE'              => 'grace',
			'SHMCACHE_PAGE_CACHE_LEASE'              => 'lease',
			'SHMCACHE_PAGE_CACHE_SEARCH'             => 'cache_search',
			'SHMCACHE_PAGE_CACHE_MAX_BYTES'          => 'max_bytes',
			'SHMCACHE_PAGE_CACHE_SOFT_PURGE'         => 'soft_purge',
			'SHMCACHE_PAGE_CACHE_STATS'              => 'stats',
			'SHMCACHE_PAGE_CACHE_RELAY'              => 'relay',
			'SHMCACHE_PAGE_CACHE_RELAY_URL'          => 'relay_url',
			'SHMCACHE_PAGE_CACHE_RELAY_OBJECT_CACHE' => 'relay_object_cache',
			'SHMCACHE_PAGE_CACHE_CACHE_CONTROL'      => 'cache_control',
			'SHMCACHE_PAGE_CACHE_BYPASS_COOKIES'     => 'bypass_cookies',
			'SHMCACHE_PAGE_CACHE_HARMLESS_COOKIES'   => 'harmless_cookies',
			'SHMCACHE_PAGE_CACHE_CACHE_NONCES'       => 'cache_nonces',
			'SHMCACHE_PAGE_CACHE_LONG_TTL'           => 'long_ttl',
			'SHMCACHE_PAGE_CACHE_MOBILE'             => 'mobile',
			'SHMCACHE_PAGE_CACHE_IGNORED_PARAMS'     => 'ignored_params',
			'SHMCACHE_PAGE_CACHE_BYPASS_PARAMS'      => 'bypass_params',
			'SHMCACHE_PAGE_CACHE_BYPASS_PATHS'       => 'bypass_paths',
			'SHMCACHE_PAGE_CACHE_REPLAY_HEADERS'     => 'replay_headers',
			'SHMCACHE_PAGE_CACHE_FLUSH_OPTIONS'      => 'flush_options',
		);
	}

	/**
	 * The configuration from the defaults, the constants and the global array (pure).
	 *
	 * @param array<string, mixed> $constants Defined constants, name => value (see shmcache_pc_config_constants()).
	 * @param mixed                $global    $GLOBALS['shmcache_page_cache_config']: key => value, replaces
	 *                                        the result for that key (lists included), applied last.
	 * @return array<string, mixed>
	 */
	function shmcache_pc_build_config( array $constants, $global = null ) {
		$config = shmcache_pc_default_config();
		foreach ( shmcache_pc_config_constants() as $name => $key ) {
			if ( ! array_key_exists( $name, $constants ) ) {
				continue;
			}
			$value = $constants[ $name ];
			if ( is_array( $config[ $key ] ) ) {
				if ( is_array( $value ) ) {
					$config[ $key ] = array_values( array_unique( array_merge( $config[ $key ], array_map( 'strval', $value ) ) ) );
				}
			} else {
				$config[ $key ] = $value;
			}
		}
		if ( is_array( $global ) ) {
			foreach ( $global as $key => $value ) {
				if ( ! array_key_exists( $key, $config ) ) {
					continue;
				}
				if ( is_array( $config[ $key ] ) ) {
					if ( is_array( $value ) ) {
						$config[ $key ] = array_values( array_map( 'strval', $value ) );
					}
				} else {
					$config[ $key ] = $value;
				}
			}
		}
		foreach ( array( 'disable', 'cache_search', 'soft_purge', 'stats', 'relay', 'relay_object_cache', 'cache_nonces', 'long_ttl', 'mobile' ) as $key ) {
			$config[ $key ] = (bool) $config[ $key ];
		}
		$config['ttl']           = max( 1, (int) $config['ttl'] );
		$config['grace']         = max( 0, (int) $config['grace'] );
		if ( ! $config['long_ttl'] ) {
			$config['ttl']   = min( $config['ttl'], SHMCACHE_PAGE_CACHE_NONCE_SAFE_LIFETIME );
			$config['grace'] = min( $config['grace'], SHMCACHE_PAGE_CACHE_NONCE_SAFE_LIFETIME - $config['ttl'] );
		}
		$config['site_cookies']  = shmcache_pc_site_cookies( $constants );
		$config['lease']         = max( 1, (int) $config['lease'] );
		$config['max_bytes']     = max( 1, (int) $config['max_bytes'] );
		$config['relay_url']     = (string) $config['relay_url'];
		$config['cache_control'] = (string) $config['cache_control'];
		return $config;
	}

	/**
	 * This request's configuration (constants and $shmcache_page_cache_config of wp-config.php).
	 *
	 * @param bool $reload Read the constants and the global again (tests).
	 * @return array<string, mixed>
	 */
	function shmcache_pc_config( $reload = false ) {
		static $config = null;
		if ( null === $config || $reload ) {
			$constants = array();
			foreach ( array_merge( array_keys( shmcache_pc_config_constants() ), shmcache_pc_cookie_constants() ) as $name ) {
				if ( defined( $name ) ) {
					$constants[ $name ] = constant( $name );
				}
			}
			$config = shmcache_pc_build_config( $constants, isset( $GLOBALS['shmcache_page_cache_config'] ) ? $GLOBALS['shmcache_page_cache_config'] : null );
			// wp-settings.php loads version.php before the drop-in.
			$config['mobile_client_hint'] = isset( $GLOBALS['wp_version'] ) && version_compare( (string) $GLOBALS['wp_version'], '6.4', '>=' );
		}
		return $config;
	}

	/** The wp-config.php constants that name WordPress's cookies. */
	function shmcache_pc_cookie_constants() {
		return array( 'COOKIEHASH', 'WP_SITEURL', 'LOGGED_IN_COOKIE', 'SECURE_AUTH_COOKIE', 'AUTH_COOKIE', 'PASS_COOKIE', 'USER_COOKIE' );
	}

	/**
	 * The site's own names of the cookies that identify a user, as wp-config.php sets them (pure).
	 * WordPress names them after COOKIEHASH, which is md5 of the site URL; the drop-in runs
	 * before the database, so it knows the hash only from COOKIEHASH or WP_SITEURL. When it does
	 * not, the default prefixes of 'bypass_cookies' and the harmless list still send these
	 * cookies to WordPress: they are simply not named in the reason.
	 *
	 * @param array<string, mixed> $constants Defined constants, name => value.
	 * @return array<string, string> cookie name => the constant it comes from
	 */
	function shmcache_pc_site_cookies( array $constants ) {
		$hash = null;
		if ( isset( $constants['COOKIEHASH'] ) ) {
			$hash = (string) $constants['COOKIEHASH'];
		} elseif ( isset( $constants['WP_SITEURL'] ) && '' !== (string) $constants['WP_SITEURL'] ) {
			$hash = md5( rtrim( (string) $constants['WP_SITEURL'], '/' ) );
		}
		$defaults = array(
			'LOGGED_IN_COOKIE'   => 'wordpress_logged_in_',
			'SECURE_AUTH_COOKIE' => 'wordpress_sec_',
			'AUTH_COOKIE'        => 'wordpress_',
			'PASS_COOKIE'        => 'wordpresspass_',
			'USER_COOKIE'        => 'wordpressuser_',
		);
		$names = array();
		foreach ( $defaults as $constant => $prefix ) {
			if ( isset( $constants[ $constant ] ) && '' !== (string) $constants[ $constant ] ) {
				$names[ (string) $constants[ $constant ] ] = $constant;
			} elseif ( null !== $hash ) {
				$names[ $prefix . $hash ] = $constant;
			}
		}
		return $names;
	}

	/** Whether a cookie name matches a list of names ("name*" = prefix), case-sensitively. */
	function shmcache_pc_cookie_matches( $name, array $patterns ) {
		foreach ( $patterns as $pattern ) {
			$pattern = (string) $pattern;
			if ( '' === $pattern ) {
				continue;
			}
			if ( '*' === substr( $pattern, -1 ) ? 0 === strncmp( $name, $pattern, strlen( $pattern ) - 1 ) : $name === $pattern ) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Why the cookies of a request keep it away from the cache, or null when they cannot change
	 * the page (pure). The site's login cookies and the bypass prefixes come first, so that no
	 * harmless pattern can let a logged-in visitor through; then every other cookie must be on
	 * the harmless list.
	 */
	function shmcache_pc_cookie_bypass_reason( array $cookies, array $config ) {
		$site = isset( $config['site_cookies'] ) ? $config['site_cookies'] : array();
		foreach ( $cookies as $name => $value ) {
			$name = (string) $name;
			if ( isset( $site[ $name ] ) ) {
				return 'cookie ' . $site[ $name ];
			}
			foreach ( $config['bypass_cookies'] as $prefix ) {
				if ( '' !== (string) $prefix && 0 === strncmp( $name, (string) $prefix, strlen( (string) $prefix ) ) ) {
					return 'cookie ' . $prefix;
				}
			}
		}
		foreach ( $cookies as $name => $value ) {
			if ( ! shmcache_pc_cookie_matches( (string) $name, $config['harmless_cookies'] ) ) {
				return 'cookie ' . substr( (string) $name, 0, 64 ) . ' (not known to be harmless)';
			}
		}
		return null;
	}

	// --------------------------------------------------------------------------- requests

	/**
	 * A query string as [name, value] pairs, percent-decoded ("+" is a space), in order.
	 * Unlike parse_str() nothing is merged or renamed.
	 *
	 * @return array<int, array{0:string, 1:string}>
	 */
	function shmcache_pc_parse_query( $query ) {
		$pairs = array();
		foreach ( explode( '&', (string) $query ) as $part ) {
			if ( '' === $part ) {
				continue;
			}
			$eq    = strpos( $part, '=' );
			$name  = urldecode( false === $eq ? $part : substr( $part, 0, $eq ) );
			$value = false === $eq ? '' : urldecode( substr( $part, $eq + 1 ) );
			if ( '' === $name ) {
				continue;
			}
			$pairs[] = array( $name, $value );
		}
		return $pairs;
	}

	/** The name PHP gives a parameter in $_GET: "a[b]" → "a". */
	function shmcache_pc_param_base( $name ) {
		$bracket = strpos( $name, '[' );
		return false === $bracket || 0 === $bracket ? $name : substr( $name, 0, $bracket );
	}

	/**
	 * Whether a parameter name matches a list of names ("name*" = prefix), case-insensitively.
	 */
	function shmcache_pc_param_matches( $name, array $patterns ) {
		$name = strtolower( shmcache_pc_param_base( $name ) );
		foreach ( $patterns as $pattern ) {
			$pattern = strtolower( (string) $pattern );
			if ( '' === $pattern ) {
				continue;
			}
			if ( '*' === substr( $pattern, -1 ) ) {
				if ( 0 === strncmp( $name, $pattern, strlen( $pattern ) - 1 ) ) {
					return true;
				}
			} elseif ( $name === $pattern ) {
				return true;
			}
		}
		return false;
	}

	/**
	 * The query string as the key sees it: tracking parameters dropped, every name and value
	 * decoded and re-encoded the same way (RFC 3986), pairs sorted by name (the order of
	 * repeated names is kept). "b=2&a=1" and "a=1&b=2&utm_source=x" give "a=1&b=2".
	 */
	function shmcache_pc_normalize_query( $query, array $ignored ) {
		$kept = array();
		foreach ( shmcache_pc_parse_query( $query ) as $pair ) {
			if ( ! shmcache_pc_param_matches( $pair[0], $ignored ) ) {
				$kept[] = $pair;
			}
		}
		usort(
			$kept,
			static function ( $a, $b ) {
				return strcmp( $a[0], $b[0] );
			}
		); // stable since PHP 8.0: repeated names keep their order
		$parts = array();
		foreach ( $kept as $pair ) {
			$parts[] = rawurlencode( $pair[0] ) . '=' . rawurlencode( $pair[1] );
		}
		return implode( '&', $parts );
	}

	/** "Example.COM:80" over http → "example.com"; a port other than the scheme's is kept. */
	function shmcache_pc_normalize_host( $host, $scheme ) {
		$host = strtolower( trim( (string) $host ) );
		$host = rtrim( $host, '.' );
		if ( ( 'http' === $scheme && ':80' === substr( $host, -3 ) ) || ( 'https' === $scheme && ':443' === substr( $host, -4 ) ) ) {
			$host = substr( $host, 0, strrpos( $host, ':' ) );
		}
		return $host;
	}

	/**
	 * The cache key of scheme + host + path + query (pure). The path is taken as sent; a very
	 * long key is replaced by its hash.
	 */
	function shmcache_pc_key( $scheme, $host, $path, $query, array $config ) {
		$scheme = 'https' === strtolower( (string) $scheme ) ? 'https' : 'http';
		$path   = '' === (string) $path ? '/' : (string) $path;
		$q      = shmcache_pc_normalize_query( (string) $query, $config['ignored_params'] );
		$key    = $scheme . '://' . shmcache_pc_normalize_host( $host, $scheme ) . $path . ( '' === $q ? '' : '?' . $q );
		return strlen( $key ) > 1024 ? 'sha256:' . hash( 'sha256', $key ) : $key;
	}

	/** Scheme of a request the way is_ssl() sees it. */
	function shmcache_pc_request_scheme( array $server ) {
		if ( isset( $server['HTTPS'] ) && ( 'on' === strtolower( (string) $server['HTTPS'] ) || '1' === (string) $server['HTTPS'] ) ) {
			return 'https';
		}
		return isset( $server['SERVER_PORT'] ) && '443' === (string) $server['SERVER_PORT'] ? 'https' : 'http';
	}

	/** [path, query] of REQUEST_URI (absolute-form URIs included; the fragment dropped). */
	function shmcache_pc_split_uri( $uri ) {
		$uri = (string) $uri;
		if ( preg_match( '~^[a-z][a-z0-9+.-]*://[^/?#]*(.*)$~i', $uri, $m ) ) {
			$uri = $m[1];
		}
		$hash = strpos( $uri, '#' );
		if ( false !== $hash ) {
			$uri = substr( $uri, 0, $hash );
		}
		$q = strpos( $uri, '?' );
		if ( false === $q ) {
			return array( '' === $uri ? '/' : $uri, '' );
		}
		$path = substr( $uri, 0, $q );
		return array( '' === $path ? '/' : $path, (string) substr( $uri, $q + 1 ) );
	}

	/**
	 * The device class of a request as WordPress's wp_is_mobile() decides it (pure): 'mobile'
	 * when the User-Agent names a phone or tablet browser, else 'desktop'. WordPress 6.4 and
	 * later let the client hint Sec-CH-UA-Mobile decide when it is sent ($client_hint).
	 */
	function shmcache_pc_device_class( array $server, $client_hint = false ) {
		if ( $client_hint && isset( $server['HTTP_SEC_CH_UA_MOBILE'] ) ) {
			return '?1' === trim( (string) $server['HTTP_SEC_CH_UA_MOBILE'] ) ? 'mobile' : 'desktop';
		}
		$agent = isset( $server['HTTP_USER_AGENT'] ) ? (string) $server['HTTP_USER_AGENT'] : '';
		foreach ( array( 'Mobile', 'Android', 'Silk/', 'Kindle', 'BlackBerry', 'Opera Mini', 'Opera Mobi' ) as $token ) {
			if ( false !== strpos( $agent, $token ) ) {
				return 'mobile';
			}
		}
		return 'desktop';
	}

	/** The cache key of a request ($_SERVER); with 'mobile' on, it ends with the device class. */
	function shmcache_pc_request_key( array $server, array $config ) {
		$scheme = shmcache_pc_request_scheme( $server );
		$host   = isset( $server['HTTP_HOST'] ) && '' !== $server['HTTP_HOST'] ? $server['HTTP_HOST'] : ( isset( $server['SERVER_NAME'] ) ? $server['SERVER_NAME'] : '' );
		list( $path, $query ) = shmcache_pc_split_uri( isset( $server['REQUEST_URI'] ) ? $server['REQUEST_URI'] : '/' );
		$key = shmcache_pc_key( $scheme, $host, $path, $query, $config );
		return empty( $config['mobile'] ) ? $key : $key . ' ' . shmcache_pc_device_class( $server, ! empty( $config['mobile_client_hint'] ) );
	}

	/** The cache key of a URL (for purging one page). */
	function shmcache_pc_url_key( $url, array $config ) {
		$parts = parse_url( (string) $url );
		if ( ! is_array( $parts ) || empty( $parts['host'] ) ) {
			return '';
		}
		$scheme = isset( $parts['scheme'] ) ? strtolower( $parts['scheme'] ) : 'http';
		$host   = $parts['host'] . ( isset( $parts['port'] ) ? ':' . $parts['port'] : '' );
		return shmcache_pc_key( $scheme, $host, isset( $parts['path'] ) ? $parts['path'] : '/', isset( $parts['query'] ) ? $parts['query'] : '', $config );
	}

	/**
	 * The purge group of a page (pure): host + path without scheme, port of the scheme, query
	 * string, case, and without the suffixes that only page through the same content
	 * (/page/N/, /comment-page-N/, /N/ of a post split into pages, /feed/ and its types,
	 * /embed/, /amp/). Purging a group purges every page in it: "/category/news/" covers its
	 * pagination, its feed and every query string of them. Sitemaps form one group.
	 */
	function shmcache_pc_path_group( $host, $path ) {
		$host = strtolower( rtrim( trim( (string) $host ), '.' ) );
		$host = preg_replace( '/:(80|443)$/', '', $host );
		$path = strtolower( '' === (string) $path ? '/' : (string) $path );
		if ( preg_match( '#^/[^?]*sitemap[^/]*\.(xml|xsl)$#', $path ) ) {
			return $host . '/#sitemaps';
		}
		$path = rtrim( $path, '/' );
		do {
			$before = $path;
			$path   = preg_replace( '#/(page/\d+|comment-page-\d+|feed(/(rss|rss2|atom|rdf))?|embed|amp|trackback)$#', '', $path );
			// A post split into pages (/slug/2); not a date archive (/2024/05).
			$path = preg_replace( '#^(.*/[^/]*[^0-9/][^/]*)/\d+$#', '$1', $path );
		} while ( $path !== $before );
		$group = $host . $path . '/';
		return strlen( $group ) > 512 ? 'md5:' . md5( $group ) : $group;
	}

	/** The purge group of a request ($_SERVER). */
	function shmcache_pc_request_group( array $server ) {
		$host = isset( $server['HTTP_HOST'] ) && '' !== $server['HTTP_HOST'] ? $server['HTTP_HOST'] : ( isset( $server['SERVER_NAME'] ) ? $server['SERVER_NAME'] : '' );
		list( $path ) = shmcache_pc_split_uri( isset( $server['REQUEST_URI'] ) ? $server['REQUEST_URI'] : '/' );
		return shmcache_pc_path_group( $host, $path );
	}

	/** The purge group of a URL, or '' when it has no host. */
	function shmcache_pc_url_group( $url ) {
		$parts = parse_url( (string) $url );
		if ( ! is_array( $parts ) || empty( $parts['host'] ) ) {
			return '';
		}
		$host = $parts['host'] . ( isset( $parts['port'] ) ? ':' . $parts['port'] : '' );
		return shmcache_pc_path_group( $host, isset( $parts['path'] ) ? $parts['path'] : '/' );
	}

	/**
	 * Why a request must not be answered from (or stored in) the cache, or null when it may be
	 * (pure: everything comes from the parameters).
	 *
	 * @param array $server  $_SERVER.
	 * @param array $cookies $_COOKIE.
	 * @param array $config  shmcache_pc_config().
	 * @return string|null
	 */
	function shmcache_pc_request_bypass_reason( array $server, array $cookies, array $config ) {
		$method = isset( $server['REQUEST_METHOD'] ) ? strtoupper( (string) $server['REQUEST_METHOD'] ) : 'GET';
		if ( 'GET' !== $method && 'HEAD' !== $method ) {
			return 'method ' . $method;
		}
		$script = '';
		foreach ( array( 'SCRIPT_FILENAME', 'SCRIPT_NAME' ) as $k ) {
			if ( isset( $server[ $k ] ) && '' !== (string) $server[ $k ] ) {
				$script = basename( (string) $server[ $k ] );
				break;
			}
		}
		if ( '' !== $script && 'index.php' !== $script ) {
			return 'script ' . $script;
		}
		list( $path, $query ) = shmcache_pc_split_uri( isset( $server['REQUEST_URI'] ) ? $server['REQUEST_URI'] : '/' );
		foreach ( $config['bypass_paths'] as $fragment ) {
			if ( '' !== (string) $fragment && false !== stripos( $path, (string) $fragment ) ) {
				return 'path ' . $fragment;
			}
		}
		foreach ( array( 'HTTP_AUTHORIZATION', 'REDIRECT_HTTP_AUTHORIZATION', 'PHP_AUTH_USER', 'PHP_AUTH_DIGEST' ) as $k ) {
			if ( isset( $server[ $k ] ) && '' !== (string) $server[ $k ] ) {
				return 'authorization';
			}
		}
		$reason = shmcache_pc_cookie_bypass_reason( $cookies, $config );
		if ( null !== $reason ) {
			return $reason;
		}
		$bypass = $config['bypass_params'];
		if ( empty( $config['cache_search'] ) ) {
			$bypass[] = 's';
		}
		foreach ( shmcache_pc_parse_query( $query ) as $pair ) {
			if ( shmcache_pc_param_matches( $pair[0], $bypass ) ) {
				return 'parameter ' . shmcache_pc_param_base( $pair[0] );
			}
		}
		return null;
	}

	// --------------------------------------------------------------------------- responses

	/**
	 * headers_list() lines as [lower-case name, name, value].
	 *
	 * @return array<int, array{0:string, 1:string, 2:string}>
	 */
	function shmcache_pc_parse_headers( array $lines ) {
		$out = array();
		foreach ( $lines as $line ) {
			$colon = strpos( (string) $line, ':' );
			if ( false === $colon ) {
				continue;
			}
			$name  = trim( substr( $line, 0, $colon ) );
			$out[] = array( strtolower( $name ), $name, trim( substr( $line, $colon + 1 ) ) );
		}
		return $out;
	}

	/**
	 * Why a finished response must not be stored, or null when it may be (pure).
	 *
	 * @param int   $status  http_response_code().
	 * @param array $headers headers_list().
	 * @param array $ctx     method, body_length, and flags: donotcachepage, rendered (WordPress got
	 *                       as far as template_redirect), discarded (the buffer was thrown away),
	 *                       logged_in, admin, rest, preview, customize, search, body_nonce (a
	 *                       <meta> Content-Security-Policy with a nonce), body_gzip (the body
	 *                       starts like gzip data).
	 * @param array $config  shmcache_pc_config().
	 * @return string|null
	 */
	function shmcache_pc_response_uncacheable_reason( $status, array $headers, array $ctx, array $config ) {
		if ( 200 !== (int) $status ) {
			return 'status ' . (int) $status;
		}
		$method = isset( $ctx['method'] ) ? strtoupper( (string) $ctx['method'] ) : 'GET';
		if ( 'GET' !== $method ) {
			return 'method ' . $method;
		}
		$flags = array(
			'discarded'      => 'output discarded',
			'donotcachepage' => 'DONOTCACHEPAGE',
			'logged_in'      => 'logged in',
			'admin'          => 'admin',
			'rest'           => 'REST request',
			'preview'        => 'preview',
			'customize'      => 'customizer preview',
		);
		foreach ( $flags as $flag => $reason ) {
			if ( ! empty( $ctx[ $flag ] ) ) {
				return $reason;
			}
		}
		if ( empty( $ctx['rendered'] ) ) {
			return 'not a front-end page';
		}
		if ( ! empty( $ctx['search'] ) && empty( $config['cache_search'] ) ) {
			return 'search results';
		}
		$length = isset( $ctx['body_length'] ) ? (int) $ctx['body_length'] : 0;
		if ( $length <= 0 ) {
			return 'empty body';
		}
		if ( $length > $config['max_bytes'] ) {
			return 'body larger than ' . $config['max_bytes'] . ' bytes';
		}
		if ( ! empty( $ctx['body_nonce'] ) && empty( $config['cache_nonces'] ) ) {
			return 'nonce in a <meta> Content-Security-Policy';
		}
		$encoding = '';
		foreach ( shmcache_pc_parse_headers( $headers ) as $h ) {
			list( $name, , $value ) = $h;
			if ( 'set-cookie' === $name ) {
				return 'sets a cookie';
			}
			if ( empty( $config['cache_nonces'] ) && shmcache_pc_header_has_nonce( $name, $value ) ) {
				return 'nonce in ' . $h[1];
			}
			if ( 'content-encoding' === $name ) {
				$encoding = shmcache_pc_content_encoding( array( $h[1] . ': ' . $value ) );
			}
			if ( 'cache-control' === $name && preg_match( '/(^|[\s,])(private|no-store|no-cache)\b/i', $value, $m ) ) {
				return 'Cache-Control: ' . strtolower( $m[2] );
			}
			if ( 'pragma' === $name && false !== stripos( $value, 'no-cache' ) ) {
				return 'Pragma: no-cache';
			}
			if ( 'vary' === $name ) {
				foreach ( explode( ',', $value ) as $token ) {
					$token = strtolower( trim( $token ) );
					if ( '' !== $token && 'accept-encoding' !== $token ) {
						return 'Vary: ' . $token;
					}
				}
			}
		}
		if ( '' === $encoding && ! empty( $ctx['body_gzip'] ) ) {
			// Compressed by something that did not say so: replayed, it would be garbage.
			return 'compressed body without Content-Encoding';
		}
		return null;
	}

	/**
	 * Whether a response header carries a nonce (pure): its name says so (X-WP-Nonce, ...), or
	 * its value has a CSP source 'nonce-...' or a nonce= parameter (Link preloads).
	 */
	function shmcache_pc_header_has_nonce( $lower_name, $value ) {
		return false !== strpos( (string) $lower_name, 'nonce' ) || 1 === preg_match( '/nonce[-=]/i', (string) $value );
	}

	/** Whether a page declares a Content-Security-Policy with a nonce in a <meta> tag (pure). */
	function shmcache_pc_body_has_csp_nonce( $body ) {
		if ( false === stripos( (string) $body, 'content-security-policy' ) ) {
			return false;
		}
		return 1 === preg_match( '/<meta\b[^>]*content-security-policy[^>]*nonce-/i', (string) $body );
	}

	/**
	 * The Content-Encoding of a response (lower case), or '' when its body is not encoded.
	 *
	 * @param string[] $headers headers_list() lines.
	 */
	function shmcache_pc_content_encoding( array $headers ) {
		$encoding = '';
		foreach ( shmcache_pc_parse_headers( $headers ) as $h ) {
			if ( 'content-encoding' === $h[0] ) {
				$encoding = strtolower( trim( $h[2] ) );
			}
		}
		return 'identity' === $encoding ? '' : $encoding;
	}

	/**
	 * Whether a client's Accept-Encoding allows a content coding (pure, RFC 9110 12.5.3):
	 * listed (x-gzip stands for gzip) or covered by "*", with a q-value above 0.
	 */
	function shmcache_pc_accepts_encoding( $accept, $encoding ) {
		$encoding = strtolower( (string) $encoding );
		if ( '' === $encoding || 'identity' === $encoding ) {
			return true;
		}
		$named    = null;
		$wildcard = null;
		foreach ( explode( ',', strtolower( (string) $accept ) ) as $item ) {
			$parts = explode( ';', $item );
			$token = trim( $parts[0] );
			if ( 'x-gzip' === $token ) {
				$token = 'gzip';
			}
			$q = 1.0;
			foreach ( array_slice( $parts, 1 ) as $param ) {
				if ( preg_match( '/^\s*q\s*=\s*([0-9.]+)\s*$/', $param, $m ) ) {
					$q = (float) $m[1];
				}
			}
			if ( $token === ( 'x-gzip' === $encoding ? 'gzip' : $encoding ) ) {
				$named = $q > 0;
			} elseif ( '*' === $token ) {
				$wildcard = $q > 0;
			}
		}
		return null !== $named ? $named : true === $wildcard;
	}

	/** Headers never stored or replayed, whatever the configuration says. */
	function shmcache_pc_never_replayed() {
		// Content-Encoding is kept with the entry's body instead (shmcache_pc_make_entry()).
		return array( 'set-cookie', 'content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive', 'date', 'server', 'status', 'age', 'x-cache', 'x-cache-stale', 'x-cache-reason', 'x-powered-by', 'etag', 'last-modified' );
	}

	/**
	 * The header lines of a response that a cached copy replays (pure): the configured names,
	 * never Set-Cookie, per-connection headers or ETag / Last-Modified (kept apart, see
	 * shmcache_pc_validators()).
	 *
	 * @return string[] "Name: value" lines in their order
	 */
	function shmcache_pc_replay_headers( array $headers, array $config ) {
		$allow = array_flip( array_map( 'strtolower', $config['replay_headers'] ) );
		$deny  = array_flip( shmcache_pc_never_replayed() );
		$out   = array();
		foreach ( shmcache_pc_parse_headers( $headers ) as $h ) {
			if ( isset( $allow[ $h[0] ] ) && ! isset( $deny[ $h[0] ] ) ) {
				$out[] = $h[1] . ': ' . $h[2];
			}
		}
		return $out;
	}

	/**
	 * ETag and Last-Modified of a cacheable response: its own when it sends them (feeds do),
	 * else a hash of the body and the time it was generated.
	 *
	 * @return array{0:string, 1:int} [etag, last-modified unix time]
	 */
	function shmcache_pc_validators( array $headers, $body, $generated ) {
		$etag = '';
		$lm   = 0;
		foreach ( shmcache_pc_parse_headers( $headers ) as $h ) {
			if ( 'etag' === $h[0] && '' !== $h[2] ) {
				$etag = $h[2];
			} elseif ( 'last-modified' === $h[0] ) {
				$t  = strtotime( $h[2] );
				$lm = false === $t ? 0 : $t;
			}
		}
		if ( '' === $etag ) {
			$etag = '"' . hash( 'xxh128', (string) $body ) . '"';
		}
		if ( $lm <= 0 ) {
			$lm = (int) $generated;
		}
		return array( $etag, $lm );
	}

	/** An HTTP date. */
	function shmcache_pc_http_date( $time ) {
		return gmdate( 'D, d M Y H:i:s', (int) $time ) . ' GMT';
	}

	/**
	 * Whether a conditional request may be answered 304 (pure). If-None-Match wins over
	 * If-Modified-Since (RFC 9110 13.2.2); ETags compare weakly.
	 */
	function shmcache_pc_not_modified( array $server, $etag, $last_modified ) {
		if ( isset( $server['HTTP_IF_NONE_MATCH'] ) && '' !== trim( (string) $server['HTTP_IF_NONE_MATCH'] ) ) {
			$want = trim( (string) $server['HTTP_IF_NONE_MATCH'] );
			if ( '*' === $want ) {
				return '' !== (string) $etag;
			}
			$strip = static function ( $tag ) {
				$tag = trim( $tag );
				return 0 === strncasecmp( $tag, 'W/', 2 ) ? substr( $tag, 2 ) : $tag;
			};
			$mine = $strip( (string) $etag );
			foreach ( explode( ',', $want ) as $tag ) {
				if ( '' !== $mine && $strip( $tag ) === $mine ) {
					return true;
				}
			}
			return false;
		}
		if ( isset( $server['HTTP_IF_MODIFIED_SINCE'] ) && (int) $last_modified > 0 ) {
			$since = strtotime( (string) $server['HTTP_IF_MODIFIED_SINCE'] );
			return false !== $since && (int) $last_modified <= $since;
		}
		return false;
	}

	/**
	 * State of a stored entry (pure): 'fresh', 'stale' (past its TTL, or written before the
	 * last purge: another site version) or 'invalid' (not an entry of this format).
	 */
	function shmcache_pc_entry_state( $entry, $now, $version, $path_version = null ) {
		if ( ! shmcache_pc_entry_valid( $entry ) ) {
			return 'invalid';
		}
		if ( $entry['g'] !== $version || (int) $now >= (int) $entry['x'] || ( null !== $path_version && $entry['p'] !== $path_version ) ) {
			return 'stale';
		}
		return 'fresh';
	}

	/** Whether a value read from the page namespace is an entry of this format (pure). */
	function shmcache_pc_entry_valid( $entry ) {
		return is_array( $entry ) && isset( $entry['f'], $entry['s'], $entry['h'], $entry['b'], $entry['t'], $entry['x'], $entry['g'], $entry['e'], $entry['m'], $entry['c'], $entry['o'], $entry['p'] )
			&& SHMCACHE_PAGE_CACHE_ENTRY_FORMAT === $entry['f'] && is_string( $entry['b'] ) && is_array( $entry['h'] );
	}

	// --------------------------------------------------------------------------- purge mapping

	/** Post types whose changes never show on the front end. */
	function shmcache_pc_ignored_post_types() {
		return array( 'revision', 'customize_changeset', 'oembed_cache', 'user_request', 'wp_font_face', 'scheduled-action' );
	}

	/** Post types that are not viewable themselves but change what pages show. */
	function shmcache_pc_output_post_types() {
		return array( 'attachment', 'nav_menu_item', 'wp_block', 'wp_template', 'wp_template_part', 'wp_global_styles', 'wp_navigation', 'custom_css' );
	}

	/**
	 * What a post change does to the page cache (pure):
	 *   'post'  a visible post of a viewable type was edited and stays visible: purge its own
	 *           pages and its archives (shmcache_page_cache_post_urls());
	 *   'flush' it appears or disappears (published, unpublished, trashed, deleted), or it is a
	 *           type that shows on many pages (menu items, templates, attachments, ...): purge
	 *           the whole site, whose lists, widgets and neighbours' links change;
	 *   'none'  it was never visible to visitors (drafts, autosaves, revisions, private posts).
	 *
	 * @param string $post_type
	 * @param string $old_status Status before the change ('new' for a new post).
	 * @param string $new_status Status after it ('deleted' for a deleted post: pass its last status as old).
	 * @param bool   $viewable   is_post_type_viewable().
	 */
	function shmcache_pc_post_change_action( $post_type, $old_status, $new_status, $viewable ) {
		if ( in_array( $post_type, shmcache_pc_ignored_post_types(), true ) ) {
			return 'none';
		}
		if ( ! $viewable && ! in_array( $post_type, shmcache_pc_output_post_types(), true ) ) {
			return 'none';
		}
		$visible = array( 'publish' );
		if ( 'attachment' === $post_type ) {
			$visible[] = 'inherit';
		}
		$was = in_array( $old_status, $visible, true );
		$is  = in_array( $new_status, $visible, true );
		if ( ! $was && ! $is ) {
			return 'none';
		}
		return $was && $is && $viewable && ! in_array( $post_type, shmcache_pc_output_post_types(), true ) ? 'post' : 'flush';
	}

	/** A comment status as 'approved', 'unapproved', 'spam', 'trash' or 'deleted'. */
	function shmcache_pc_comment_status( $status ) {
		$status = strtolower( (string) $status );
		$map    = array(
			'1'            => 'approved',
			'approve'      => 'approved',
			'approved'     => 'approved',
			'0'            => 'unapproved',
			'hold'         => 'unapproved',
			'unapproved'   => 'unapproved',
			'spam'         => 'spam',
			'trash'        => 'trash',
			'post-trashed' => 'trash',
			'delete'       => 'deleted',
			'deleted'      => 'deleted',
		);
		return isset( $map[ $status ] ) ? $map[ $status ] : $status;
	}

	/**
	 * What a comment change does (pure): 'post' when the comment was or is approved (it shows on
	 * its post, in the comment feeds and in the comment counts of its archives), else 'none'
	 * (moderation queue, spam).
	 */
	function shmcache_pc_comment_change_action( $old_status, $new_status ) {
		return 'approved' === shmcache_pc_comment_status( $old_status ) || 'approved' === shmcache_pc_comment_status( $new_status ) ? 'post' : 'none';
	}

	/**
	 * What an option change does (pure): 'flush' for options in the flush list (exact names or
	 * "prefix*"), 'none' for the rest (transients and cron never).
	 */
	function shmcache_pc_option_change_action( $option, array $config ) {
		$option = (string) $option;
		if ( 0 === strpos( $option, '_transient_' ) || 0 === strpos( $option, '_site_transient_' ) || 'cron' === $option ) {
			return 'none';
		}
		foreach ( $config['flush_options'] as $pattern ) {
			$pattern = (string) $pattern;
			if ( '' === $pattern ) {
				continue;
			}
			if ( '*' === substr( $pattern, -1 ) ? 0 === strncmp( $option, $pattern, strlen( $pattern ) - 1 ) : $option === $pattern ) {
				return 'flush';
			}
		}
		return 'none';
	}

	/**
	 * What a post meta change does (pure): public meta and the protected keys that change output
	 * (featured image, page template, image alt text) of a visible post purge like an edit of
	 * the post; editing locks and other bookkeeping do not. Neither does a change made while a
	 * visitor's page is rendered ($during_view): that is a side effect of viewing (a view counter,
	 * a "last seen" stamp), and purging on it would purge on every view.
	 */
	function shmcache_pc_meta_change_action( $meta_key, $post_type, $post_status, $viewable, $during_view = false ) {
		$meta_key = (string) $meta_key;
		$output   = array( '_thumbnail_id', '_wp_page_template', '_wp_attachment_image_alt' );
		if ( $during_view || '' === $meta_key || ( '_' === $meta_key[0] && ! in_array( $meta_key, $output, true ) ) ) {
			return 'none';
		}
		return shmcache_pc_post_change_action( $post_type, $post_status, $post_status, $viewable );
	}

	/**
	 * Whether this request is a visitor's page being rendered (pure): a GET or HEAD of the
	 * front end, not the admin, AJAX, cron, REST, XML-RPC or the CLI.
	 *
	 * @param array $flags sapi, method, admin, ajax, cron, rest, xmlrpc.
	 */
	function shmcache_pc_is_front_end_view( array $flags ) {
		if ( isset( $flags['sapi'] ) && in_array( $flags['sapi'], array( 'cli', 'phpdbg' ), true ) ) {
			return false;
		}
		$method = isset( $flags['method'] ) ? strtoupper( (string) $flags['method'] ) : '';
		if ( 'GET' !== $method && 'HEAD' !== $method ) {
			return false;
		}
		foreach ( array( 'admin', 'ajax', 'cron', 'rest', 'xmlrpc' ) as $flag ) {
			if ( ! empty( $flags[ $flag ] ) ) {
				return false;
			}
		}
		return true;
	}

	/** What a term change does (pure): viewable taxonomies and menus flush. */
	function shmcache_pc_term_change_action( $taxonomy, $viewable ) {
		return $viewable || in_array( $taxonomy, array( 'nav_menu', 'wp_theme', 'wp_template_part_area', 'link_category' ), true ) ? 'flush' : 'none';
	}

	/** What a user change does (pure): authors with published posts show on pages. */
	function shmcache_pc_user_change_action( $published_posts ) {
		return (int) $published_posts > 0 ? 'flush' : 'none';
	}

	// --------------------------------------------------------------------------- shared memory

	/**
	 * The salt of this installation, as the object-cache drop-in derives it
	 * (WP_Object_Cache::site_salt()): WP_CACHE_KEY_SALT, else a hash of the database and path.
	 *
	 * @param string|null $table_prefix Remembered when given (the drop-in runs before WordPress
	 *                                  copies $table_prefix into $GLOBALS).
	 */
	function shmcache_pc_site_salt( $table_prefix = null ) {
		static $prefix = null;
		if ( null !== $table_prefix ) {
			$prefix = (string) $table_prefix;
		}
		if ( defined( 'WP_CACHE_KEY_SALT' ) && '' !== (string) WP_CACHE_KEY_SALT ) {
			return (string) WP_CACHE_KEY_SALT;
		}
		$p = null !== $prefix ? $prefix : ( isset( $GLOBALS['table_prefix'] ) ? (string) $GLOBALS['table_prefix'] : '' );
		return 'wp-' . substr(
			md5(
				implode(
					'|',
					array(
						defined( 'DB_HOST' ) ? DB_HOST : '',
						defined( 'DB_NAME' ) ? DB_NAME : '',
						$p,
						defined( 'ABSPATH' ) ? ABSPATH : '',
					)
				)
			),
			0,
			12
		);
	}

	/** Namespace of the pages. */
	function shmcache_pc_page_namespace() {
		return shmcache_pc_site_salt() . '|page';
	}

	/** Namespace of the site version, leases of relays, counters (survives page flushes). */
	function shmcache_pc_control_namespace() {
		return shmcache_pc_site_salt() . '|page-ctl';
	}

	/** @return ShmCache|null */
	function shmcache_pc_pages() {
		static $ns = array();
		if ( ! class_exists( 'ShmCache', false ) ) {
			return null;
		}
		$name = shmcache_pc_page_namespace();
		if ( ! isset( $ns[ $name ] ) ) {
			$ns[ $name ] = new ShmCache( $name );
		}
		return $ns[ $name ];
	}

	/** @return ShmCache|null */
	function shmcache_pc_control() {
		static $ns = array();
		if ( ! class_exists( 'ShmCache', false ) ) {
			return null;
		}
		$name = shmcache_pc_control_namespace();
		if ( ! isset( $ns[ $name ] ) ) {
			$ns[ $name ] = new ShmCache( $name );
		}
		return $ns[ $name ];
	}

	/**
	 * Why the page cache cannot work in this process, or '' when it can. Cheap (no
	 * shmcache_info(), which scans the key index): a namespace generation is 0 without a region.
	 */
	function shmcache_pc_unavailable_reason() {
		if ( shmcache_pc_config()['disable'] ) {
			return 'SHMCACHE_PAGE_CACHE_DISABLE is set';
		}
		if ( ! class_exists( 'ShmCache', false ) ) {
			return 'the shmcache extension is not loaded';
		}
		$ctl = shmcache_pc_control();
		if ( ! method_exists( $ctl, 'generation' ) || $ctl->generation() <= 0 ) {
			return 'the shmcache extension has no shared memory in this SAPI (' . PHP_SAPI . ')';
		}
		return '';
	}

	function shmcache_pc_available() {
		return '' === shmcache_pc_unavailable_reason();
	}

	/**
	 * The site (blog) pages belong to: 1 on a single site; on multisite the current blog, known
	 * only once WordPress has loaded the network (null before).
	 */
	function shmcache_pc_current_scope() {
		if ( ! defined( 'MULTISITE' ) || ! MULTISITE ) {
			return 1;
		}
		return function_exists( 'get_current_blog_id' ) && function_exists( 'did_action' ) && did_action( 'ms_loaded' ) ? (int) get_current_blog_id() : null;
	}

	/** Reads an integer version from the control namespace, starting it at random when missing. */
	function shmcache_pc_read_version( $name ) {
		$ctl = shmcache_pc_control();
		if ( null === $ctl ) {
			return null;
		}
		$v = $ctl->get( $name, $found );
		if ( $found && is_int( $v ) ) {
			return $v;
		}
		// Missing (first use, or evicted): a random start, so that no older entry matches it.
		$ctl->add( $name, random_int( 1, 1 << 40 ) );
		$v = $ctl->get( $name, $found );
		return $found && is_int( $v ) ? $v : null;
	}

	/** Adds one to a version of the control namespace (a random start when it is missing). */
	function shmcache_pc_bump_version( $name ) {
		$ctl = shmcache_pc_control();
		if ( false === $ctl->incr( $name ) && ! $ctl->add( $name, random_int( 1, 1 << 40 ) ) ) {
			$ctl->incr( $name );
		}
	}

	/**
	 * The version of a site (blog): every whole-site purge changes it, and an entry written under
	 * another version is stale. Null when it cannot be read (then nothing is served or stored).
	 *
	 * @param int|null $scope Blog id; null = the current one.
	 */
	function shmcache_pc_site_version( $scope = null ) {
		$scope = null === $scope ? shmcache_pc_current_scope() : $scope;
		return null === $scope ? null : shmcache_pc_read_version( 'version|' . (int) $scope );
	}

	/** The version of a purge group (shmcache_pc_path_group()): a targeted purge changes it. */
	function shmcache_pc_path_version( $group ) {
		return shmcache_pc_read_version( 'path|' . $group );
	}

	/** Adds one to a counter of the page cache (when statistics are on). */
	function shmcache_pc_count( $name, $step = 1 ) {
		if ( ! shmcache_pc_config()['stats'] ) {
			return;
		}
		$ctl = shmcache_pc_control();
		if ( null === $ctl ) {
			return;
		}
		$key = 'n|' . $name;
		if ( false === $ctl->incr( $key, $step ) ) {
			if ( $ctl->add( $key, $step ) ) {
				$ctl->add( 'since', time() ); // the first count since a reset (or eviction)
			} else {
				$ctl->incr( $key, $step );
			}
		}
	}

	/**
	 * The page cache's counters since they were last reset.
	 *
	 * @return array{hit:int, stale:int, miss:int, bypass:int, store:int, skip:int, not_modified:int, purge:int, hit_rate:float, since:int, last_purge:array|null, version:int|null}
	 */
	function shmcache_page_cache_stats() {
		$out = array( 'hit' => 0, 'stale' => 0, 'miss' => 0, 'bypass' => 0, 'store' => 0, 'skip' => 0, 'not_modified' => 0, 'purge' => 0 );
		$ctl = shmcache_pc_available() ? shmcache_pc_control() : null;
		if ( null !== $ctl ) {
			foreach ( array_keys( $out ) as $name ) {
				$v            = $ctl->get( 'n|' . $name, $found );
				$out[ $name ] = $found ? (int) $v : 0;
			}
		}
		$served          = $out['hit'] + $out['stale'];
		$lookups         = $served + $out['miss'];
		$out['hit_rate'] = $lookups > 0 ? $served / $lookups : 0.0;
		$since           = null !== $ctl ? $ctl->get( 'since', $found ) : 0;
		$out['since']    = null !== $ctl && $found ? (int) $since : 0;
		$last            = null !== $ctl ? $ctl->get( 'last_purge', $found ) : null;
		$out['last_purge'] = null !== $ctl && $found && is_array( $last ) ? $last : null;
		$out['version']  = null !== $ctl ? shmcache_pc_site_version() : null;
		$out['scope']    = shmcache_pc_current_scope();
		return $out;
	}

	/** Sets the counters back to zero. */
	function shmcache_page_cache_reset_stats() {
		$ctl = shmcache_pc_available() ? shmcache_pc_control() : null;
		if ( null === $ctl ) {
			return false;
		}
		foreach ( array( 'hit', 'stale', 'miss', 'bypass', 'store', 'skip', 'not_modified', 'purge' ) as $name ) {
			$ctl->delete( 'n|' . $name );
		}
		$ctl->set( 'since', time() );
		return true;
	}

	/**
	 * Purges every page of one site in O(1). Soft (default): the site version changes, so every
	 * entry of the site is stale and its next visit regenerates it (concurrent visitors get the
	 * old copy meanwhile). Hard: the page namespace is flushed as well, on a single site only
	 * (on multisite the namespace holds every site's pages, and a purge stays within its site).
	 *
	 * @param string    $reason Shown on the admin screen.
	 * @param bool|null $hard   Null = the soft_purge setting.
	 * @param int|null  $scope  Blog id; null = the current one.
	 */
	function shmcache_page_cache_purge_all( $reason = '', $hard = null, $scope = null ) {
		if ( ! shmcache_pc_available() ) {
			return false;
		}
		$scope = null === $scope ? shmcache_pc_current_scope() : (int) $scope;
		$hard  = null === $hard ? ! shmcache_pc_config()['soft_purge'] : (bool) $hard;
		$multi = defined( 'MULTISITE' ) && MULTISITE;
		if ( $hard && ! $multi ) {
			shmcache_pc_pages()->flush();
		}
		shmcache_pc_bump_version( 'version|' . (int) ( null === $scope ? 1 : $scope ) );
		shmcache_pc_count( 'purge' );
		shmcache_pc_control()->set( 'last_purge', array( 'time' => time(), 'reason' => substr( (string) $reason, 0, 300 ), 'hard' => $hard && ! $multi, 'sapi' => PHP_SAPI, 'pages' => 'all' ) );
		return true;
	}

	/**
	 * Purges the pages of some groups (shmcache_pc_path_group()): each group's version changes,
	 * so its pages are stale, with every query string, in both schemes, while the rest of the
	 * site stays cached. Race-safe like the whole-site purge: a page being generated meanwhile
	 * is stored under the version read at its start, so it is stale at once.
	 *
	 * @param string[] $groups
	 */
	function shmcache_page_cache_purge_groups( array $groups, $reason = '' ) {
		if ( ! shmcache_pc_available() ) {
			return false;
		}
		$groups = array_values( array_unique( array_filter( array_map( 'strval', $groups ) ) ) );
		foreach ( $groups as $group ) {
			shmcache_pc_bump_version( 'path|' . $group );
		}
		shmcache_pc_count( 'purge' );
		shmcache_pc_control()->set( 'last_purge', array( 'time' => time(), 'reason' => substr( (string) $reason, 0, 300 ), 'hard' => false, 'sapi' => PHP_SAPI, 'pages' => count( $groups ) . ' groups' ) );
		return true;
	}

	/**
	 * Purges the pages of some URLs: each URL's group (its pagination, feeds and query strings
	 * included, http and https).
	 *
	 * @param string[] $urls
	 */
	function shmcache_page_cache_purge_urls( array $urls, $reason = '' ) {
		return shmcache_page_cache_purge_groups( array_map( 'shmcache_pc_url_group', $urls ), $reason );
	}

	/** Purges the pages of one URL (see shmcache_page_cache_purge_urls()). */
	function shmcache_page_cache_purge_url( $url ) {
		return shmcache_page_cache_purge_urls( array( (string) $url ), 'URL ' . $url );
	}

	/**
	 * Looks a key up and decides what to do (stampede protection):
	 *   'hit'        fresh entry: serve it;
	 *   'stale'      stale entry, another request is regenerating it (or this is a HEAD): serve it;
	 *   'regenerate' stale entry and this GET won the lease (atomic add): generate and store;
	 *   'miss'       nothing usable: generate (and store when cacheable).
	 *
	 * @return array{0:string, 1:array|null}
	 */
	function shmcache_pc_lookup( $pages, $key, $now, $version, $is_get, $lease_ttl ) {
		$entry = $pages->get( $key, $found );
		$state = 'invalid';
		if ( $found && shmcache_pc_entry_valid( $entry ) ) {
			// $version: the site version, or a callable that gives [site version, path version]
			// for the entry (whose site is known only from the entry on multisite).
			list( $site_version, $path_version ) = is_callable( $version ) ? call_user_func( $version, $entry ) : array( $version, null );
			$state = null === $site_version ? 'invalid' : shmcache_pc_entry_state( $entry, $now, $site_version, $path_version );
		}
		if ( 'fresh' === $state ) {
			return array( 'hit', $entry );
		}
		if ( 'stale' === $state ) {
			if ( $is_get && $pages->add( 'lease|' . $key, getmypid(), (int) $lease_ttl ) ) {
				return array( 'regenerate', $entry );
			}
			return array( 'stale', $entry );
		}
		return array( 'miss', null );
	}

	/**
	 * A stored entry (pure).
	 *
	 * @return array
	 */
	function shmcache_pc_make_entry( $status, array $headers, $body, $generated, $version, array $config, $etag, $last_modified, $encoding = '', $scope = 1, $path_version = 0 ) {
		$encoding = strtolower( (string) $encoding );
		if ( '' !== $encoding ) {
			$varies = false;
			foreach ( shmcache_pc_parse_headers( $headers ) as $h ) {
				$varies = $varies || ( 'vary' === $h[0] && false !== stripos( $h[2], 'accept-encoding' ) );
			}
			if ( ! $varies ) {
				$headers[] = 'Vary: Accept-Encoding'; // shared caches downstream must keep both forms apart
			}
		}
		return array(
			'f' => SHMCACHE_PAGE_CACHE_ENTRY_FORMAT,
			's' => (int) $status,
			'h' => array_values( $headers ),
			'b' => (string) $body,
			't' => (int) $generated,
			'x' => (int) $generated + $config['ttl'],
			'g' => $version,
			'e' => (string) $etag,
			'm' => (int) $last_modified,
			'c' => $encoding,
			'o' => (int) $scope,
			'p' => $path_version,
		);
	}

	// --------------------------------------------------------------------------- serving

	/** Sends a stored page (or a 304) and ends the request. */
	function shmcache_pc_serve( array $entry, $stale, $now ) {
		$config = shmcache_pc_config();
		http_response_code( (int) $entry['s'] );
		foreach ( $entry['h'] as $line ) {
			header( $line, false );
		}
		header( 'ETag: ' . $entry['e'] );
		header( 'Last-Modified: ' . shmcache_pc_http_date( $entry['m'] ) );
		if ( '' !== $entry['c'] ) {
			header( 'Content-Encoding: ' . $entry['c'] );
		}
		header( 'X-Cache: HIT' );
		if ( $stale ) {
			header( 'X-Cache-Stale: 1' );
		}
		header( 'Age: ' . max( 0, (int) $now - (int) $entry['t'] ) );
		shmcache_pc_count( $stale ? 'stale' : 'hit' );
		if ( shmcache_pc_not_modified( $_SERVER, $entry['e'], $entry['m'] ) ) {
			shmcache_pc_count( 'not_modified' );
			http_response_code( 304 );
			header_remove( 'Content-Type' );
			header_remove( 'Content-Encoding' );
			exit;
		}
		header( 'Content-Length: ' . strlen( $entry['b'] ) );
		if ( 'HEAD' !== strtoupper( (string) $_SERVER['REQUEST_METHOD'] ) ) {
			echo $entry['b']; // phpcs:ignore WordPress.Security.EscapeOutput -- a page WordPress generated
		}
		exit;
	}

	/** Marks a request that the cache does not handle. */
	function shmcache_pc_bypass( $reason ) {
		if ( ! headers_sent() ) {
			header( 'X-Cache: BYPASS' );
			header( 'X-Cache-Reason: ' . preg_replace( '/[^\x20-\x7e]/', '?', (string) $reason ) );
		}
		shmcache_pc_count( 'bypass' );
	}

	/**
	 * The output buffer of a page being generated: collects the body and, when the response
	 * is finished, stores it if it is cacheable.
	 */
	final class Shmcache_Page_Cache_Capture {
		private $key;
		private $scope;
		private $version;
		private $path_version;
		private $generated;
		private $lease;
		private $body      = '';
		private $flushed   = false;
		private $discarded = false;
		private $done      = false;

		/**
		 * @param int|null $scope   Blog id; null on multisite until WordPress has found the site
		 *                          (then scope_known() reads the site version).
		 * @param int|null $version The site version read now, before anything is rendered.
		 */
		public function __construct( $key, $scope, $version, $path_version, $generated, $lease ) {
			$this->key          = $key;
			$this->scope        = $scope;
			$this->version      = $version;
			$this->path_version = $path_version;
			$this->generated    = (int) $generated;
			$this->lease        = (bool) $lease;
		}

		/** 'ms_loaded' (multisite): the site is known, before any of its content is read. */
		public function scope_known() {
			$this->scope   = shmcache_pc_current_scope();
			$this->version = null === $this->scope ? null : shmcache_pc_site_version( $this->scope );
		}

		/** ob_start() handler. */
		public function handle( $buffer, $phase ) {
			if ( $this->done ) {
				return $buffer;
			}
			if ( $phase & PHP_OUTPUT_HANDLER_CLEAN ) {
				// ob_clean(): what was collected is thrown away; ob_end_clean() / ob_get_clean():
				// someone else takes the page, so it cannot be stored.
				$this->body = '';
				if ( $phase & PHP_OUTPUT_HANDLER_FINAL ) {
					$this->discarded = true;
					$this->finish();
				}
				return '';
			}
			$this->body .= $buffer;
			if ( ! ( $phase & PHP_OUTPUT_HANDLER_FINAL ) ) {
				$this->flushed = true; // ob_flush(): the headers go out now
				return $buffer;
			}
			return $this->finish() ? '' : $buffer;
		}

		/** @return bool Whether the response became a 304 without body. */
		private function finish() {
			$this->done = true;
			$config     = shmcache_pc_config();
			$pages      = shmcache_pc_pages();
			$headers    = headers_list();
			$status     = (int) http_response_code();
			$reason     = shmcache_pc_response_uncacheable_reason( $status, $headers, $this->context(), $config );
			if ( null === $reason && ( null === $this->scope || null === $this->version ) ) {
				$reason = 'site version unreadable';
			}
			if ( null !== $reason ) {
				if ( ! headers_sent() ) {
					header( 'X-Cache-Reason: ' . preg_replace( '/[^\x20-\x7e]/', '?', $reason ) );
				}
				if ( $this->lease ) {
					// The stale copy must not outlive a page that is now an error, a redirect, ...
					$pages->delete( $this->key );
					$pages->delete( 'lease|' . $this->key );
				}
				shmcache_pc_count( 'skip' );
				return false;
			}
			list( $etag, $lm ) = shmcache_pc_validators( $headers, $this->body, $this->generated );
			if ( ! headers_sent() ) {
				header( 'ETag: ' . $etag );
				header( 'Last-Modified: ' . shmcache_pc_http_date( $lm ) );
				$has_cc = false;
				foreach ( shmcache_pc_parse_headers( $headers ) as $h ) {
					$has_cc = $has_cc || 'cache-control' === $h[0];
				}
				if ( ! $has_cc && '' !== $config['cache_control'] ) {
					header( 'Cache-Control: ' . $config['cache_control'] );
				}
				$headers = headers_list();
			}
			$entry = shmcache_pc_make_entry( 200, shmcache_pc_replay_headers( $headers, $config ), $this->body, $this->generated, $this->version, $config, $etag, $lm, shmcache_pc_content_encoding( $headers ), $this->scope, $this->path_version );
			if ( $pages->set( $this->key, $entry, $config['ttl'] + $config['grace'] ) ) {
				shmcache_pc_count( 'store' );
			}
			if ( $this->lease ) {
				$pages->delete( 'lease|' . $this->key );
			}
			if ( ! $this->flushed && ! headers_sent() && shmcache_pc_not_modified( $_SERVER, $etag, $lm ) ) {
				shmcache_pc_count( 'not_modified' );
				http_response_code( 304 );
				header_remove( 'Content-Type' );
				return true;
			}
			return false;
		}

		/** What the response rules need to know about this request, from WordPress's state. */
		private function context() {
			$q        = isset( $GLOBALS['wp_query'] ) && is_object( $GLOBALS['wp_query'] ) && method_exists( $GLOBALS['wp_query'], 'is_search' ) ? $GLOBALS['wp_query'] : null;
			$rendered = function_exists( 'did_action' ) && did_action( 'template_redirect' ) > 0 && null !== $q;
			return array(
				'method'         => isset( $_SERVER['REQUEST_METHOD'] ) ? (string) $_SERVER['REQUEST_METHOD'] : 'GET',
				'body_length'    => strlen( $this->body ),
				'discarded'      => $this->discarded,
				'rendered'       => $rendered,
				'donotcachepage' => defined( 'DONOTCACHEPAGE' ) && DONOTCACHEPAGE,
				'logged_in'      => $rendered && function_exists( 'is_user_logged_in' ) && is_user_logged_in(),
				'admin'          => function_exists( 'is_admin' ) && is_admin(),
				'rest'           => defined( 'REST_REQUEST' ) && REST_REQUEST,
				'preview'        => null !== $q && $q->is_preview(),
				'customize'      => function_exists( 'is_customize_preview' ) && $rendered && is_customize_preview(),
				'search'         => null !== $q && $q->is_search(),
				'body_nonce'     => shmcache_pc_body_has_csp_nonce( $this->body ),
				'body_gzip'      => "\x1f\x8b" === substr( $this->body, 0, 2 ),
			);
		}
	}

	// --------------------------------------------------------------------------- CLI relay

	/**
	 * The key relayed purges are signed with: the site's secret keys (wp-config.php), or ''
	 * when they are missing or the placeholders (then there is no relay).
	 */
	function shmcache_pc_relay_secret() {
		$parts = array();
		foreach ( array( 'AUTH_KEY', 'SECURE_AUTH_KEY', 'LOGGED_IN_KEY', 'NONCE_KEY', 'AUTH_SALT' ) as $name ) {
			if ( ! defined( $name ) || '' === (string) constant( $name ) || 'put your unique phrase here' === constant( $name ) ) {
				return '';
			}
			$parts[] = (string) constant( $name );
		}
		return hash( 'sha256', 'shmcache-page-cache-relay|' . shmcache_pc_site_salt() . '|' . implode( '|', $parts ) );
	}

	/**
	 * Checks a relayed purge (pure): the HMAC, the age (at most $max_age seconds either way)
	 * and the site. Returns the payload, or an error string.
	 *
	 * @return array|string
	 */
	function shmcache_pc_relay_check( $body, $signature, $secret, $now, $site, $max_age = 300 ) {
		if ( '' === (string) $secret ) {
			return 'no secret keys in wp-config.php';
		}
		if ( ! hash_equals( hash_hmac( 'sha256', (string) $body, (string) $secret ), (string) $signature ) ) {
			return 'bad signature';
		}
		$payload = json_decode( (string) $body, true );
		if ( ! is_array( $payload ) || ! isset( $payload['t'], $payload['n'], $payload['site'] ) ) {
			return 'bad payload';
		}
		if ( abs( (int) $now - (int) $payload['t'] ) > $max_age ) {
			return 'expired';
		}
		if ( (string) $payload['site'] !== (string) $site ) {
			return 'another site';
		}
		return $payload;
	}

	/** Answers a relay request with JSON and ends it. */
	function shmcache_pc_relay_respond( $code, array $data ) {
		http_response_code( $code );
		header( 'Content-Type: application/json' );
		header( 'Cache-Control: no-store' );
		header( 'X-Cache: BYPASS' );
		echo json_encode( $data ), "\n";
		exit;
	}

	/** Handles a purge relayed from the CLI (in the web server, before WordPress loads). */
	function shmcache_pc_relay_receive() {
		if ( 'POST' !== strtoupper( (string) $_SERVER['REQUEST_METHOD'] ) ) {
			shmcache_pc_relay_respond( 405, array( 'ok' => false, 'error' => 'POST only' ) );
		}
		$body    = (string) file_get_contents( 'php://input', false, null, 0, 65536 );
		$payload = shmcache_pc_relay_check( $body, (string) $_SERVER['HTTP_X_SHMCACHE_RELAY'], shmcache_pc_relay_secret(), time(), shmcache_pc_site_salt() );
		if ( ! is_array( $payload ) ) {
			shmcache_pc_relay_respond( 403, array( 'ok' => false, 'error' => $payload ) );
		}
		if ( ! shmcache_pc_control()->add( 'relay|' . (string) $payload['n'], 1, 900 ) ) {
			shmcache_pc_relay_respond( 409, array( 'ok' => false, 'error' => 'replayed' ) );
		}
		$reason = 'relayed from the CLI: ' . ( isset( $payload['reason'] ) ? (string) $payload['reason'] : '' );
		// The pages: the groups the CLI named, or the whole site (of the CLI's blog).
		$groups = isset( $payload['groups'] ) && is_array( $payload['groups'] ) ? $payload['groups'] : null;
		$scope  = isset( $payload['scope'] ) ? (int) $payload['scope'] : 1;
		$purge  = static function () use ( $reason, $groups, $scope ) {
			if ( null !== $groups ) {
				shmcache_page_cache_purge_groups( $groups, $reason );
			} else {
				shmcache_page_cache_purge_all( $reason, null, $scope );
			}
		};
		if ( ! empty( $payload['object'] ) && shmcache_pc_config()['relay_object_cache'] && function_exists( 'add_action' ) ) {
			// The object cache first (a page regenerated in between would read stale objects),
			// once WordPress has started it; then the pages.
			add_action(
				'muplugins_loaded',
				static function () use ( $purge ) {
					$object = function_exists( 'wp_using_ext_object_cache' ) && wp_using_ext_object_cache() && function_exists( 'wp_cache_flush' ) && wp_cache_flush();
					$purge();
					shmcache_pc_relay_respond( 200, array( 'ok' => true, 'pages' => true, 'object_cache' => (bool) $object ) );
				},
				PHP_INT_MIN
			);
			return;
		}
		$purge();
		shmcache_pc_relay_respond( 200, array( 'ok' => true, 'pages' => true, 'object_cache' => false ) );
	}

	// --------------------------------------------------------------------------- entry point

	/**
	 * Runs once, from wp-settings.php's include of the drop-in: answers from the cache, or
	 * starts capturing the page.
	 *
	 * @param string|null $table_prefix wp-config.php's $table_prefix.
	 */
	function shmcache_page_cache_boot( $table_prefix = null ) {
		static $booted = false;
		if ( $booted ) {
			return;
		}
		$booted = true;
		shmcache_pc_site_salt( $table_prefix );
		if ( ! defined( 'SHMCACHE_PAGE_CACHE_DROPIN' ) ) {
			// WordPress loaded this file as its advanced-cache.php (WP_CACHE is on).
			define( 'SHMCACHE_PAGE_CACHE_DROPIN', true );
		}
		if ( 'cli' === PHP_SAPI || 'phpdbg' === PHP_SAPI || isset( $GLOBALS['wpdb'] ) ) {
			return; // the CLI never serves pages; too late once WordPress has its database
		}
		if ( ! shmcache_pc_available() ) {
			return;
		}
		if ( isset( $_SERVER['HTTP_X_SHMCACHE_RELAY'] ) ) {
			shmcache_pc_relay_receive();
			return;
		}
		foreach ( array( 'WP_ADMIN', 'DOING_AJAX', 'DOING_CRON', 'XMLRPC_REQUEST', 'REST_REQUEST', 'WP_INSTALLING', 'WP_REPAIRING', 'IFRAME_REQUEST', 'SHORTINIT', 'DONOTCACHEPAGE' ) as $constant ) {
			if ( defined( $constant ) && constant( $constant ) ) {
				shmcache_pc_bypass( 'constant ' . $constant );
				return;
			}
		}
		$config = shmcache_pc_config();
		$reason = shmcache_pc_request_bypass_reason( $_SERVER, $_COOKIE, $config );
		if ( null !== $reason ) {
			shmcache_pc_bypass( $reason );
			return;
		}
		// The versions are read before WordPress renders anything (race protection): the site's
		// (on multisite once the site is known), and the page's purge group's.
		$scope        = shmcache_pc_current_scope();
		$version      = null === $scope ? null : shmcache_pc_site_version( $scope );
		$group        = shmcache_pc_request_group( $_SERVER );
		$path_version = shmcache_pc_path_version( $group );
		if ( ( null !== $scope && null === $version ) || null === $path_version ) {
			shmcache_pc_bypass( 'site version unreadable' );
			return;
		}
		$now      = time();
		$key      = shmcache_pc_request_key( $_SERVER, $config );
		$is_get   = 'GET' === strtoupper( (string) $_SERVER['REQUEST_METHOD'] );
		$versions = static function ( $entry ) use ( $scope, $version, $path_version ) {
			return array( (int) $entry['o'] === $scope ? $version : shmcache_pc_site_version( (int) $entry['o'] ), $path_version );
		};
		list( $action, $entry ) = shmcache_pc_lookup( shmcache_pc_pages(), $key, $now, $versions, $is_get, $config['lease'] );
		if ( ( 'hit' === $action || 'stale' === $action ) && ! shmcache_pc_accepts_encoding( isset( $_SERVER['HTTP_ACCEPT_ENCODING'] ) ? $_SERVER['HTTP_ACCEPT_ENCODING'] : '', $entry['c'] ) ) {
			// The stored body is compressed (a plugin's ob_gzhandler) and this client cannot read
			// it: WordPress answers, and what it renders for this client replaces the entry.
			$action = 'miss';
			header( 'X-Cache-Reason: stored copy is ' . preg_replace( '/[^a-z0-9-]/', '?', $entry['c'] ) . ', not accepted by this client' );
		}
		if ( 'hit' === $action || 'stale' === $action ) {
			shmcache_pc_serve( $entry, 'stale' === $action, $now );
		}
		header( 'X-Cache: MISS' );
		shmcache_pc_count( 'miss' );
		if ( ! $is_get ) {
			return; // WordPress answers HEAD without a body: nothing to store
		}
		$generated = isset( $_SERVER['REQUEST_TIME'] ) ? (int) $_SERVER['REQUEST_TIME'] : $now;
		$capture   = new Shmcache_Page_Cache_Capture( $key, $scope, $version, $path_version, $generated, 'regenerate' === $action );
		if ( null === $scope && function_exists( 'add_action' ) ) {
			add_action( 'ms_loaded', array( $capture, 'scope_known' ), PHP_INT_MIN );
		}
		ob_start( array( $capture, 'handle' ) );
	}
}

if ( ! defined( 'SHMCACHE_PAGE_CACHE_LIBRARY_ONLY' ) || ! SHMCACHE_PAGE_CACHE_LIBRARY_ONLY ) {
	shmcache_page_cache_boot( isset( $table_prefix ) ? $table_prefix : null );
}
