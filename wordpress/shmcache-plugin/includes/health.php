<?php
/**
 * The health verdict: pure functions of shmcache_info() and a few facts about this request.
 * No WordPress function is called here (the unit tests feed hand-written arrays), so the text
 * is plain English; callers escape it for output.
 *
 * The thresholds follow docs/operations.md ("Monitoring") and web/status.php.
 *
 * @package shmcache
 */

defined( 'ABSPATH' ) || exit;

/**
 * Derived numbers the verdict and the admin screen both show.
 *
 * @param array $info shmcache_info(), or [] when the extension is missing.
 * @param int   $now  Unix time, for the uptime.
 * @return array{lookups:int, hit_rate:float, slot_use:float, ring_use:float, uptime:int, kick_ratio:float, laps:float}
 */
function shmcache_plugin_metrics( array $info, $now ) {
	$n       = static function ( $key ) use ( $info ) {
		return isset( $info[ $key ] ) && is_numeric( $info[ $key ] ) ? (int) $info[ $key ] : 0;
	};
	$ratio   = static function ( $a, $b ) {
		return $b > 0 ? $a / $b : 0.0;
	};
	$lookups = $n( 'hits' ) + $n( 'misses' );
	return array(
		'lookups'    => $lookups,
		'hit_rate'   => $ratio( $n( 'hits' ), $lookups ),
		'slot_use'   => $ratio( $n( 'slots_used' ), $n( 'slots_total' ) ),
		'ring_use'   => min( 1.0, $ratio( $n( 'values_used_bytes' ), $n( 'values_memory_size' ) ) ),
		'uptime'     => $n( 'start_time' ) > 0 ? max( 0, (int) $now - $n( 'start_time' ) ) : 0,
		'kick_ratio' => $ratio( $n( 'kicks' ), $n( 'sets' ) ),
		'laps'       => $ratio( $n( 'values_written_bytes' ), $n( 'values_memory_size' ) ),
	);
}

/** 1234567 → "1,234,567". */
function shmcache_plugin_num( $n, $decimals = 0 ) {
	return number_format( (float) $n, $decimals, '.', ',' );
}

/** A ratio as a percentage: 0.1234 → "12.3%"; small ones keep two digits: 0.00027 → "0.03%". */
function shmcache_plugin_pct( $ratio, $decimals = 1 ) {
	if ( $ratio > 0 && $ratio < 0.01 ) {
		$decimals = max( $decimals, 2 );
	}
	return shmcache_plugin_num( $ratio * 100, $decimals ) . '%';
}

/** Bytes for humans: 4194304 → "4 MiB". */
function shmcache_plugin_bytes( $bytes ) {
	$units = array( 'B', 'KiB', 'MiB', 'GiB', 'TiB' );
	$n     = (float) $bytes;
	$i     = 0;
	while ( $n >= 1024 && $i < count( $units ) - 1 ) {
		$n /= 1024;
		$i++;
	}
	if ( 0 === $i ) {
		return shmcache_plugin_num( $n ) . ' B';
	}
	return shmcache_plugin_num( $n, ( $n >= 100 || floor( $n ) == $n ) ? 0 : 1 ) . ' ' . $units[ $i ];
}

/** Seconds for humans: 93784 → "1 d 2 h". */
function shmcache_plugin_duration( $seconds ) {
	$s = max( 0, (int) $seconds );
	if ( $s < 60 ) {
		return $s . ' s';
	}
	if ( $s < 3600 ) {
		return intdiv( $s, 60 ) . ' min ' . ( $s % 60 ) . ' s';
	}
	if ( $s < 86400 ) {
		return intdiv( $s, 3600 ) . ' h ' . intdiv( $s % 3600, 60 ) . ' min';
	}
	return intdiv( $s, 86400 ) . ' d ' . intdiv( $s % 86400, 3600 ) . ' h';
}

/** An INI size twice as large as $bytes, e.g. 4194304 → "8M" (for "raise it to ..."). */
function shmcache_plugin_doubled_ini_size( $bytes ) {
	$double = max( 2, 2 * (int) $bytes );
	if ( 0 === $double % ( 1 << 30 ) ) {
		return ( $double >> 30 ) . 'G';
	}
	if ( 0 === $double % ( 1 << 20 ) ) {
		return ( $double >> 20 ) . 'M';
	}
	return max( 1, (int) ceil( $double / 1024 ) ) . 'K';
}

/**
 * Which region this process uses, from shmcache_info() (pure).
 *
 * @param array $info shmcache_info(), or [] when the extension is missing.
 * @return array{kind:string, name:string, path:string, opened:string, error:string, layout_version:int}
 *   kind: 'named' (a region file shared by every process that names it), 'anonymous' (the FPM
 *   master's region; in the CLI, a private one), 'error' (a name is set but the file could not
 *   be opened), 'none' (no region at all) or 'unknown' (an extension without named regions).
 */
function shmcache_plugin_region( array $info ) {
	$text   = static function ( $key ) use ( $info ) {
		return isset( $info[ $key ] ) && is_scalar( $info[ $key ] ) ? (string) $info[ $key ] : '';
	};
	$region = array(
		'kind'           => 'unknown',
		'name'           => $text( 'region' ),
		'path'           => $text( 'region_path' ),
		'opened'         => $text( 'region_opened' ),
		'error'          => $text( 'region_error' ),
		'layout_version' => isset( $info['layout_version'] ) ? (int) $info['layout_version'] : 0,
	);
	if ( ! array_key_exists( 'region_opened', $info ) ) {
		return $region;
	}
	if ( '' !== $region['name'] ) {
		$region['kind'] = '' !== $region['error'] || '' === $region['opened'] ? 'error' : 'named';
	} else {
		$region['kind'] = 'anonymous' === $region['opened'] ? 'anonymous' : 'none';
	}
	return $region;
}

/**
 * The verdict on the cache's health.
 *
 * @param array $info    shmcache_info() of this PHP process, or [] when the extension is not loaded.
 * @param array $context Facts about this request, all optional:
 *   'extension_loaded'   bool   whether the shmcache extension is loaded (default: $info is not empty)
 *   'sapi'               string PHP_SAPI (default: $info['sapi'] or PHP_SAPI)
 *   'now'                int    Unix time for the uptime (default: time())
 *   'dropin'             array  the object-cache drop-in; without this key it is not judged:
 *       'installed'          bool   wp-content/object-cache.php exists
 *       'ours'               bool   it is shmcache's drop-in
 *       'owner'              string what the foreign drop-in calls itself, if anything
 *       'active'             bool   shmcache's drop-in runs in this request
 *       'persistent'         bool   ... and keeps values in shared memory
 *       'unavailable_reason' string why not (the drop-in's own explanation)
 *       'version'            string version of the installed drop-in
 *       'shipped_version'    string version of the copy this plugin installs
 * @return array{status:string, label:string, reasons:string[], actions:string[], findings:array}
 *   status is 'good', 'recommended' or 'critical' (the worst finding); reasons and actions are
 *   plain-text sentences, worst first; findings holds each finding as
 *   [status, title, text, action] for callers that lay them out themselves.
 */
function shmcache_health_verdict( array $info, array $context ): array {
	$levels   = array( 'good', 'recommended', 'critical' );
	$findings = array(); // [ level 0..2, title, text, action ]
	$loaded   = array_key_exists( 'extension_loaded', $context ) ? (bool) $context['extension_loaded'] : ! empty( $info );
	$sapi     = isset( $context['sapi'] ) ? (string) $context['sapi'] : ( isset( $info['sapi'] ) ? (string) $info['sapi'] : PHP_SAPI );
	$now      = isset( $context['now'] ) ? (int) $context['now'] : time();
	$enabled  = $loaded && ! empty( $info['enabled'] );
	$g        = static function ( $key ) use ( $info ) {
		return isset( $info[ $key ] ) && is_numeric( $info[ $key ] ) ? (int) $info[ $key ] : 0;
	};
	$m        = shmcache_plugin_metrics( $info, $now );
	$cli      = in_array( $sapi, array( 'cli', 'phpdbg' ), true );

	$region = shmcache_plugin_region( $loaded ? $info : array() );
	$set_up = 'Give the site a named region: in its PHP-FPM pool file php_admin_value[shmcache.region] = a name for the site and php_admin_value[shmcache.region_user] = the pool\'s user, the same shmcache.region for the command line (php -d shmcache.region=..., or the CLI\'s ini), then restart PHP-FPM. scripts/install.sh sets this up for every pool; see docs/operations.md.';

	// ------------------------------------------------------------------ the extension itself
	if ( $loaded && 'error' === $region['kind'] ) {
		$findings[] = array(
			2,
			'The named region could not be opened',
			'This PHP process is configured for the region "' . $region['name'] . '"' . ( '' !== $region['path'] ? ' (' . $region['path'] . ')' : '' ) . ' but could not open it, so it runs without a cache (reads miss, writes are dropped): ' . ( '' !== $region['error'] ? $region['error'] : 'no reason given' ) . '.',
			'Check who owns the file (ls -l ' . ( '' !== $region['path'] ? $region['path'] : '/dev/shm/shmcache.*' ) . '): it must belong to the user PHP runs as here (or to shmcache.region_group, with no access for others). A file left by another user can be removed by hand; the next request creates it again.',
		);
	} elseif ( ! $loaded ) {
		$findings[] = array(
			2,
			'The shmcache PHP extension is not loaded',
			'This PHP (SAPI "' . $sapi . '") has no shmcache extension, so nothing is kept in shared memory: every page load starts with an empty object cache.',
			'Install the extension (scripts/install.sh builds and installs libshmcache.so), enable it for PHP-FPM with extension=libshmcache.so in its conf.d (on Debian: phpenmod -s fpm shmcache), then restart PHP-FPM.',
		);
	} elseif ( ! $enabled ) {
		$findings[] = array(
			2,
			'The shmcache extension is disabled',
			'The extension is loaded but created no shared memory region in this SAPI ("' . $sapi . '"): every read misses and every write is dropped.',
			$cli
				? 'The command line needs shmcache.enable_cli=1 (and shmcache.enable=1); each CLI process then gets a private region of its own.'
				: 'Set shmcache.enable=1 in the ini files the PHP-FPM master reads (not in a pool file), then restart PHP-FPM. If it is already on, the PHP error log says why the region could not be created.',
		);
	}

	// ------------------------------------------------------------------ tiered mode (shmcache.redis)
	if ( $enabled && isset( $info['tier_redis'] ) ) {
		$redis = (string) $info['tier_redis'];
		if ( '' === $redis && isset( $info['tier_error'] ) && '' !== (string) $info['tier_error'] ) {
			// This process has no shmcache.redis, but tiered processes (the CLI, another pool)
			// use its region: it stays out of the region.
			$findings[] = array(
				2,
				'Some PHP processes of this site use the Redis tier and these do not',
				$info['tier_error'] . '. Until every process of the region uses the same shmcache.redis, these requests use no object cache.',
				'Set the same shmcache.redis (and shmcache.redis_prefix) for every pool and for the command line (php.ini of the CLI, or -d) that share this region, or remove it from all of them (docs/operations.md, "Several web servers").',
			);
		} elseif ( isset( $info['tier_error'] ) && '' !== (string) $info['tier_error'] ) {
			$findings[] = array(
				2,
				'The Redis tier is misconfigured',
				'shmcache.redis is set, but ' . $info['tier_error'] . '. Every cache read misses and every write is refused until it is fixed.',
				'Correct shmcache.redis (unix:///path/to/redis.sock or tcp://host:port) and the other shmcache.redis_* settings in the pool file or php.ini (docs/configuration.md), then restart PHP-FPM.',
			);
		} elseif ( $g( 'tier_untrusted_requests' ) > 0 ) {
			$findings[] = array(
				1,
				'Redis failed for ' . shmcache_plugin_num( $g( 'tier_untrusted_requests' ) ) . ' requests of this worker',
				'The near cache is kept coherent through Redis at ' . $redis . '. In ' . shmcache_plugin_num( $g( 'tier_untrusted_requests' ) ) . ' requests since this worker started, Redis did not answer in time (' . shmcache_plugin_num( $g( 'tier_redis_errors' ) ) . ' errors); those requests used no object cache (reads missed, writes were refused), so they were slower but never stale.',
				'Check that Redis runs and answers within shmcache.redis_read_timeout (redis-cli --latency); the PHP error log has the reason (once every 10 seconds per worker), and shmcache_info()["tier_last_error"] the last one.',
			);
		}
	}

	// ------------------------------------------------------------------ the drop-in
	if ( isset( $context['dropin'] ) && is_array( $context['dropin'] ) ) {
		$d = $context['dropin'] + array(
			'installed'          => false,
			'ours'               => false,
			'owner'              => '',
			'active'             => false,
			'persistent'         => false,
			'unavailable_reason' => '',
			'version'            => '',
			'shipped_version'    => '',
		);
		if ( ! $d['installed'] ) {
			$findings[] = array(
				1,
				'The object-cache drop-in is not installed',
				'wp-content/object-cache.php does not exist, so WordPress does not use shmcache at all.',
				'Install the drop-in with the button on Tools → shmcache (or deactivate and activate the plugin again); it copies object-cache.php into wp-content.',
			);
		} elseif ( ! $d['ours'] ) {
			$findings[] = array(
				1,
				'Another object-cache drop-in is installed',
				'wp-content/object-cache.php belongs to ' . ( '' !== (string) $d['owner'] ? '"' . $d['owner'] . '"' : 'another plugin' ) . ', not to shmcache; WordPress uses that one, and shmcache did not overwrite it.',
				'If you want shmcache instead, deactivate the plugin that owns that drop-in (or delete wp-content/object-cache.php), then install shmcache\'s drop-in from Tools → shmcache.',
			);
		} else {
			if ( $d['active'] && ! $d['persistent'] && $enabled ) {
				$reason     = '' !== (string) $d['unavailable_reason'] ? (string) $d['unavailable_reason'] : 'no reason given';
				$findings[] = array(
					1,
					'The drop-in is not using shared memory',
					'shmcache\'s drop-in is installed but keeps values for one request only: ' . $reason . '.',
					false !== strpos( $reason, 'SHMCACHE_DISABLE' )
						? 'Remove define( \'SHMCACHE_DISABLE\', true ) from wp-config.php when you want shmcache to cache again.'
						: 'Fix the cause above; the drop-in uses shared memory again on the next page load.',
				);
			}
			if ( '' !== (string) $d['version'] && '' !== (string) $d['shipped_version'] && version_compare( (string) $d['version'], (string) $d['shipped_version'], '<' ) ) {
				$findings[] = array(
					1,
					'The installed drop-in is out of date',
					'wp-content/object-cache.php is version ' . $d['version'] . '; this plugin ships version ' . $d['shipped_version'] . '.',
					'Update it with the "Install or update the drop-in" button on Tools → shmcache.',
				);
			}
		}
	}

	// ------------------------------------------------------------------ the counters
	if ( $enabled ) {
		$kicks     = $g( 'kicks' );
		$slots     = 'shmcache.keys_memory_size (now ' . shmcache_plugin_bytes( $g( 'keys_memory_size' ) ) . ', ' . shmcache_plugin_num( $g( 'slots_total' ) ) . ' slots)';
		$keys_to   = 'Raise ' . $slots . ', for example to shmcache.keys_memory_size=' . shmcache_plugin_doubled_ini_size( $g( 'keys_memory_size' ) ) . ', in the ini files the PHP-FPM master reads, then restart PHP-FPM.';
		$ring      = 'shmcache.values_memory_size (now ' . shmcache_plugin_bytes( $g( 'values_memory_size' ) ) . ')';
		$ring_to   = 'Raise ' . $ring . ', for example to shmcache.values_memory_size=' . shmcache_plugin_doubled_ini_size( $g( 'values_memory_size' ) ) . ', in the ini files the PHP-FPM master reads, then restart PHP-FPM.';
		$slot_text = shmcache_plugin_pct( $m['slot_use'] ) . ' of the key slots are in use (' . shmcache_plugin_num( $g( 'slots_used' ) ) . ' of ' . shmcache_plugin_num( $g( 'slots_total' ) ) . ')';

		if ( $kicks > 0 && ( $m['slot_use'] >= 0.75 || $m['kick_ratio'] >= 0.01 ) ) {
			$full       = $m['slot_use'] >= 0.9;
			$findings[] = array(
				( $full && $m['kick_ratio'] >= 0.01 ) || $m['kick_ratio'] >= 0.05 ? 2 : 1,
				$full ? 'The key table is full' : 'Keys are being evicted from the key table',
				shmcache_plugin_num( $kicks ) . ' live keys were evicted (kicks: ' . shmcache_plugin_pct( $m['kick_ratio'] ) . ' of ' . shmcache_plugin_num( $g( 'sets' ) ) . ' writes) and ' . $slot_text . ': new keys throw out live ones, which then miss.',
				$keys_to,
			);
		} elseif ( $m['slot_use'] >= 0.9 ) {
			$findings[] = array(
				1,
				'The key table is nearly full',
				$slot_text . '; new keys will soon evict live ones.',
				$keys_to,
			);
		} elseif ( $kicks > 0 ) {
			$findings[] = array(
				0,
				'A few keys were evicted from the key table',
				shmcache_plugin_num( $kicks ) . ' kicks (' . shmcache_plugin_pct( $m['kick_ratio'] ) . ' of writes): harmless at this rate.',
				'',
			);
		}

		$recycles = $g( 'recycles' );
		$every    = $recycles > 0 ? max( 1, $m['uptime'] ) / $recycles : 0.0;
		$every_s  = $every >= 1 ? 'about every ' . shmcache_plugin_duration( (int) round( $every ) ) : 'more than once a second';
		if ( $recycles > 0 && $m['lookups'] >= 100 && $m['hit_rate'] < 0.8 ) {
			$findings[] = array(
				$m['hit_rate'] < 0.5 ? 2 : 1,
				'The value ring is too small',
				'The value ring wrapped ' . shmcache_plugin_num( $recycles ) . ' times (recycles, ' . $every_s . ') while the hit rate is only ' . shmcache_plugin_pct( $m['hit_rate'] ) . ': values are overwritten before they are read again.',
				$ring_to,
			);
		} elseif ( $recycles > 0 && $every < 60 ) {
			$findings[] = array(
				1,
				'The value ring turns over quickly',
				'The value ring wrapped ' . shmcache_plugin_num( $recycles ) . ' times, ' . $every_s . ': no value lives longer than that.',
				$ring_to,
			);
		} elseif ( $recycles > 0 ) {
			$findings[] = array(
				0,
				'The value ring has wrapped',
				shmcache_plugin_num( $recycles ) . ' times (' . $every_s . '); the oldest values make room for new ones, which is how the ring works, and the hit rate is fine.',
				'',
			);
		}

		$vf = $g( 'validation_failures' );
		if ( $vf > 0 ) {
			$heavy      = $vf / max( 1, $m['lookups'] ) >= 0.001;
			$findings[] = array(
				$heavy ? 1 : 0,
				'Validation failures: ' . shmcache_plugin_num( $vf ),
				'A read found a value whose checksum did not match, or that the value ring overwrote while it was being copied (a writer lapping the ring, or a worker killed in the middle of a write). Such a value is never returned: the read counts as a miss, so no wrong data reached WordPress. '
					. ( $heavy ? 'They are frequent here, which means the ring is reused under its readers.' : 'A few under heavy writing are expected.' ),
				$heavy ? 'Raise ' . $ring . ' a lot (for example shmcache.values_memory_size=' . shmcache_plugin_doubled_ini_size( 2 * $g( 'values_memory_size' ) ) . ') and restart PHP-FPM.' : '',
			);
		}

		if ( $m['lookups'] >= 10000 && $m['hit_rate'] < 0.5 && 0 === $recycles && 0 === $kicks ) {
			$findings[] = array(
				1,
				'Low hit rate without memory pressure',
				'Only ' . shmcache_plugin_pct( $m['hit_rate'] ) . ' of ' . shmcache_plugin_num( $m['lookups'] ) . ' lookups hit, yet nothing was evicted: values expire (' . shmcache_plugin_num( $g( 'expired' ) ) . ' expired), are flushed (' . shmcache_plugin_num( $g( 'flushes' ) + $g( 'namespace_flushes' ) ) . ' flushes) or are read before they are written.',
				'More memory will not help: look for code that flushes the cache often or stores values with very short expiry times.',
			);
		}

		if ( $m['lookups'] < 100 ) {
			$findings[] = array(
				0,
				'Warming up',
				'Only ' . shmcache_plugin_num( $m['lookups'] ) . ' lookups since the cache was created: the rates are not meaningful yet.',
				'',
			);
		}
	}

	// ------------------------------------------------------------------ the region (after the rest: of equal levels, a missing drop-in or a full table is named first)
	if ( $enabled && 'anonymous' === $region['kind'] ) {
		$findings[] = $cli
			? array(
				1,
				'This command line has a private cache',
				'shmcache.enable_cli gives this process a region of its own: what it reads, writes or flushes never reaches PHP-FPM, so WP-CLI and cron run from the shell leave the web server\'s cache stale.',
				'Run the command with the site\'s named region instead (php -d shmcache.region=NAME, as the pool\'s user). ' . $set_up,
			)
			: array(
				1,
				'The command line does not share this cache',
				'The cache lives in the anonymous region of this PHP-FPM master: WP-CLI, cron run from the shell and deploy scripts cannot read, update or flush it, so after wp cache flush, wp option update or an import the site may serve stale data, and cron events run from the shell can run twice or get lost. A reload of PHP-FPM also empties it.',
				$set_up,
			);
	} elseif ( $enabled && 'named' === $region['kind'] ) {
		$findings[] = array(
			0,
			'Named region "' . $region['name'] . '"',
			'The cache is the file ' . $region['path'] . ' (' . $region['opened'] . ' by this process), shared by every PHP process that names it — PHP-FPM workers, WP-CLI, cron — and kept across PHP-FPM reloads.',
			'',
		);
	}

	// Worst first; the order of equal levels is kept.
	$order = array_keys( $findings );
	usort(
		$order,
		static function ( $a, $b ) use ( $findings ) {
			return array( -$findings[ $a ][0], $a ) <=> array( -$findings[ $b ][0], $b );
		}
	);
	$sorted = array();
	foreach ( $order as $i ) {
		$sorted[] = $findings[ $i ];
	}

	$level   = $sorted ? $sorted[0][0] : 0;
	$reasons = array();
	$actions = array();
	$out     = array();
	foreach ( $sorted as $f ) {
		$reasons[] = $f[1] . ': ' . $f[2];
		if ( '' !== $f[3] && ! in_array( $f[3], $actions, true ) ) {
			$actions[] = $f[3];
		}
		$out[] = array( $levels[ $f[0] ], $f[1], $f[2], $f[3] );
	}
	if ( 0 === $level ) {
		// (A disabled or missing extension is always a finding, so here the cache works.)
		$label = 'shmcache is caching objects in shared memory';
		if ( ! $reasons ) {
			$reasons[] = 'The cache has room for its keys and values and serves hits.';
		}
	} else {
		$label = $sorted[0][1];
	}

	return array(
		'status'   => $levels[ $level ],
		'label'    => $label,
		'reasons'  => $reasons,
		'actions'  => $actions,
		'findings' => $out,
	);
}
