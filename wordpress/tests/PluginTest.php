<?php
/**
 * The shmcache plugin (wordpress/shmcache-plugin) against a real WordPress with the real
 * extension loaded and shmcache's drop-in on (run by scripts/test-plugin.sh through PHPUnit with
 * shmcache.enable_cli=1 and wordpress/tests/phpunit-plugin.xml).
 *
 * Covered: the health verdict for hand-written shmcache_info() arrays, installing and removing
 * the drop-in (temporary content directories; never over or away another plugin's drop-in), the
 * activation and deactivation hooks, the flush handler's capability and nonce checks, the Site
 * Health test, and the admin screen's output.
 */

use PHPUnit\Framework\TestCase;

require_once dirname( __DIR__ ) . '/shmcache-plugin/shmcache.php';

/** What wp_die() throws during these tests instead of ending the process. */
final class ShmcachePluginDie extends RuntimeException {
	/** @var int */
	public $status;

	public function __construct( $message, $status ) {
		parent::__construct( $message );
		$this->status = $status;
	}
}

final class PluginTest extends TestCase {

	/** @var string[] temporary directories to remove */
	private $tmp = array();

	/** @var string|null content dir the plugin is pointed at (shmcache_plugin_content_dir) */
	private $content_dir = null;

	protected function setUp(): void {
		add_filter( 'wp_die_handler', array( $this, 'die_handler_factory' ) );
		add_filter( 'shmcache_plugin_content_dir', array( $this, 'content_dir_filter' ) );
		wp_set_current_user( 0 );
		$_GET     = array();
		$_POST    = array();
		$_REQUEST = array();
	}

	protected function tearDown(): void {
		remove_filter( 'wp_die_handler', array( $this, 'die_handler_factory' ) );
		remove_filter( 'shmcache_plugin_content_dir', array( $this, 'content_dir_filter' ) );
		wp_set_current_user( 0 );
		$_GET     = array();
		$_POST    = array();
		$_REQUEST = array();
		foreach ( $this->tmp as $dir ) {
			foreach ( (array) scandir( $dir ) as $f ) {
				if ( '.' !== $f && '..' !== $f ) {
					unlink( $dir . '/' . $f );
				}
			}
			rmdir( $dir );
		}
		$this->tmp         = array();
		$this->content_dir = null;
	}

	public function die_handler_factory() {
		return array( $this, 'die_handler' );
	}

	public function die_handler( $message, $title = '', $args = array() ) {
		$status = is_int( $args ) ? $args : ( is_array( $args ) && isset( $args['response'] ) ? (int) $args['response'] : 500 );
		throw new ShmcachePluginDie( is_string( $message ) ? $message : wp_json_encode( $message ), $status );
	}

	public function content_dir_filter( $dir ) {
		return null === $this->content_dir ? $dir : $this->content_dir;
	}

	private function temp_dir() {
		$dir = sys_get_temp_dir() . '/shmcache-plugin-test-' . bin2hex( random_bytes( 6 ) );
		mkdir( $dir );
		$this->tmp[] = $dir;
		return $dir;
	}

	private function admin_id() {
		$ids = get_users(
			array(
				'role'   => 'administrator',
				'number' => 1,
				'fields' => 'ID',
			)
		);
		$this->assertNotEmpty( $ids, 'the harness site has an administrator' );
		return (int) $ids[0];
	}

	private function as_admin() {
		wp_set_current_user( $this->admin_id() );
		$this->assertTrue( current_user_can( 'manage_options' ) );
	}

	private function source() {
		$source = shmcache_plugin_dropin_source();
		$this->assertNotSame( '', $source );
		return $source;
	}

	private const FOREIGN = "<?php\n/**\n * Plugin Name: Other Object Cache\n * Some other plugin's drop-in.\n */\n";

	// ------------------------------------------------------------------------------ verdict

	/** A healthy cache after a while: 90% hits, 5% of the slots used, no evictions. */
	private static function info( array $override = array() ) {
		return $override + array(
			'enabled'              => true,
			'version'              => '0.1.0',
			'sapi'                 => 'fpm-fcgi',
			'hits'                 => 90000,
			'misses'               => 10000,
			'sets'                 => 12000,
			'deletes'              => 300,
			'kicks'                => 0,
			'recycles'             => 0,
			'expired'              => 12,
			'validation_failures'  => 0,
			'slots_total'          => 524288,
			'slots_used'           => 26000,
			'keys_memory_size'     => 4194304,
			'values_memory_size'   => 67108864,
			'values_written_bytes' => 30000000,
			'values_used_bytes'    => 30000000,
			'compressed_count'     => 40,
			'flushes'              => 0,
			'namespace_flushes'    => 2,
			'start_time'           => 1700000000,
		);
	}

	private static function ctx( array $override = array() ) {
		return $override + array(
			'extension_loaded' => true,
			'sapi'             => 'fpm-fcgi',
			'now'              => 1700000000 + 86400,
		);
	}

	/** What shmcache_info() says of the FPM master's anonymous region. */
	private static function anonymous() {
		return array(
			'region'         => '',
			'region_path'    => '',
			'region_opened'  => 'anonymous',
			'layout_version' => 5,
		);
	}

	/** shmcache_info() keys of tiered mode (shmcache.redis), healthy unless overridden. */
	private static function tier( array $over = array() ) {
		return $over + array(
			'tier_redis'                 => 'unix:///run/redis/redis.sock',
			'tier_round_trips'           => 120,
			'tier_near_hits'             => 9000,
			'tier_near_misses'           => 300,
			'tier_redis_errors'          => 0,
			'tier_untrusted_requests'    => 0,
			'tier_invalidations_applied' => 40,
			'tier_near_flushes'          => 1,
			'tier_stale_fills_dropped'   => 0,
			'tier_lag_ms'                => 3,
		);
	}

	private static function named() {
		return array(
			'region'         => 'site-a',
			'region_path'    => '/dev/shm/shmcache.site-a',
			'region_opened'  => 'attached',
			'layout_version' => 5,
		);
	}

	/** A pool pointed at another user's region: no cache, and the reason. */
	private static function named_error() {
		return array(
			'enabled'        => false,
			'sapi'           => 'fpm-fcgi',
			'region'         => 'site-a',
			'region_path'    => '/dev/shm/shmcache.site-a',
			'region_opened'  => '',
			'region_error'   => 'shmcache: cannot open /dev/shm/shmcache.site-a: Permission denied (os error 13) (it belongs to user site-b and group site-b, mode 600)',
			'layout_version' => 5,
		);
	}

	private static function dropin( array $override = array() ) {
		return $override + array(
			'installed'          => true,
			'ours'               => true,
			'owner'              => '',
			'active'             => true,
			'persistent'         => true,
			'unavailable_reason' => '',
			'version'            => '0.1.0',
			'shipped_version'    => '0.1.0',
		);
	}

	/**
	 * [info, context, status, label contains, an action contains (or null: no actions)]
	 */
	public function verdict_scenarios() {
		return array(
			'healthy'                              => array( self::info(), self::ctx( array( 'dropin' => self::dropin() ) ), 'good', 'caching objects in shared memory', null ),
			'healthy without drop-in facts'        => array( self::info(), self::ctx(), 'good', 'caching objects in shared memory', null ),
			'key table full, many kicks'           => array( self::info( array( 'kicks' => 6000, 'sets' => 100000, 'slots_used' => 500000 ) ), self::ctx(), 'critical', 'The key table is full', 'shmcache.keys_memory_size=8M' ),
			'kicks at 5% of writes, table 80%'     => array( self::info( array( 'kicks' => 5000, 'sets' => 100000, 'slots_used' => 420000 ) ), self::ctx(), 'critical', 'Keys are being evicted', 'shmcache.keys_memory_size' ),
			'kicks at 2% of writes, table 80%'     => array( self::info( array( 'kicks' => 2000, 'sets' => 100000, 'slots_used' => 420000 ) ), self::ctx(), 'recommended', 'Keys are being evicted', 'shmcache.keys_memory_size' ),
			'table 95% full, no kicks yet'         => array( self::info( array( 'slots_used' => 500000 ) ), self::ctx(), 'recommended', 'nearly full', 'shmcache.keys_memory_size=8M' ),
			'a few kicks are fine'                 => array( self::info( array( 'kicks' => 3, 'sets' => 100000 ) ), self::ctx(), 'good', 'caching objects', null ),
			'ring too small, hit rate 30%'         => array( self::info( array( 'recycles' => 500, 'hits' => 3000, 'misses' => 7000 ) ), self::ctx(), 'critical', 'The value ring is too small', 'shmcache.values_memory_size=128M' ),
			'ring too small, hit rate 70%'         => array( self::info( array( 'recycles' => 500, 'hits' => 7000, 'misses' => 3000 ) ), self::ctx(), 'recommended', 'The value ring is too small', 'shmcache.values_memory_size=128M' ),
			'ring turns over every few seconds'    => array( self::info( array( 'recycles' => 20000 ) ), self::ctx(), 'recommended', 'turns over quickly', 'shmcache.values_memory_size' ),
			'ring wrapped twice a day, 90% hits'   => array( self::info( array( 'recycles' => 2 ) ), self::ctx(), 'good', 'caching objects', null ),
			'frequent validation failures'         => array( self::info( array( 'validation_failures' => 500 ) ), self::ctx(), 'recommended', 'Validation failures: 500', 'shmcache.values_memory_size=256M' ),
			'rare validation failures'             => array( self::info( array( 'validation_failures' => 1, 'hits' => 990000 ) ), self::ctx(), 'good', 'caching objects', null ),
			'low hit rate without memory pressure' => array( self::info( array( 'hits' => 100, 'misses' => 9900 ) ), self::ctx(), 'recommended', 'Low hit rate', 'More memory will not help' ),
			'extension missing'                    => array( array(), self::ctx( array( 'extension_loaded' => false ) ), 'critical', 'extension is not loaded', 'extension=libshmcache.so' ),
			'extension missing, no context'        => array( array(), array(), 'critical', 'extension is not loaded', 'restart PHP-FPM' ),
			'extension disabled in FPM'            => array( array( 'enabled' => false, 'sapi' => 'fpm-fcgi' ), self::ctx(), 'critical', 'disabled', 'shmcache.enable=1' ),
			'extension disabled in the CLI'        => array( array( 'enabled' => false, 'sapi' => 'cli' ), self::ctx( array( 'sapi' => 'cli' ) ), 'critical', 'disabled', 'shmcache.enable_cli=1' ),
			'drop-in missing'                      => array( self::info(), self::ctx( array( 'dropin' => self::dropin( array( 'installed' => false, 'ours' => false, 'active' => false, 'persistent' => false, 'version' => '' ) ) ) ), 'recommended', 'drop-in is not installed', 'Install the drop-in' ),
			'foreign drop-in'                      => array( self::info(), self::ctx( array( 'dropin' => self::dropin( array( 'ours' => false, 'owner' => 'Other Object Cache', 'active' => false, 'persistent' => false, 'version' => '' ) ) ) ), 'recommended', 'Another object-cache drop-in', 'deactivate the plugin that owns' ),
			'SHMCACHE_DISABLE'                     => array( self::info(), self::ctx( array( 'dropin' => self::dropin( array( 'persistent' => false, 'unavailable_reason' => 'SHMCACHE_DISABLE is set in wp-config.php' ) ) ) ), 'recommended', 'not using shared memory', 'SHMCACHE_DISABLE' ),
			'outdated drop-in'                     => array( self::info(), self::ctx( array( 'dropin' => self::dropin( array( 'version' => '0.0.9' ) ) ) ), 'recommended', 'out of date', 'Install or update the drop-in' ),
			'warming up'                           => array( self::info( array( 'hits' => 10, 'misses' => 20 ) ), self::ctx(), 'good', 'caching objects', null ),
			'anonymous region in PHP-FPM'          => array( self::info( self::anonymous() ), self::ctx(), 'recommended', 'The command line does not share this cache', 'php_admin_value[shmcache.region]' ),
			'private region in the CLI'            => array( self::info( array( 'sapi' => 'cli' ) + self::anonymous() ), self::ctx( array( 'sapi' => 'cli' ) ), 'recommended', 'private cache', 'php -d shmcache.region=' ),
			'named region'                         => array( self::info( self::named() ), self::ctx( array( 'dropin' => self::dropin() ) ), 'good', 'caching objects in shared memory', null ),
			'tiered, Redis answering'              => array( self::info( self::tier() ), self::ctx(), 'good', 'caching objects in shared memory', null ),
			'tiered, Redis failed for some requests' => array( self::info( self::tier( array( 'tier_untrusted_requests' => 3, 'tier_redis_errors' => 4 ) ) ), self::ctx(), 'recommended', 'Redis failed for 3 requests', 'shmcache.redis_read_timeout' ),
			'tiered, misconfigured'                => array( self::info( self::tier( array( 'tier_error' => 'shmcache.redis: redis://x must start with unix:// or tcp://' ) ) ), self::ctx(), 'critical', 'The Redis tier is misconfigured', 'unix:///path/to/redis.sock' ),
			'tiered elsewhere, not here'           => array( self::info( self::tier( array( 'tier_redis' => '', 'tier_error' => 'shmcache: this region is used in tiered mode (a process with shmcache.redis started a request on it 3 s ago), but shmcache.redis is not set here' ) ) ), self::ctx(), 'critical', 'use the Redis tier and these do not', 'for every pool and for the command line' ),
			'named region that could not be opened' => array( self::named_error(), self::ctx(), 'critical', 'The named region could not be opened', 'ls -l /dev/shm/shmcache.site-a' ),
		);
	}

	/** @dataProvider verdict_scenarios */
	public function test_verdict( array $info, array $context, $status, $label, $action ) {
		$v = shmcache_health_verdict( $info, $context );
		$this->assertSame( array( 'status', 'label', 'reasons', 'actions', 'findings' ), array_keys( $v ) );
		$this->assertSame( $status, $v['status'], implode( "\n", $v['reasons'] ) );
		$this->assertStringContainsString( $label, $v['label'] );
		$this->assertNotEmpty( $v['reasons'] );
		$this->assertContainsOnly( 'string', $v['reasons'] );
		$this->assertContainsOnly( 'string', $v['actions'] );
		if ( null === $action ) {
			$this->assertSame( array(), $v['actions'] );
		} else {
			$this->assertStringContainsString( $action, implode( "\n", $v['actions'] ) );
		}
		// The worst finding comes first and decides the status.
		$this->assertSame( $status, $v['findings'][0][0] ?? 'good' );
	}

	public function test_verdict_explains_what_it_saw() {
		$v = shmcache_health_verdict( self::info( array( 'kicks' => 6000, 'sets' => 100000, 'slots_used' => 500000 ) ), self::ctx() );
		$this->assertStringContainsString( '6,000 live keys were evicted', $v['reasons'][0] );
		$this->assertStringContainsString( '95.4% of the key slots are in use (500,000 of 524,288)', $v['reasons'][0] );
		$this->assertStringContainsString( 'now 4 MiB', $v['actions'][0] );

		$v = shmcache_health_verdict( self::info( array( 'validation_failures' => 1, 'hits' => 990000 ) ), self::ctx() );
		$this->assertStringContainsString( 'never returned', implode( ' ', $v['reasons'] ) );

		$v = shmcache_health_verdict( self::info( array( 'hits' => 10, 'misses' => 20 ) ), self::ctx() );
		$this->assertStringContainsString( 'Warming up', $v['reasons'][0] );
	}

	public function test_region_kinds() {
		$this->assertSame( 'unknown', shmcache_plugin_region( self::info() )['kind'], 'an extension without named regions' );
		$this->assertSame( 'anonymous', shmcache_plugin_region( self::info( self::anonymous() ) )['kind'] );
		$named = shmcache_plugin_region( self::info( self::named() ) );
		$this->assertSame( array( 'named', 'site-a', '/dev/shm/shmcache.site-a', 'attached', '', 5 ), array_values( $named ) );
		$this->assertSame( 'error', shmcache_plugin_region( self::named_error() )['kind'] );
		$this->assertSame( 'none', shmcache_plugin_region( array( 'enabled' => false, 'region' => '', 'region_opened' => '' ) )['kind'] );
	}

	public function test_verdict_names_the_region_and_its_error() {
		$v = shmcache_health_verdict( self::info( self::named() ), self::ctx() );
		$this->assertStringContainsString( 'Named region "site-a": The cache is the file /dev/shm/shmcache.site-a (attached by this process)', implode( "\n", $v['reasons'] ) );

		$v = shmcache_health_verdict( self::named_error(), self::ctx() );
		$this->assertStringContainsString( 'it belongs to user site-b', $v['reasons'][0] );
		$this->assertCount( 1, $v['findings'], 'no second "extension is disabled" finding: ' . implode( "\n", $v['reasons'] ) );

		$v = shmcache_health_verdict( self::info( self::anonymous() ), self::ctx() );
		$this->assertStringContainsString( 'wp cache flush', $v['reasons'][0] );
		$this->assertStringContainsString( 'scripts/install.sh', $v['actions'][0] );
	}

	public function test_verdict_orders_findings_worst_first() {
		$context = self::ctx(
			array(
				'extension_loaded' => false,
				'dropin'           => self::dropin( array( 'installed' => false, 'ours' => false ) ),
			)
		);
		$v       = shmcache_health_verdict( array(), $context );
		$this->assertSame( 'critical', $v['status'] );
		$this->assertStringContainsString( 'extension is not loaded', $v['reasons'][0] );
		$this->assertStringContainsString( 'drop-in is not installed', $v['reasons'][1] );
		$this->assertCount( 2, $v['actions'] );
	}

	public function test_metrics() {
		$m = shmcache_plugin_metrics( self::info(), 1700000000 + 3600 );
		$this->assertSame( 100000, $m['lookups'] );
		$this->assertEqualsWithDelta( 0.9, $m['hit_rate'], 1e-9 );
		$this->assertEqualsWithDelta( 26000 / 524288, $m['slot_use'], 1e-9 );
		$this->assertEqualsWithDelta( 30000000 / 67108864, $m['ring_use'], 1e-9 );
		$this->assertSame( 3600, $m['uptime'] );
		$this->assertSame( 0.0, shmcache_plugin_metrics( array(), 5 )['hit_rate'] );
		$this->assertSame( '8M', shmcache_plugin_doubled_ini_size( 4194304 ) );
		$this->assertSame( '2G', shmcache_plugin_doubled_ini_size( 1 << 30 ) );
		$this->assertSame( '128K', shmcache_plugin_doubled_ini_size( 65536 ) );
		$this->assertSame( '64 MiB', shmcache_plugin_bytes( 67108864 ) );
		$this->assertSame( '12.3%', shmcache_plugin_pct( 0.1234 ) );
		$this->assertSame( '0.03%', shmcache_plugin_pct( 142 / 524288 ) );
		$this->assertSame( '0.0%', shmcache_plugin_pct( 0 ) );
		$this->assertSame( '1 d 2 h', shmcache_plugin_duration( 93784 ) );
	}

	// ------------------------------------------------------------------------------ drop-in files

	public function test_the_plugin_finds_its_drop_in_and_it_is_the_repositorys() {
		$this->assertFileEquals( dirname( __DIR__ ) . '/object-cache.php', $this->source() );
		$info = shmcache_plugin_dropin_file_info( $this->source() );
		$this->assertTrue( $info['ours'] );
		$this->assertMatchesRegularExpression( '/^\d+\.\d+\.\d+$/', $info['version'] );
	}

	public function test_install_copies_the_drop_in_into_an_empty_content_dir() {
		$dir = $this->temp_dir();
		$r   = shmcache_install_dropin( $dir );
		$this->assertSame( 'installed', $r['result'], $r['message'] );
		$this->assertSame( $dir . '/object-cache.php', $r['file'] );
		$this->assertFalse( is_link( $dir . '/object-cache.php' ), 'a copy, not a symlink' );
		$this->assertFileEquals( $this->source(), $dir . '/object-cache.php' );
		$this->assertSame( array( '.', '..', 'object-cache.php' ), scandir( $dir ), 'no temporary file is left' );
		$this->assertSame( 'unchanged', shmcache_install_dropin( $dir )['result'] );
	}

	public function test_install_never_overwrites_a_foreign_drop_in() {
		$dir = $this->temp_dir();
		file_put_contents( $dir . '/object-cache.php', self::FOREIGN );
		$r = shmcache_install_dropin( $dir );
		$this->assertSame( 'foreign', $r['result'] );
		$this->assertStringContainsString( 'Other Object Cache', $r['message'] );
		$this->assertSame( self::FOREIGN, file_get_contents( $dir . '/object-cache.php' ) );
		$this->assertSame( array( '.', '..', 'object-cache.php' ), scandir( $dir ) );
	}

	/** The plugin's drop-in with another version number. */
	private function versioned_source( $version ) {
		$code = (string) file_get_contents( $this->source() );
		$out  = preg_replace( "/'SHMCACHE_DROPIN_VERSION', '[^']+'/", "'SHMCACHE_DROPIN_VERSION', '$version'", $code, -1, $n );
		$this->assertSame( 1, $n, 'the drop-in defines its version in one place' );
		return $out;
	}

	public function test_install_updates_an_older_shmcache_drop_in_and_keeps_a_newer_one() {
		$dir = $this->temp_dir();
		file_put_contents( $dir . '/object-cache.php', $this->versioned_source( '0.0.1' ) );
		$this->assertSame( '0.0.1', shmcache_plugin_dropin_file_info( $dir . '/object-cache.php' )['version'] );
		$this->assertSame( 'updated', shmcache_install_dropin( $dir )['result'] );
		$this->assertFileEquals( $this->source(), $dir . '/object-cache.php' );

		$newer = $this->versioned_source( '99.0.0' );
		file_put_contents( $dir . '/object-cache.php', $newer );
		$this->assertSame( 'unchanged', shmcache_install_dropin( $dir )['result'] );
		$this->assertSame( $newer, file_get_contents( $dir . '/object-cache.php' ) );
	}

	public function test_install_replaces_a_symlink_without_writing_through_it() {
		$dir   = $this->temp_dir();
		$other = $this->temp_dir();
		$old   = $this->versioned_source( '0.0.1' );
		file_put_contents( $other . '/old.php', $old );
		symlink( $other . '/old.php', $dir . '/object-cache.php' );
		$this->assertSame( 'updated', shmcache_install_dropin( $dir )['result'] );
		$this->assertFalse( is_link( $dir . '/object-cache.php' ) );
		$this->assertFileEquals( $this->source(), $dir . '/object-cache.php' );
		$this->assertSame( $old, file_get_contents( $other . '/old.php' ), 'the link target is untouched' );
	}

	public function test_install_refuses_a_source_that_is_not_the_drop_in() {
		$dir = $this->temp_dir();
		file_put_contents( $dir . '/fake.php', self::FOREIGN );
		$this->assertSame( 'error', shmcache_install_dropin( $dir, $dir . '/fake.php' )['result'] );
		$this->assertSame( 'error', shmcache_install_dropin( $dir, $dir . '/missing.php' )['result'] );
		$this->assertFileDoesNotExist( $dir . '/object-cache.php' );
	}

	public function test_uninstall_removes_only_shmcaches_drop_in() {
		$dir = $this->temp_dir();
		$this->assertSame( 'absent', shmcache_uninstall_dropin( $dir )['result'] );
		shmcache_install_dropin( $dir );
		$this->assertSame( 'removed', shmcache_uninstall_dropin( $dir )['result'] );
		$this->assertFileDoesNotExist( $dir . '/object-cache.php' );

		file_put_contents( $dir . '/object-cache.php', self::FOREIGN );
		$this->assertSame( 'foreign', shmcache_uninstall_dropin( $dir )['result'] );
		$this->assertSame( self::FOREIGN, file_get_contents( $dir . '/object-cache.php' ) );
	}

	public function test_uninstall_removes_a_symlink_to_shmcaches_drop_in_but_not_its_target() {
		$dir = $this->temp_dir();
		symlink( $this->source(), $dir . '/object-cache.php' );
		$this->assertSame( 'removed', shmcache_uninstall_dropin( $dir )['result'] );
		$this->assertFalse( is_link( $dir . '/object-cache.php' ) );
		$this->assertFileExists( $this->source() );
	}

	// ------------------------------------------------------------------------------ activation

	private function activate() {
		do_action( 'activate_' . plugin_basename( SHMCACHE_PLUGIN_FILE ), false );
	}

	private function deactivate() {
		do_action( 'deactivate_' . plugin_basename( SHMCACHE_PLUGIN_FILE ), false );
	}

	public function test_activation_installs_and_deactivation_removes_the_drop_in() {
		$this->content_dir = $this->temp_dir();
		$file              = $this->content_dir . '/object-cache.php';

		$this->activate(); // no user: nothing happens
		$this->assertFileDoesNotExist( $file );

		$this->as_admin();
		$this->activate();
		$this->assertFileEquals( $this->source(), $file );
		$this->assertFalse( is_link( $file ) );

		wp_set_current_user( 0 );
		$this->deactivate(); // no user: nothing happens
		$this->assertFileExists( $file );

		$this->as_admin();
		$this->deactivate();
		$this->assertFileDoesNotExist( $file );
	}

	public function test_activation_leaves_a_foreign_drop_in_and_says_so() {
		$this->content_dir = $this->temp_dir();
		$file              = $this->content_dir . '/object-cache.php';
		file_put_contents( $file, self::FOREIGN );
		$this->as_admin();
		$this->activate();
		$this->assertSame( self::FOREIGN, file_get_contents( $file ) );

		$html = $this->notices_on( 'plugins' );
		$this->assertStringContainsString( 'shmcache-dropin-notice', $html );
		$this->assertStringContainsString( 'did not install', $html );
		$this->assertStringContainsString( '&quot;Other Object Cache&quot;', $html );

		$this->deactivate();
		$this->assertSame( self::FOREIGN, file_get_contents( $file ), 'deactivation leaves it too' );

		wp_set_current_user( 0 );
		$this->assertSame( '', $this->notices_on( 'plugins' ), 'no notice for a user who cannot act on it' );
	}

	public function test_the_notice_says_when_the_drop_in_is_missing_and_not_when_it_is_ours() {
		$this->content_dir = $this->temp_dir();
		$this->as_admin();
		$this->assertStringContainsString( 'is not installed', $this->notices_on( 'dashboard' ) );
		shmcache_install_dropin( $this->content_dir );
		$this->assertSame( '', $this->notices_on( 'dashboard' ) );
		unlink( $this->content_dir . '/object-cache.php' );
		$this->assertSame( '', $this->notices_on( 'edit-post' ), 'only on the plugins screen and the dashboard' );
	}

	private function notices_on( $screen ) {
		require_once ABSPATH . 'wp-admin/includes/class-wp-screen.php';
		require_once ABSPATH . 'wp-admin/includes/screen.php';
		set_current_screen( $screen );
		ob_start();
		try {
			shmcache_plugin_admin_notices();
		} finally {
			$html = (string) ob_get_clean();
			$GLOBALS['current_screen'] = null;
		}
		return $html;
	}

	public function test_the_drop_in_is_active_here_and_its_salt_is_derived_like_the_plugin_does() {
		$cache = $GLOBALS['wp_object_cache'];
		$this->assertTrue( defined( 'SHMCACHE_DROPIN_VERSION' ), 'run with the drop-in on (wp-stack.sh dropin on)' );
		$this->assertTrue( $cache->persistent, (string) $cache->unavailable_reason );
		$this->assertSame( WP_Object_Cache::site_salt(), shmcache_plugin_derived_site_salt() );
	}

	public function test_installing_where_there_was_no_drop_in_retires_stale_entries() {
		wp_cache_set( 'stale', 'from an earlier installation', 'shmcache-plugin-test' );
		$this->content_dir = $this->temp_dir();
		$this->as_admin();
		$this->activate();
		$this->assertFalse( wp_cache_get( 'stale', 'shmcache-plugin-test' ) );
		$this->assertFalse( ( new WP_Object_Cache() )->get( 'stale', 'shmcache-plugin-test' ), 'gone from shared memory too' );

		wp_cache_set( 'kept', 'v', 'shmcache-plugin-test' );
		$this->activate(); // already installed: nothing is flushed
		$this->assertSame( 'v', ( new WP_Object_Cache() )->get( 'kept', 'shmcache-plugin-test' ) );
	}

	// ------------------------------------------------------------------------------ flush handler

	private function post_flush( $nonce ) {
		$_POST = array(
			'action'           => 'shmcache_flush',
			'_wp_http_referer' => '/wp-admin/tools.php?page=shmcache&shmcache_flushed=shared',
		);
		if ( null !== $nonce ) {
			$_POST['shmcache_flush_nonce'] = $nonce;
		}
		$_REQUEST = $_POST;
		return shmcache_plugin_handle_flush();
	}

	private function assert_refused( callable $call, $status = 403 ) {
		try {
			$call();
			$this->fail( 'expected wp_die()' );
		} catch ( ShmcachePluginDie $e ) {
			$this->assertSame( $status, $e->status, $e->getMessage() );
		}
	}

	public function test_flush_is_refused_without_the_capability_even_with_a_valid_nonce() {
		wp_cache_set( 'survivor', 'v', 'shmcache-plugin-test' );
		$this->assert_refused(
			function () {
				$this->post_flush( wp_create_nonce( 'shmcache_flush' ) ); // user 0's own valid nonce
			}
		);
		$this->assertSame( 'v', ( new WP_Object_Cache() )->get( 'survivor', 'shmcache-plugin-test' ) );
	}

	public function test_flush_is_refused_for_an_administrator_without_a_valid_nonce() {
		$this->as_admin();
		wp_cache_set( 'survivor', 'v', 'shmcache-plugin-test' );
		foreach ( array( null, 'bogus', wp_create_nonce( 'another-action' ) ) as $nonce ) {
			$this->assert_refused(
				function () use ( $nonce ) {
					$this->post_flush( $nonce );
				}
			);
		}
		$this->assertSame( 'v', ( new WP_Object_Cache() )->get( 'survivor', 'shmcache-plugin-test' ) );
	}

	public function test_flush_with_nonce_and_capability_empties_this_sites_cache() {
		$this->as_admin();
		wp_cache_set( 'doomed', 'v', 'shmcache-plugin-test' );
		$other = new ShmCache( 'another-site|0|default' );
		$other->set( 'k', 'other site' );
		$this->assertSame( 'v', ( new WP_Object_Cache() )->get( 'doomed', 'shmcache-plugin-test' ) );

		$url = $this->post_flush( wp_create_nonce( 'shmcache_flush' ) );
		$this->assertStringContainsString( 'page=shmcache', $url );
		$this->assertStringContainsString( 'shmcache_flushed=shared', $url );
		$this->assertSame( 1, substr_count( $url, 'shmcache_flushed' ) );
		$this->assertFalse( wp_cache_get( 'doomed', 'shmcache-plugin-test' ) );
		$this->assertFalse( ( new WP_Object_Cache() )->get( 'doomed', 'shmcache-plugin-test' ), 'gone from shared memory' );
		$this->assertSame( 'other site', $other->get( 'k' ), 'other namespaces are untouched' );
	}

	public function test_install_button_checks_capability_and_nonce() {
		$this->content_dir = $this->temp_dir();
		$post              = function ( $nonce ) {
			$_POST    = array( 'action' => 'shmcache_install_dropin' ) + ( null === $nonce ? array() : array( 'shmcache_install_nonce' => $nonce ) );
			$_REQUEST = $_POST;
			return shmcache_plugin_handle_install();
		};
		$this->assert_refused(
			function () use ( $post ) {
				$post( wp_create_nonce( 'shmcache_install_dropin' ) );
			}
		);
		$this->as_admin();
		$this->assert_refused(
			function () use ( $post ) {
				$post( null );
			}
		);
		$this->assertFileDoesNotExist( $this->content_dir . '/object-cache.php' );
		$this->assertStringContainsString( 'shmcache_dropin=installed', $post( wp_create_nonce( 'shmcache_install_dropin' ) ) );
		$this->assertFileEquals( $this->source(), $this->content_dir . '/object-cache.php' );
	}

	// ------------------------------------------------------------------------------ Site Health

	public function test_site_health_registers_a_direct_test() {
		require_once ABSPATH . 'wp-admin/includes/class-wp-site-health.php';
		$tests = WP_Site_Health::get_tests();
		$this->assertArrayHasKey( 'shmcache', $tests['direct'] );
		$this->assertIsCallable( $tests['direct']['shmcache']['test'] );
		$this->assertNotEmpty( $tests['direct']['shmcache']['label'] );
		$this->assertArrayHasKey( 'debug_enabled', $tests['direct'], 'core tests are kept' );
	}

	public function test_site_health_result_has_the_verdict() {
		$this->as_admin();
		$result = call_user_func( shmcache_plugin_site_status_tests( array() )['direct']['shmcache']['test'] );
		$this->assertSame( array( 'label', 'status', 'badge', 'description', 'actions', 'test' ), array_keys( $result ) );
		$state   = shmcache_plugin_state();
		$verdict = shmcache_health_verdict( $state['info'], $state['context'] );
		$this->assertSame( $verdict['status'], $result['status'] );
		$this->assertContains( $result['status'], array( 'good', 'recommended', 'critical' ) );
		$this->assertStringContainsString( 'shmcache', $result['label'] );
		$this->assertStringContainsString( $verdict['label'], $result['label'] );
		$this->assertSame( array( 'blue', 'orange', 'red' )[ array_search( $result['status'], array( 'good', 'recommended', 'critical' ), true ) ], $result['badge']['color'] );
		$this->assertNotEmpty( $result['badge']['label'] );
		foreach ( $verdict['reasons'] as $reason ) {
			$this->assertStringContainsString( esc_html( $reason ), $result['description'] );
		}
		$this->assertStringContainsString( 'tools.php?page=shmcache', $result['actions'] );
		$this->assertSame( 'shmcache', $result['test'] );

		// The drop-in is ours and persistent: nothing is wrong, except that a CLI without a
		// region name (shmcache.enable_cli) has a private cache, which Site Health says.
		if ( '' === shmcache_info()['region'] ) {
			$this->assertSame( 'recommended', $result['status'], $result['description'] );
			$this->assertStringContainsString( 'This command line has a private cache', $result['label'] );
		} else {
			$this->assertSame( 'good', $result['status'], $result['description'] );
			$this->assertStringContainsString( esc_html( shmcache_info()['region_path'] ), $result['description'] );
		}
	}

	// ------------------------------------------------------------------------------ admin screen

	private function render() {
		ob_start();
		try {
			shmcache_plugin_render_admin_page();
		} finally {
			$html = (string) ob_get_clean();
		}
		return $html;
	}

	public function test_admin_page_shows_verdict_counters_dropin_and_groups() {
		$this->as_admin();
		wp_cache_set( 'a', 1, 'shmcache-plugin-test' );
		wp_cache_set( 'b', 2, 'shmcache-plugin-test' );
		wp_cache_set( 'x', 3, '<b>tag-group</b>' );
		$html    = $this->render();
		$state   = shmcache_plugin_state();
		$verdict = shmcache_health_verdict( $state['info'], $state['context'] );

		$this->assertStringContainsString( 'data-shmcache-verdict="' . $verdict['status'] . '"', $html );
		$this->assertStringContainsString( esc_html( $verdict['label'] ), $html );
		foreach ( array( 'hit_rate', 'hits', 'misses', 'slot_usage', 'ring_usage', 'kicks', 'recycles', 'validation_failures', 'expired', 'flushes', 'namespace_flushes', 'uptime' ) as $counter ) {
			$this->assertStringContainsString( 'data-counter="' . $counter . '"', $html );
		}
		$info = shmcache_info();
		$this->assertStringContainsString( 'data-counter="kicks" data-value="' . $info['kicks'] . '"', $html );
		$this->assertStringContainsString( shmcache_plugin_num( $info['slots_total'] ), $html );
		$this->assertStringContainsString( 'Groups used by this page load', $html );
		$this->assertMatchesRegularExpression( '#<tr data-group="shmcache-plugin-test"><td><code>shmcache-plugin-test</code></td><td>2</td></tr>#', $html );
		$this->assertStringContainsString( '&lt;b&gt;tag-group&lt;/b&gt;', $html, 'group names are escaped' );
		$this->assertStringNotContainsString( '<b>tag-group</b>', $html );
		$this->assertStringContainsString( 'data-dropin="persistent" data-value="1"', $html );
		$this->assertStringContainsString( 'name="shmcache_flush_nonce"', $html );
		$this->assertStringContainsString( 'value="shmcache_flush"', $html );
		$this->assertStringContainsString( 'Flush this site', $html );
		$this->assertSame( 1, preg_match( '#name="shmcache_flush_nonce" value="([0-9a-f]+)"#', $html, $m ) );
		$this->assertSame( 1, wp_verify_nonce( $m[1], 'shmcache_flush' ) );
	}

	public function test_admin_page_names_refused_values_and_the_setting_to_raise() {
		$this->as_admin();
		$this->assertStringContainsString( 'shmcache-refused-none', $this->render(), 'none refused yet' );
		$key = 'big-' . uniqid();
		wp_cache_set( $key, random_bytes( shmcache_info()['max_value_size'] + 1 ), 'shmcache-plugin-test' );
		$closure    = new stdClass();
		$closure->f = static function () {
		};
		wp_cache_set( '<i>closure</i>', $closure, 'shmcache-plugin-test' );
		$html = $this->render();
		$this->assertStringContainsString( 'data-refused-group="shmcache-plugin-test" data-refused-key="' . $key . '" data-refused-setting="shmcache.values_memory_size"', $html );
		$this->assertStringContainsString( 'raise shmcache.values_memory_size', $html );
		$this->assertStringContainsString( 'data-refused-key="&lt;i&gt;closure&lt;/i&gt;" data-refused-setting=""', $html, 'keys are escaped' );
		$this->assertStringContainsString( 'nothing to raise', $html );
		$this->assertStringNotContainsString( '<i>closure</i>', $html );
		$this->assertStringNotContainsString( 'shmcache-refused-none', $html );
	}

	public function test_admin_page_shows_the_region() {
		$this->as_admin();
		$html = $this->render();
		$info = shmcache_info();
		$kind = '' === $info['region'] ? 'anonymous' : 'named';
		$this->assertStringContainsString( '<table class="widefat striped shmcache-table shmcache-region" data-region-kind="' . $kind . '">', $html );
		$this->assertStringContainsString( 'data-region="opened" data-value="' . $info['region_opened'] . '"', $html );
		$this->assertStringContainsString( 'data-region="layout_version" data-value="' . $info['layout_version'] . '"', $html );
		if ( 'anonymous' === $kind ) {
			$this->assertStringContainsString( 'private to this command-line process', $html );
		} else {
			$this->assertStringContainsString( 'data-region="path" data-value="' . esc_attr( $info['region_path'] ) . '"', $html );
		}
	}

	public function test_admin_page_shows_the_flush_outcome() {
		$this->as_admin();
		$_GET['shmcache_flushed'] = 'shared';
		$this->assertStringContainsString( 'notice-success inline shmcache-result', $this->render() );
		$_GET['shmcache_flushed'] = '<script>';
		$this->assertStringNotContainsString( 'shmcache-result', $this->render() );
	}

	public function test_admin_page_shows_nothing_to_other_users() {
		$html = $this->render();
		$this->assertStringContainsString( 'not allowed', $html );
		$this->assertStringNotContainsString( 'data-counter', $html );
		$this->assertStringNotContainsString( 'shmcache_flush_nonce', $html );
	}
}
