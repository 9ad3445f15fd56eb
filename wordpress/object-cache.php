<?php
/**
 * shmcache object cache drop-in for WordPress.
 *
 * Copy (or symlink) to wp-content/object-cache.php. Persistent groups live in the shmcache
 * extension's shared memory, shared by every PHP-FPM worker; a per-request layer in front of it
 * keeps the hundreds of re-reads a page makes (alloptions, notoptions, ...) from decoding the
 * same value again. Semantics follow WordPress core's WP_Object_Cache.
 *
 * Layout in shared memory: one namespace per (site, site generation, group), named
 * "<salt>|<generation>|<group>". flush_group() flushes one group namespace in O(1);
 * wp_cache_flush() flushes the site namespace, whose new generation retires every group
 * namespace of this site at once, never touching other sites that share the FPM pool.
 *
 * Falls back to a per-request cache (like core without a drop-in) when the extension is missing
 * or disabled, or when SHMCACHE_DISABLE is true.
 *
 * Version: 0.1.0
 */

defined( 'ABSPATH' ) || exit;

if ( ! defined( 'SHMCACHE_DROPIN_VERSION' ) ) {
	define( 'SHMCACHE_DROPIN_VERSION', '0.1.0' );
}

/**
 * Why the drop-in is not using shared memory, or '' when it is.
 */
function shmcache_dropin_unavailable_reason() {
	if ( defined( 'SHMCACHE_DISABLE' ) && SHMCACHE_DISABLE ) {
		return 'SHMCACHE_DISABLE is set in wp-config.php';
	}
	if ( ! class_exists( 'ShmCache' ) ) {
		return 'the shmcache PHP extension is not loaded (extension=libshmcache.so)';
	}
	$info = shmcache_info();
	if ( empty( $info['enabled'] ) ) {
		return 'the shmcache extension is disabled in this SAPI (' . ( isset( $info['sapi'] ) ? $info['sapi'] : PHP_SAPI ) . '; see shmcache.enable / shmcache.enable_cli)';
	}
	return '';
}

/**
 * Like core's class, dynamic properties are allowed and the private and protected ones are
 * reachable from outside through the magic methods below: code written against core's cache
 * (WordPress's own test suite among it) sets $wp_object_cache->cache, ->stats, ->group_ops, ...
 */
#[AllowDynamicProperties]
class WP_Object_Cache {

	/** Per-request values: [ group => [ key => value ] ]. */
	private $cache = array();

	/** Number of get() hits and misses in this request (core's names). */
	public $cache_hits = 0;
	public $cache_misses = 0;

	/** Object-cache API calls in this request. */
	public $calls = 0;

	/** Whether values persist in shared memory (false = per-request fallback). */
	public $persistent = false;

	/** Why $persistent is false. */
	public $unavailable_reason = '';

	/**
	 * Values the extension refused in this request (too large for the value ring, or holding a
	 * closure or a resource): how many, and "group:key" => why. They are kept for the request.
	 */
	public $refused = 0;
	public $refused_keys = array();

	/** Lookups that went to shared memory: found there, and not (see info()). */
	private $shared_hits   = 0;
	private $shared_misses = 0;

	/** SHMCACHE_MAXTTL: the longest a value stays in shared memory, in seconds (0: no limit). */
	private $max_ttl = 0;

	protected $global_groups = array();
	protected $non_persistent_groups = array();

	private $blog_prefix = '';
	private $multisite = false;

	/** Namespace prefix of this site: salt and site generation. */
	private $site_prefix = '';
	private $salt = '';

	/** ShmCache per group, created on first use. */
	private $spaces = array();

	public function __construct() {
		$this->multisite   = function_exists( 'is_multisite' ) && is_multisite();
		$this->blog_prefix = $this->multisite ? get_current_blog_id() . ':' : '';

		$this->salt = self::site_salt();
		// Cheap path first: generation() is 0 only when the extension is disabled. (Not
		// shmcache_info(): it counts used slots by scanning the key table, milliseconds.)
		$disabled = defined( 'SHMCACHE_DISABLE' ) && SHMCACHE_DISABLE;
		if ( ! $disabled && class_exists( 'ShmCache' ) && $this->load_site_prefix() ) {
			$this->persistent = true;
		} else {
			$this->unavailable_reason = shmcache_dropin_unavailable_reason();
		}
		if ( defined( 'SHMCACHE_IGNORED_GROUPS' ) && is_array( SHMCACHE_IGNORED_GROUPS ) ) {
			$this->add_non_persistent_groups( SHMCACHE_IGNORED_GROUPS );
		}
		if ( defined( 'SHMCACHE_MAXTTL' ) && (int) SHMCACHE_MAXTTL > 0 ) {
			$this->max_ttl = (int) SHMCACHE_MAXTTL;
		}
	}

	/** The TTL given to shared memory: never negative, and at most SHMCACHE_MAXTTL when set. */
	private function ttl( $expire ) {
		$ttl = $expire > 0 ? (int) $expire : 0;
		if ( $this->max_ttl > 0 && ( 0 === $ttl || $ttl > $this->max_ttl ) ) {
			return $this->max_ttl;
		}
		return $ttl;
	}

	/** Reads any property, private ones included, as core's class allows. */
	public function __get( $name ) {
		return $this->$name;
	}

	/** Writes any property, private ones included, as core's class allows. */
	public function __set( $name, $value ) {
		return $this->$name = $value;
	}

	public function __isset( $name ) {
		return isset( $this->$name );
	}

	public function __unset( $name ) {
		unset( $this->$name );
	}

	/**
	 * The key salt of this install: WP_CACHE_KEY_SALT, else derived from the database it uses,
	 * so two sites served by one PHP-FPM pool never share entries.
	 */
	public static function site_salt() {
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

	/** The site namespace; its generation is part of every group namespace name. */
	private $site;
	private $site_generation = 0;

	/** Reads the site generation; false when the extension is disabled (generation 0). */
	private function load_site_prefix() {
		$this->site            = new ShmCache( $this->salt );
		$this->site_generation = $this->site->generation();
		$this->site_prefix     = $this->salt . '|' . $this->site_generation . '|';
		$this->spaces          = array();
		return $this->site_generation > 0;
	}

	/** @return ShmCache */
	private function space( $group ) {
		// A flush from another process gives the site a new generation: follow it, so a
		// long-running process (cron, CLI) never keeps reading retired namespaces.
		if ( $this->site->generation() !== $this->site_generation ) {
			$this->load_site_prefix();
		}
		if ( ! isset( $this->spaces[ $group ] ) ) {
			$name = $this->site_prefix . $group;
			if ( strlen( $name ) > 1024 ) {
				$name = $this->site_prefix . md5( $group );
			}
			$this->spaces[ $group ] = new ShmCache( $name );
		}
		return $this->spaces[ $group ];
	}

	/** Whether a group is kept in shared memory. */
	private function persists( $group ) {
		return $this->persistent && ! isset( $this->non_persistent_groups[ $group ] );
	}

	/** The key as stored: blog prefix for per-blog groups, hashed when too long. */
	private function stored_key( $key, $group ) {
		$key = ( $this->multisite && ! isset( $this->global_groups[ $group ] ) ) ? $this->blog_prefix . $key : (string) $key;
		if ( strlen( $key ) > 4000 ) {
			$key = 'md5:' . md5( $key ) . ':' . strlen( $key );
		}
		return $key;
	}

	/** Core's key check: an int, or a string that is not empty once trimmed. */
	protected function is_valid_key( $key ) {
		if ( is_int( $key ) ) {
			return true;
		}
		if ( is_string( $key ) && '' !== trim( $key ) ) {
			return true;
		}
		$type = gettype( $key );
		if ( ! function_exists( '__' ) ) {
			wp_load_translations_early();
		}
		$message = is_string( $key )
			? __( 'Cache key must not be an empty string.' )
			/* translators: %s: The type of the given cache key. */
			: sprintf( __( 'Cache key must be integer or non-empty string, %s given.' ), $type );
		_doing_it_wrong( sprintf( '%s::%s', __CLASS__, debug_backtrace( DEBUG_BACKTRACE_IGNORE_ARGS, 2 )[1]['function'] ), $message, '6.1.0' );
		return false;
	}

	private static function copy( $value ) {
		return is_object( $value ) ? clone $value : $value;
	}

	private function remember( $key, $group, $value ) {
		$this->cache[ $group ][ $key ] = $value;
	}

	/** True when the value is in the per-request layer (array_key_exists: null counts). */
	private function known( $key, $group ) {
		return isset( $this->cache[ $group ] ) && ( isset( $this->cache[ $group ][ $key ] ) || array_key_exists( $key, $this->cache[ $group ] ) );
	}

	/**
	 * Core's name for "is this key cached": $key as stored (blog prefix included, as core's
	 * callers pass it). Looks in this request's layer, then in shared memory.
	 */
	protected function _exists( $key, $group ) {
		if ( empty( $group ) ) {
			$group = 'default';
		}
		$key = (string) $key;
		if ( $this->known( $key, $group ) ) {
			return true;
		}
		if ( ! $this->persists( $group ) ) {
			return false;
		}
		if ( strlen( $key ) > 4000 ) {
			$key = 'md5:' . md5( $key ) . ':' . strlen( $key );
		}
		return $this->space( $group )->exists( $key );
	}

	public function add( $key, $data, $group = 'default', $expire = 0 ) {
		$this->calls++;
		if ( wp_suspend_cache_addition() ) {
			return false;
		}
		if ( ! $this->is_valid_key( $key ) ) {
			return false;
		}
		if ( empty( $group ) ) {
			$group = 'default';
		}
		$id = $this->stored_key( $key, $group );
		if ( $this->known( $id, $group ) ) {
			return false;
		}
		$data = self::copy( $data );
		if ( $this->persists( $group ) ) {
			// Atomic across workers: exactly one concurrent add wins.
			$stored = $this->store( 'add', $id, $group, $data, $expire );
			if ( false === $stored || ( null === $stored && $this->space( $group )->exists( $id ) ) ) {
				return false;
			}
		}
		$this->remember( $id, $group, $data );
		return true;
	}

	/**
	 * set/add/replace in shared memory. True: stored; false: not stored by the operation's own
	 * rule (add: the key is live; replace: it is not; set: contention); null: the value was
	 * refused (too large for the value ring, or a closure or resource that cannot be
	 * serialized). A refusal never reaches the caller as a warning or an exception.
	 */
	private function store( $operation, $id, $group, $data, $expire ) {
		try {
			if ( @$this->space( $group )->$operation( $id, $data, $this->ttl( $expire ) ) ) {
				return true;
			}
		} catch ( \Throwable $e ) {
			$this->refuse( $id, $group, $e->getMessage() );
			return null;
		}
		return $this->refused_as_too_large( $id, $group ) ? null : false;
	}

	/**
	 * After a write that returned false: whether it was because the value is too large (the
	 * extension's warning, silenced by @, is still the last error). Cleared once seen, so an
	 * older one is never taken for a later failure's reason.
	 */
	private function refused_as_too_large( $id, $group ) {
		$error = error_get_last();
		if ( ! $error || 0 !== strpos( $error['message'], 'ShmCache::' ) || false === strpos( $error['message'], 'too large' ) ) {
			return false;
		}
		error_clear_last();
		$this->refuse( $id, $group, $error['message'] );
		return true;
	}

	/**
	 * Counts a refused value and records it in shared memory for the plugin's Tools page, which
	 * names the key and the setting to raise. The PHP error log gets one line per key and day.
	 */
	private function refuse( $id, $group, $reason ) {
		$this->refused++;
		$name = $group . ':' . ( strlen( $id ) > 200 ? substr( $id, 0, 200 ) . '...' : $id );
		if ( isset( $this->refused_keys[ $name ] ) ) {
			return;
		}
		$this->refused_keys[ $name ] = $reason;
		$log = new ShmCache( $this->salt . '|refused' );
		$record = array(
			'group'   => (string) $group,
			'key'     => substr( $name, strlen( $group ) + 1 ),
			'reason'  => $reason,
			'setting' => false !== strpos( $reason, 'too large' ) ? 'shmcache.values_memory_size' : '',
			'time'    => time(),
		);
		if ( ! @$log->add( md5( $name ), $record, 86400 ) ) {
			return; // Already recorded (and logged) today.
		}
		$index = $log->get( 'index' );
		$index = is_array( $index ) ? $index : array();
		array_unshift( $index, md5( $name ) );
		@$log->set( 'index', array_slice( array_unique( $index ), 0, 50 ) );
		error_log( sprintf( 'shmcache object cache: %s not kept in shared memory (%s); this request keeps it, the next one rebuilds it', $name, $reason ) );
	}

	/** The values refused in the last day, newest first (see refuse()). */
	public function refused_values() {
		if ( ! $this->persistent ) {
			return array();
		}
		$log    = new ShmCache( $this->salt . '|refused' );
		$index  = $log->get( 'index' );
		$values = $log->getMulti( is_array( $index ) ? $index : array() );
		return array_values( array_filter( $values, 'is_array' ) );
	}

	/**
	 * add() of each value, with the ones this request does not hold going to shared memory in
	 * one addMulti() call. A key addMulti() did not add is live (false, as add() says), unless
	 * its value was refused or lost to contention: those, and every key when a value cannot be
	 * encoded (the call then adds nothing), take add()'s own path.
	 */
	public function add_multiple( array $data, $group = '', $expire = 0 ) {
		if ( empty( $group ) ) {
			$group = 'default';
		}
		$values = array();
		if ( ! $this->persists( $group ) || wp_suspend_cache_addition() ) {
			foreach ( $data as $key => $value ) {
				$values[ $key ] = $this->add( $key, $value, $group, $expire );
			}
			return $values;
		}
		$batch   = array(); // stored key => value
		$callers = array(); // stored key => the caller's key
		foreach ( $data as $key => $value ) {
			if ( ! is_int( $key ) && '' === trim( $key ) ) {
				$values[ $key ] = $this->add( $key, $value, $group, $expire ); // _doing_it_wrong names add()
				continue;
			}
			$this->calls++;
			$id = $this->stored_key( $key, $group );
			if ( $this->known( $id, $group ) ) {
				$values[ $key ] = false;
				continue;
			}
			$values[ $key ]  = false;
			$batch[ $id ]    = self::copy( $value );
			$callers[ $id ] = $key;
		}
		if ( ! $batch ) {
			return $values;
		}
		$space = $this->space( $group );
		try {
			$not_added = array_flip( array_map( 'strval', @$space->addMulti( $batch, $this->ttl( $expire ) ) ) );
		} catch ( \Throwable $e ) {
			$not_added = null;
		}
		foreach ( $batch as $id => $value ) {
			$id = (string) $id;
			if ( null !== $not_added && isset( $not_added[ $id ] ) && $space->exists( $id ) ) {
				continue; // Live: not added, as add() would say.
			}
			if ( null === $not_added || isset( $not_added[ $id ] ) ) {
				$stored = $this->store( 'add', $id, $group, $value, $expire );
				if ( false === $stored || ( null === $stored && $space->exists( $id ) ) ) {
					continue;
				}
			}
			$this->remember( $id, $group, $value );
			$values[ $callers[ $id ] ] = true;
		}
		return $values;
	}

	public function replace( $key, $data, $group = 'default', $expire = 0 ) {
		$this->calls++;
		if ( ! $this->is_valid_key( $key ) ) {
			return false;
		}
		if ( empty( $group ) ) {
			$group = 'default';
		}
		$id   = $this->stored_key( $key, $group );
		$data = self::copy( $data );
		if ( $this->persists( $group ) ) {
			$stored = $this->store( 'replace', $id, $group, $data, $expire );
			if ( false === $stored ) {
				unset( $this->cache[ $group ][ $id ] );
				return false;
			}
			// Refused: the entry it replaces must not outlive it; replaced if there was one.
			if ( null === $stored && ! $this->space( $group )->delete( $id ) && ! $this->known( $id, $group ) ) {
				return false;
			}
		} elseif ( ! $this->known( $id, $group ) ) {
			return false;
		}
		$this->remember( $id, $group, $data );
		return true;
	}

	public function set( $key, $data, $group = 'default', $expire = 0 ) {
		$this->calls++;
		// The common case (a valid key, a value shared memory takes) runs inline, without the
		// helper calls the other writes make (is_valid_key(), stored_key(), copy(), persists(),
		// space(), remember()): sets are frequent enough on a page for each call to count.
		if ( ! is_int( $key ) && ( ! is_string( $key ) || '' === trim( $key ) ) ) {
			return $this->is_valid_key( $key ); // false, with core's notice
		}
		if ( empty( $group ) ) {
			$group = 'default';
		}
		$id = ( $this->multisite && ! isset( $this->global_groups[ $group ] ) ) ? $this->blog_prefix . $key : (string) $key;
		if ( isset( $id[4000] ) ) {
			$id = $this->stored_key( $key, $group );
		}
		if ( is_object( $data ) ) {
			$data = clone $data;
		}
		if ( $this->persistent && ! isset( $this->non_persistent_groups[ $group ] ) ) {
			$space = $this->site->generation() === $this->site_generation && isset( $this->spaces[ $group ] ) ? $this->spaces[ $group ] : $this->space( $group );
			$ttl   = $expire > 0 ? (int) $expire : 0;
			if ( $this->max_ttl > 0 ) {
				$ttl = $this->ttl( $ttl );
			}
			try {
				$stored = @$space->set( $id, $data, $ttl );
			} catch ( \Throwable $e ) {
				$stored = false;
				$this->refuse( $id, $group, $e->getMessage() );
			}
			if ( ! $stored ) {
				// Not stored: the older entry must not come back in the next request. This
				// request keeps its value, as core's cache would.
				$this->refused_as_too_large( $id, $group );
				$space->delete( $id );
			}
		}
		$this->cache[ $group ][ $id ] = $data;
		return true;
	}

	/**
	 * set() of each value, with shared memory written in one setMulti() call. The keys it did
	 * not store (a value too large, or contention), and every key when a value cannot be
	 * encoded (the call then stores nothing), take set()'s own path: refused values are
	 * counted and kept for the request, and the older entry is deleted.
	 */
	public function set_multiple( array $data, $group = '', $expire = 0 ) {
		if ( empty( $group ) ) {
			$group = 'default';
		}
		$values = array();
		if ( ! $this->persists( $group ) ) {
			foreach ( $data as $key => $value ) {
				$values[ $key ] = $this->set( $key, $value, $group, $expire );
			}
			return $values;
		}
		$batch = array(); // stored key => value
		foreach ( $data as $key => $value ) {
			if ( ! is_int( $key ) && '' === trim( $key ) ) {
				$values[ $key ] = $this->set( $key, $value, $group, $expire ); // _doing_it_wrong names set()
				continue;
			}
			$this->calls++;
			$batch[ $this->stored_key( $key, $group ) ] = self::copy( $value );
			$values[ $key ] = true;
		}
		if ( ! $batch ) {
			return $values;
		}
		$space = $this->space( $group );
		$ttl   = $this->ttl( $expire );
		try {
			$retry = @$space->setMulti( $batch, $ttl );
		} catch ( \Throwable $e ) {
			$retry = array_keys( $batch );
		}
		foreach ( $retry as $id ) {
			$this->set_one( $space, (string) $id, $group, $batch[ $id ], $ttl );
		}
		foreach ( $batch as $id => $value ) {
			$this->remember( (string) $id, $group, $value );
		}
		return $values;
	}

	/** set()'s write to shared memory, for set_multiple()'s keys that setMulti() did not store. */
	private function set_one( $space, $id, $group, $data, $ttl ) {
		try {
			$stored = @$space->set( $id, $data, $ttl );
		} catch ( \Throwable $e ) {
			$stored = false;
			$this->refuse( $id, $group, $e->getMessage() );
		}
		if ( ! $stored ) {
			$this->refused_as_too_large( $id, $group );
			$space->delete( $id );
		}
	}

	public function get( $key, $group = 'default', $force = false, &$found = null ) {
		$this->calls++;
		if ( empty( $group ) ) {
			$group = 'default';
		}
		// The common case, inline (97.5% of reads re-read a key this request already holds): on
		// a single site a key is stored as itself, so the request's copy is found without the
		// validation and key-building calls below. Only non-null values are found here (isset);
		// invalid keys are never stored, so they never get this far.
		if ( ! $this->multisite && ! $force && ( is_string( $key ) || is_int( $key ) ) && isset( $this->cache[ $group ][ $key ] ) ) {
			$found = true;
			$this->cache_hits++;
			$value = $this->cache[ $group ][ $key ];
			return is_object( $value ) ? clone $value : $value; // self::copy(), inline: no call
		}
		if ( ! $this->is_valid_key( $key ) ) {
			$found = false;
			return false;
		}
		$id = $this->stored_key( $key, $group );
		if ( ! ( $force && $this->persists( $group ) ) && $this->known( $id, $group ) ) {
			$found = true;
			$this->cache_hits++;
			return self::copy( $this->cache[ $group ][ $id ] );
		}
		if ( $this->persists( $group ) ) {
			$value = $this->space( $group )->get( $id, $hit );
			if ( $hit ) {
				$found = true;
				$this->cache_hits++;
				$this->shared_hits++;
				$this->remember( $id, $group, $value );
				return self::copy( $value );
			}
			$this->shared_misses++;
		}
		$found = false;
		$this->cache_misses++;
		return false;
	}

	/**
	 * Keys this request has not read yet go to shared memory in one getMulti() call, which
	 * overlaps their memory accesses; the rest behave exactly as get() (same counters, same
	 * copies). Results keep the caller's order.
	 */
	public function get_multiple( $keys, $group = 'default', $force = false ) {
		if ( empty( $group ) ) {
			$group = 'default';
		}
		$values = array();
		$unread = array(); // stored key => the caller's keys for it
		foreach ( $keys as $key ) {
			$plain = is_int( $key ) || ( is_string( $key ) && '' !== trim( $key ) );
			if ( ! $plain || ! $this->persists( $group ) ) {
				$values[ $key ] = $this->get( $key, $group, $force );
				continue;
			}
			$id = $this->stored_key( $key, $group );
			if ( ! $force && $this->known( $id, $group ) ) {
				$values[ $key ] = $this->get( $key, $group );
				continue;
			}
			$values[ $key ]  = false;
			$unread[ $id ][] = $key;
		}
		if ( ! $unread ) {
			return $values;
		}
		$ids   = array_map( 'strval', array_keys( $unread ) );
		$found = $this->space( $group )->getMulti( $ids );
		foreach ( $unread as $id => $callers ) {
			$this->calls += count( $callers );
			if ( array_key_exists( $id, $found ) ) {
				$this->cache_hits += count( $callers );
				$this->shared_hits++;
				$this->remember( (string) $id, $group, $found[ $id ] );
				foreach ( $callers as $key ) {
					$values[ $key ] = self::copy( $found[ $id ] );
				}
			} else {
				$this->cache_misses += count( $callers );
				$this->shared_misses++;
			}
		}
		return $values;
	}

	public function delete( $key, $group = 'default', $deprecated = false ) {
		$this->calls++;
		if ( ! $this->is_valid_key( $key ) ) {
			return false;
		}
		if ( empty( $group ) ) {
			$group = 'default';
		}
		$id      = $this->stored_key( $key, $group );
		$existed = $this->known( $id, $group );
		unset( $this->cache[ $group ][ $id ] );
		if ( $this->persists( $group ) ) {
			$existed = $this->space( $group )->delete( $id ) || $existed;
		}
		return $existed;
	}

	/**
	 * delete() of each key, with shared memory cleared in one deleteMulti() call. A key given
	 * twice is deleted once: its later mention finds nothing (false), as with delete().
	 */
	public function delete_multiple( array $keys, $group = '' ) {
		if ( empty( $group ) ) {
			$group = 'default';
		}
		$values = array();
		if ( ! $this->persists( $group ) ) {
			foreach ( $keys as $key ) {
				$values[ $key ] = $this->delete( $key, $group );
			}
			return $values;
		}
		$callers = array(); // stored key => the caller's key, for keys mentioned once
		$ids     = array();
		foreach ( $keys as $key ) {
			if ( ! is_int( $key ) && ! ( is_string( $key ) && '' !== trim( $key ) ) ) {
				$values[ $key ] = $this->delete( $key, $group ); // _doing_it_wrong names delete()
				continue;
			}
			$this->calls++;
			$id = $this->stored_key( $key, $group );
			if ( array_key_exists( $id, $ids ) ) {
				unset( $callers[ $id ] );
				$values[ $key ] = false;
				continue;
			}
			$ids[ $id ]     = true;
			$callers[ $id ] = $key;
			$values[ $key ] = $this->known( $id, $group );
			unset( $this->cache[ $group ][ $id ] );
		}
		if ( ! $ids ) {
			return $values;
		}
		$space = $this->space( $group );
		$ids   = array_map( 'strval', array_keys( $ids ) );
		try {
			$deleted = $space->deleteMulti( $ids );
		} catch ( \Throwable $e ) {
			$deleted = array_filter( $ids, array( $space, 'delete' ) );
		}
		foreach ( $deleted as $id ) {
			if ( isset( $callers[ (string) $id ] ) ) {
				$values[ $callers[ (string) $id ] ] = true;
			}
		}
		return $values;
	}

	public function incr( $key, $offset = 1, $group = 'default' ) {
		// Checked here (not in change()) so _doing_it_wrong names incr/decr, as core does.
		if ( ! $this->is_valid_key( $key ) ) {
			return false;
		}
		return $this->change( $key, (int) $offset, $group );
	}

	public function decr( $key, $offset = 1, $group = 'default' ) {
		if ( ! $this->is_valid_key( $key ) ) {
			return false;
		}
		return $this->change( $key, -(int) $offset, $group );
	}

	/**
	 * incr/decr as core does them (missing → false, a non-numeric value counts as 0, a numeric
	 * string or a float is added to as PHP adds, never below 0), atomic across workers once the
	 * stored value is an integer.
	 */
	private function change( $key, $offset, $group ) {
		$this->calls++;
		if ( empty( $group ) ) {
			$group = 'default';
		}
		$id = $this->stored_key( $key, $group );
		if ( ! $this->persists( $group ) ) {
			if ( ! $this->known( $id, $group ) ) {
				return false;
			}
			$value = self::changed( $this->cache[ $group ][ $id ], $offset );
			$this->remember( $id, $group, $value );
			return $value;
		}
		$space = $this->space( $group );
		for ( $attempt = 0; $attempt < 100; $attempt++ ) {
			$value = $space->incr( $id, $offset );
			if ( false !== $value ) {
				// Core never goes below 0: clamp, unless another worker already moved it on.
				while ( $value < 0 && ! $space->cas( $id, $value, 0 ) ) {
					$now = $space->get( $id, $hit );
					if ( ! $hit || ! is_int( $now ) || $now >= 0 ) {
						break;
					}
					$value = $now;
				}
				$value = max( 0, $value );
				$this->remember( $id, $group, $value );
				return $value;
			}
			// Missing, or not stored as an integer yet.
			$current = $space->get( $id, $hit );
			if ( ! $hit ) {
				unset( $this->cache[ $group ][ $id ] );
				return false;
			}
			if ( is_int( $current ) ) {
				continue; // It became an integer between the two calls.
			}
			$value = self::changed( $current, $offset );
			// The engine's incr keeps the entry's expiry; this rewrite must give it back, or the
			// value would live on with no TTL at all (issue 30). SHMCACHE_MAXTTL applies as to a set.
			$left = $space->ttl( $id );
			if ( false === $left ) {
				continue; // Gone since the get: the next turn reports the miss.
			}
			// An integer from now on (unless a float): later calls are atomic increments.
			if ( $space->replace( $id, $value, $this->ttl( $left ) ) ) {
				$this->remember( $id, $group, $value );
				return $value;
			}
		}
		return false;
	}

	/** Core's arithmetic of incr/decr on a value that is not (yet) an integer. */
	private static function changed( $current, $offset ) {
		$value = ( is_numeric( $current ) ? $current : 0 ) + $offset;
		return $value < 0 ? 0 : $value;
	}

	public function flush() {
		$this->calls++;
		$this->cache = array();
		if ( $this->persistent ) {
			( new ShmCache( $this->salt ) )->flush();
			$this->load_site_prefix();
		}
		return true;
	}

	public function flush_runtime() {
		$this->cache = array();
		return true;
	}

	public function flush_group( $group ) {
		$this->calls++;
		if ( empty( $group ) ) {
			$group = 'default';
		}
		unset( $this->cache[ $group ] );
		if ( $this->persists( $group ) ) {
			$this->space( $group )->flush();
		}
		return true;
	}

	public function close() {
		return true;
	}

	public function add_global_groups( $groups ) {
		$groups              = (array) $groups;
		$groups              = array_fill_keys( $groups, true );
		$this->global_groups = array_merge( $this->global_groups, $groups );
	}

	public function add_non_persistent_groups( $groups ) {
		$groups                      = (array) $groups;
		$groups                      = array_fill_keys( $groups, true );
		$this->non_persistent_groups = array_merge( $this->non_persistent_groups, $groups );
	}

	public function switch_to_blog( $blog_id ) {
		$blog_id           = (int) $blog_id;
		$this->blog_prefix = $this->multisite ? $blog_id . ':' : '';
	}

	/**
	 * What this cache did in this request, and where it keeps values:
	 *   backend        'shmcache' (shared memory) or 'per-request'; reason: why not shmcache
	 *   hits, misses   get() and get_multiple() lookups, as core counts them
	 *   request_hits   hits answered by this request's own layer
	 *   shared_hits    hits read from shared memory (one per key, once per request normally)
	 *   shared_misses  lookups that went to shared memory and found nothing
	 *   refused        values shared memory refused (see refuse())
	 *   region         the shared region: SAPI and sizes (null on the per-request fallback)
	 *   salt, max_ttl, ignored_groups: the settings in force
	 */
	public function info() {
		$region = null;
		if ( $this->persistent && function_exists( 'shmcache_info' ) ) {
			$all    = shmcache_info();
			$region = array();
			foreach ( array( 'sapi', 'keys_memory_size', 'values_memory_size', 'max_value_size', 'version' ) as $field ) {
				$region[ $field ] = isset( $all[ $field ] ) ? $all[ $field ] : null;
			}
		}
		return array(
			'backend'        => $this->persistent ? 'shmcache' : 'per-request',
			'reason'         => $this->unavailable_reason,
			'hits'           => $this->cache_hits,
			'misses'         => $this->cache_misses,
			'request_hits'   => $this->cache_hits - $this->shared_hits,
			'shared_hits'    => $this->shared_hits,
			'shared_misses'  => $this->shared_misses,
			'refused'        => $this->refused,
			'region'         => $region,
			'salt'           => $this->salt,
			'max_ttl'        => $this->max_ttl,
			'ignored_groups' => defined( 'SHMCACHE_IGNORED_GROUPS' ) && is_array( SHMCACHE_IGNORED_GROUPS ) ? array_values( SHMCACHE_IGNORED_GROUPS ) : array(),
		);
	}

	/** Entries of this request's layer per group. */
	public function group_counts() {
		return array_map( 'count', $this->cache );
	}

	public function stats() {
		echo '<p>';
		echo '<strong>Cache Hits:</strong> ' . (int) $this->cache_hits . '<br />';
		echo '<strong>Cache Misses:</strong> ' . (int) $this->cache_misses . '<br />';
		echo '<strong>Backend:</strong> ' . ( $this->persistent ? 'shmcache (shared memory)' : 'per-request only: ' . esc_html( $this->unavailable_reason ) ) . '<br />';
		echo '</p>';
		echo '<ul>';
		foreach ( $this->cache as $group => $cache ) {
			echo '<li><strong>Group:</strong> ' . esc_html( $group ) . ' - ( ' . number_format( strlen( serialize( $cache ) ) / KB_IN_BYTES, 2 ) . 'k )</li>';
		}
		echo '</ul>';
	}

	/** @deprecated 3.5.0 Use switch_to_blog(). */
	public function reset() {
		_deprecated_function( __FUNCTION__, '3.5.0', 'WP_Object_Cache::switch_to_blog()' );
		foreach ( array_keys( $this->cache ) as $group ) {
			if ( ! isset( $this->global_groups[ $group ] ) ) {
				unset( $this->cache[ $group ] );
			}
		}
	}
}

function wp_cache_init() {
	$GLOBALS['wp_object_cache'] = new WP_Object_Cache();
	if ( ! $GLOBALS['wp_object_cache']->persistent ) {
		shmcache_dropin_report_per_request_cache();
	}
}

/**
 * Without shared memory this is only a per-request cache: transients, network options and the
 * cron lock must stay in the database, as without a drop-in, so core is told that no external
 * cache is in use.
 *
 * Not before the multisite bootstrap is over, though: ms-settings.php starts the object cache a
 * second time, and core then loads its own wp-includes/cache.php unless an external cache is
 * reported. Its functions have the names of the ones above, so PHP would stop with a fatal
 * "Cannot redeclare wp_cache_init()". On multisite the external cache is reported until
 * 'ms_loaded', which fires right after that second start.
 */
function shmcache_dropin_report_per_request_cache() {
	if ( ! is_multisite() || did_action( 'ms_loaded' ) ) {
		wp_using_ext_object_cache( false );
		return;
	}
	wp_using_ext_object_cache( true );
	add_action( 'ms_loaded', 'shmcache_dropin_report_per_request_cache', PHP_INT_MIN );
}

function wp_cache_add( $key, $data, $group = '', $expire = 0 ) {
	global $wp_object_cache;
	return $wp_object_cache->add( $key, $data, $group, (int) $expire );
}

function wp_cache_add_multiple( array $data, $group = '', $expire = 0 ) {
	global $wp_object_cache;
	return $wp_object_cache->add_multiple( $data, $group, $expire );
}

function wp_cache_replace( $key, $data, $group = '', $expire = 0 ) {
	global $wp_object_cache;
	return $wp_object_cache->replace( $key, $data, $group, (int) $expire );
}

function wp_cache_set( $key, $data, $group = '', $expire = 0 ) {
	global $wp_object_cache;
	return $wp_object_cache->set( $key, $data, $group, (int) $expire );
}

function wp_cache_set_multiple( array $data, $group = '', $expire = 0 ) {
	global $wp_object_cache;
	return $wp_object_cache->set_multiple( $data, $group, $expire );
}

function wp_cache_get( $key, $group = '', $force = false, &$found = null ) {
	global $wp_object_cache;
	return $wp_object_cache->get( $key, $group, $force, $found );
}

function wp_cache_get_multiple( $keys, $group = '', $force = false ) {
	global $wp_object_cache;
	return $wp_object_cache->get_multiple( $keys, $group, $force );
}

function wp_cache_delete( $key, $group = '' ) {
	global $wp_object_cache;
	return $wp_object_cache->delete( $key, $group );
}

function wp_cache_delete_multiple( array $keys, $group = '' ) {
	global $wp_object_cache;
	return $wp_object_cache->delete_multiple( $keys, $group );
}

function wp_cache_incr( $key, $offset = 1, $group = '' ) {
	global $wp_object_cache;
	return $wp_object_cache->incr( $key, $offset, $group );
}

function wp_cache_decr( $key, $offset = 1, $group = '' ) {
	global $wp_object_cache;
	return $wp_object_cache->decr( $key, $offset, $group );
}

function wp_cache_flush() {
	global $wp_object_cache;
	return $wp_object_cache->flush();
}

function wp_cache_flush_runtime() {
	global $wp_object_cache;
	return $wp_object_cache->flush_runtime();
}

function wp_cache_flush_group( $group ) {
	global $wp_object_cache;
	return $wp_object_cache->flush_group( $group );
}

function wp_cache_supports( $feature ) {
	switch ( $feature ) {
		case 'add_multiple':
		case 'set_multiple':
		case 'get_multiple':
		case 'delete_multiple':
		case 'flush_runtime':
		case 'flush_group':
			return true;
		default:
			return false;
	}
}

function wp_cache_close() {
	return true;
}

function wp_cache_add_global_groups( $groups ) {
	global $wp_object_cache;
	$wp_object_cache->add_global_groups( $groups );
}

function wp_cache_add_non_persistent_groups( $groups ) {
	global $wp_object_cache;
	$wp_object_cache->add_non_persistent_groups( $groups );
}

function wp_cache_switch_to_blog( $blog_id ) {
	global $wp_object_cache;
	$wp_object_cache->switch_to_blog( $blog_id );
}

/** @deprecated 3.5.0 Use wp_cache_switch_to_blog(). */
function wp_cache_reset() {
	_deprecated_function( __FUNCTION__, '3.5.0', 'wp_cache_switch_to_blog()' );
	global $wp_object_cache;
	$wp_object_cache->reset();
}
