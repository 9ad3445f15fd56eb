<?php
/**
 * The drop-in's API and semantics, against a real WordPress with the real extension loaded
 * (run by scripts/test-wordpress.sh through PHPUnit with shmcache.enable_cli=1).
 */

use PHPUnit\Framework\TestCase;

final class ObjectCacheTest extends TestCase {

	/** @var string[] _doing_it_wrong() calls seen during a test */
	private $wrong = array();

	protected function setUp(): void {
		$this->wrong = array();
		add_action( 'doing_it_wrong_run', array( $this, 'record_wrong' ), 10, 1 );
		// The notices core would print for _doing_it_wrong are expected here; the calls are checked.
		add_filter( 'doing_it_wrong_trigger_error', '__return_false' );
		wp_cache_flush();
	}

	protected function tearDown(): void {
		remove_action( 'doing_it_wrong_run', array( $this, 'record_wrong' ), 10 );
		remove_filter( 'doing_it_wrong_trigger_error', '__return_false' );
		wp_suspend_cache_addition( false );
	}

	public function record_wrong( $function ) {
		$this->wrong[] = $function;
	}

	/** A new cache object sees only what reached shared memory (like the next request). */
	private function next_request() {
		return new WP_Object_Cache();
	}

	public function test_the_drop_in_is_active_and_persistent() {
		$this->assertInstanceOf( WP_Object_Cache::class, $GLOBALS['wp_object_cache'] );
		$this->assertTrue( $GLOBALS['wp_object_cache']->persistent, $GLOBALS['wp_object_cache']->unavailable_reason );
		$this->assertTrue( wp_using_ext_object_cache() );
		$this->assertTrue( (new ReflectionClass( 'WP_Object_Cache' ))->getFileName() !== ABSPATH . WPINC . '/class-wp-object-cache.php' );
	}

	public function invalid_keys() {
		return array( 'empty' => array( '' ), 'spaces' => array( "  \t" ), 'null' => array( null ), 'array' => array( array( 1 ) ), 'float' => array( 1.5 ), 'bool' => array( true ) );
	}

	/** @dataProvider invalid_keys */
	public function test_invalid_keys_are_refused_with_doing_it_wrong( $key ) {
		$this->assertFalse( wp_cache_set( $key, 'v' ) );
		$this->assertFalse( wp_cache_add( $key, 'v' ) );
		$this->assertFalse( wp_cache_replace( $key, 'v' ) );
		$this->assertFalse( wp_cache_get( $key, '', false, $found ) );
		$this->assertFalse( $found );
		$this->assertFalse( wp_cache_delete( $key ) );
		$this->assertFalse( wp_cache_incr( $key ) );
		$this->assertSame(
			array( 'WP_Object_Cache::set', 'WP_Object_Cache::add', 'WP_Object_Cache::replace', 'WP_Object_Cache::get', 'WP_Object_Cache::delete', 'WP_Object_Cache::incr' ),
			$this->wrong
		);
	}

	public function test_int_and_string_keys_are_valid_and_distinct_from_other_groups() {
		$this->assertTrue( wp_cache_set( 42, 'int key' ) );
		$this->assertSame( 'int key', wp_cache_get( 42 ) );
		$this->assertSame( 'int key', wp_cache_get( '42' ) );
		$this->assertTrue( wp_cache_set( ' padded ', 'p', 'g1' ) );
		$this->assertFalse( wp_cache_get( ' padded ', 'g2' ) );
		$this->assertSame( 'p', $this->next_request()->get( ' padded ', 'g1' ) );
		$this->assertSame( array(), $this->wrong );
	}

	public function test_empty_group_means_default() {
		wp_cache_set( 'k', 'v', '' );
		$this->assertSame( 'v', wp_cache_get( 'k', 'default' ) );
		$this->assertSame( 'v', $this->next_request()->get( 'k', '' ) );
	}

	public function stored_values() {
		$o      = new stdClass();
		$o->a   = array( 1, 2 );
		return array(
			'false' => array( false ), 'null' => array( null ), 'zero' => array( 0 ), 'empty string' => array( '' ),
			'zero string' => array( '0' ), 'empty array' => array( array() ), 'float' => array( 1.25 ),
			'nested array' => array( array( 'a' => array( 'b' => null ), 7 => false ) ), 'object' => array( $o ),
			'binary' => array( "\0\xff" ),
		);
	}

	/** @dataProvider stored_values */
	public function test_values_round_trip_and_found_tells_them_from_a_miss( $value ) {
		$this->assertTrue( wp_cache_set( 'value', $value, 'round' ) );
		$this->assertEquals( $value, wp_cache_get( 'value', 'round', false, $found ) );
		$this->assertTrue( $found );
		$fresh = $this->next_request()->get( 'value', 'round', false, $found2 );
		$this->assertEquals( $value, $fresh );
		$this->assertTrue( $found2 );
		$this->assertSame( gettype( $value ), gettype( $fresh ) );
		$this->assertFalse( wp_cache_get( 'absent', 'round', false, $found3 ) );
		$this->assertFalse( $found3 );
	}

	public function test_objects_are_copies_on_set_and_on_get() {
		$o    = new stdClass();
		$o->v = 1;
		wp_cache_set( 'obj', $o );
		$o->v = 2;
		$got  = wp_cache_get( 'obj' );
		$this->assertSame( 1, $got->v );
		$got->v = 3;
		$this->assertSame( 1, wp_cache_get( 'obj' )->v );
		$this->assertNotSame( wp_cache_get( 'obj' ), wp_cache_get( 'obj' ) );
		$this->assertSame( 1, $this->next_request()->get( 'obj' )->v );
	}

	public function test_add_fails_when_present_or_suspended() {
		$this->assertTrue( wp_cache_add( 'a', 1 ) );
		$this->assertFalse( wp_cache_add( 'a', 2 ) );
		$this->assertSame( 1, wp_cache_get( 'a' ) );
		$other = $this->next_request();
		$this->assertFalse( $other->add( 'a', 3 ), 'present in shared memory' );
		wp_suspend_cache_addition( true );
		$this->assertFalse( wp_cache_add( 'b', 1 ) );
		$this->assertFalse( wp_cache_get( 'b' ) );
		wp_suspend_cache_addition( false );
		$this->assertTrue( wp_cache_add( 'b', 1 ) );
		$this->assertSame( array( 'x' => true, 'a' => false ), wp_cache_add_multiple( array( 'x' => 1, 'a' => 9 ) ) );
	}

	public function test_replace_needs_an_existing_key_and_writes_nothing_otherwise() {
		$this->assertFalse( wp_cache_replace( 'r', 1 ) );
		$this->assertFalse( wp_cache_get( 'r', '', false, $found ) );
		$this->assertFalse( $found );
		$this->assertFalse( $this->next_request()->get( 'r' ) );
		wp_cache_set( 'r', 1 );
		$this->assertTrue( wp_cache_replace( 'r', 2 ) );
		$this->assertSame( 2, $this->next_request()->get( 'r' ) );
	}

	public function test_delete_and_delete_multiple() {
		wp_cache_set( 'd', 1 );
		$this->assertTrue( wp_cache_delete( 'd' ) );
		$this->assertFalse( wp_cache_delete( 'd' ) );
		$this->assertFalse( $this->next_request()->get( 'd' ) );
		wp_cache_set( 'd1', 1 );
		$this->assertSame( array( 'd1' => true, 'd2' => false ), wp_cache_delete_multiple( array( 'd1', 'd2' ) ) );
	}

	public function test_incr_and_decr_follow_core() {
		$this->assertFalse( wp_cache_incr( 'n' ), 'missing key' );
		$this->assertFalse( wp_cache_decr( 'n' ) );
		wp_cache_set( 'n', 5 );
		$this->assertSame( 6, wp_cache_incr( 'n' ) );
		$this->assertSame( 10, wp_cache_incr( 'n', 4 ) );
		$this->assertSame( 7, wp_cache_decr( 'n', 3 ) );
		$this->assertSame( 0, wp_cache_decr( 'n', 100 ), 'clamped at 0' );
		$this->assertSame( 0, $this->next_request()->get( 'n' ) );
		wp_cache_set( 's', 'not a number' );
		$this->assertSame( 2, wp_cache_incr( 's', 2 ), 'non-numeric counts as 0' );
		wp_cache_set( 'ns', '12' );
		$this->assertSame( 13, wp_cache_incr( 'ns' ), 'numeric strings count' );
		$this->assertSame( 13, $this->next_request()->get( 'ns' ) );
		$this->assertSame( 11, $this->next_request()->decr( 'ns', 2 ) );
		$this->assertSame( 11, wp_cache_get( 'ns', '', true ), 'force reads shared memory' );
	}

	/** [ stored value, incr or decr, offset, what core's class returns ] */
	public function non_int_counters() {
		return array(
			'float'                 => array( 1.5, 'incr', 1, 2.5 ),
			'float string'          => array( '1.5', 'incr', 1, 2.5 ),
			'exponent string'       => array( '1e2', 'incr', 1, 101.0 ),
			'int string'            => array( '12', 'incr', 1, 13 ),
			'padded int string'     => array( ' 7', 'incr', 2, 9 ),
			'float decr below zero' => array( 0.5, 'decr', 1, 0 ),
			'float decr'            => array( 3.75, 'decr', 1, 2.75 ),
			'non-numeric string'    => array( 'abc', 'incr', 3, 3 ),
			'array'                 => array( array( 5 ), 'incr', 2, 2 ),
			'null'                  => array( null, 'incr', 1, 1 ),
			'true'                  => array( true, 'decr', 1, 0 ),
		);
	}

	/** @dataProvider non_int_counters */
	public function test_incr_and_decr_of_values_that_are_not_ints_follow_core( $stored, $op, $offset, $expected ) {
		$change = 'wp_cache_' . $op;
		wp_cache_set( 'c', $stored, 'counters' );
		$this->assertSame( $expected, $change( 'c', $offset, 'counters' ), 'shared memory' );
		$this->assertSame( $expected, wp_cache_get( 'c', 'counters' ) );
		$this->assertSame( $expected, $this->next_request()->get( 'c', 'counters' ), 'the result reached shared memory' );
		wp_cache_add_non_persistent_groups( array( 'local-counters' ) );
		wp_cache_set( 'c', $stored, 'local-counters' );
		$this->assertSame( $expected, $change( 'c', $offset, 'local-counters' ), 'request only' );
		$this->assertSame( $expected, wp_cache_get( 'c', 'local-counters' ) );
	}

	/**
	 * Issue 30: a numeric string is rewritten as a number, which must keep the time the entry
	 * had left (with none, none), or a short-lived counter would never expire.
	 */
	public function test_incr_and_decr_of_a_numeric_string_keep_its_expiry() {
		wp_cache_set( 'short', '5', 'counters', 2 );
		wp_cache_set( 'float', '1.5', 'counters', 2 );
		wp_cache_set( 'forever', '7', 'counters' );
		$this->assertSame( 6, wp_cache_incr( 'short', 1, 'counters' ) );
		$this->assertSame( 4, wp_cache_decr( 'short', 2, 'counters' ) );
		$this->assertSame( 2.5, wp_cache_incr( 'float', 1, 'counters' ) );
		$this->assertSame( 6, wp_cache_decr( 'forever', 1, 'counters' ) );
		$this->assertSame( 4, $this->next_request()->get( 'short', 'counters' ), 'the result reached shared memory' );
		sleep( 3 );
		$later = $this->next_request();
		$this->assertFalse( $later->get( 'short', 'counters' ), 'expired as set' );
		$this->assertFalse( $later->get( 'float', 'counters' ), 'a float too' );
		$this->assertSame( 6, $later->get( 'forever', 'counters' ), 'no expiry given, none added' );
	}

	public function test_private_and_dynamic_properties_are_reachable_like_core() {
		$cache = $this->next_request();
		$cache->set( 'k', 'v', 'props' );
		$this->assertSame( array( 'k' => 'v' ), $cache->cache['props'], 'the private request layer is readable' );
		// What WordPress's own test bootstrap does between tests.
		$cache->group_ops      = array();
		$cache->stats          = array();
		$cache->memcache_debug = array();
		$cache->cache          = array();
		$this->assertSame( array(), $cache->cache );
		$this->assertSame( array(), $cache->group_ops );
		$this->assertSame( 'v', $cache->get( 'k', 'props' ), 'still in shared memory' );
		$cache->add_global_groups( array( 'props-global' ) );
		$this->assertTrue( isset( $cache->global_groups['props-global'] ) );
		$this->assertTrue( isset( $cache->memcache_debug ) );
		unset( $cache->memcache_debug );
		$this->assertFalse( isset( $cache->memcache_debug ) );
		$this->assertFalse( isset( $cache->no_such_property ) );
	}

	public function test__exists_looks_in_the_request_and_in_shared_memory() {
		$cache  = $this->next_request();
		$exists = Closure::bind(
			function ( $key, $group ) {
				return $this->_exists( $key, $group );
			},
			$cache,
			WP_Object_Cache::class
		);
		$this->assertFalse( $exists( 'e', 'exists' ) );
		wp_cache_set( 'e', null, 'exists' );
		$this->assertTrue( $exists( 'e', 'exists' ), 'a stored null, in shared memory only' );
		$cache->add_non_persistent_groups( array( 'exists-local' ) );
		$cache->set( 'l', false, 'exists-local' );
		$this->assertTrue( $exists( 'l', 'exists-local' ) );
		$this->assertFalse( $exists( 'l', 'exists' ) );
		wp_cache_delete( 'e', 'exists' );
		$this->assertFalse( $exists( 'e', 'exists' ) );
	}

	public function test_get_and_set_multiple() {
		$this->assertSame( array( 'a' => true, 'b' => true ), wp_cache_set_multiple( array( 'a' => 1, 'b' => false ), 'm' ) );
		$this->assertSame( array( 'a' => 1, 'b' => false, 'c' => false ), wp_cache_get_multiple( array( 'a', 'b', 'c' ), 'm' ) );
		$this->assertSame( array( 'a' => 1, 'b' => false, 'c' => false ), $this->next_request()->get_multiple( array( 'a', 'b', 'c' ), 'm' ) );
	}

	public function test_set_multiple_returns_like_core_and_writes_shared_memory() {
		global $wp_object_cache;
		$this->next_request()->set( 'old', 'older', 'sm' );
		$obj    = new stdClass();
		$obj->v = 1;
		$calls  = $wp_object_cache->calls;
		$got    = wp_cache_set_multiple( array( 'a' => 1, 7 => 'seven', '' => 'empty key', 'old' => 'newer', 'o' => $obj, 'n' => null ), 'sm' );
		$this->assertSame( array( 'a' => true, 7 => true, '' => false, 'old' => true, 'o' => true, 'n' => true ), $got );
		$this->assertSame( array( 'WP_Object_Cache::set' ), $this->wrong, 'an invalid key is reported as set() reports it' );
		$this->assertSame( $calls + 6, $wp_object_cache->calls, 'one call per key, as set()' );
		$obj->v = 2;
		$this->assertSame( 1, wp_cache_get( 'o', 'sm' )->v, 'the request keeps a copy' );
		$next = $this->next_request();
		$this->assertSame( array( 'a' => 1, 7 => 'seven', 'old' => 'newer', 'o' => 1, 'n' => null ), array(
			'a'   => $next->get( 'a', 'sm' ),
			7     => $next->get( 7, 'sm' ),
			'old' => $next->get( 'old', 'sm' ),
			'o'   => $next->get( 'o', 'sm' )->v,
			'n'   => $next->get( 'n', 'sm', false, $found ),
		) );
		$this->assertTrue( $found );
		$this->assertSame( array(), wp_cache_set_multiple( array(), 'sm' ) );
	}

	/** @dataProvider refused_kinds */
	public function test_set_multiple_keeps_refused_values_for_the_request_and_stores_the_rest( $kind ) {
		global $wp_object_cache;
		$value   = self::refused_value( $kind );
		$refused = $wp_object_cache->refused;
		$this->next_request()->set( 'r', 'older', 'refused-multi' );
		$got = wp_cache_set_multiple( array( 'before' => 1, 'r' => $value, 'after' => 2 ), 'refused-multi' );
		$this->assertSame( array( 'before' => true, 'r' => true, 'after' => true ), $got );
		$this->assertEquals( $value, wp_cache_get( 'r', 'refused-multi' ) );
		$this->assertSame( $refused + 1, $wp_object_cache->refused );
		$this->assertArrayHasKey( 'refused-multi:r', $wp_object_cache->refused_keys );
		$next = $this->next_request();
		$this->assertFalse( $next->get( 'r', 'refused-multi' ), 'the older value does not come back' );
		$this->assertSame( array( 1, 2 ), array( $next->get( 'before', 'refused-multi' ), $next->get( 'after', 'refused-multi' ) ) );
	}

	public function test_add_multiple_returns_like_core_and_writes_shared_memory() {
		global $wp_object_cache;
		$this->next_request()->set( 'live', 'in shared memory', 'am' );
		wp_cache_set( 'held', 'in the request', 'am' );
		$calls = $wp_object_cache->calls;
		$got   = wp_cache_add_multiple( array( 'new' => 1, 'live' => 2, 'held' => 3, ' ' => 4, 9 => 'nine' ), 'am' );
		$this->assertSame( array( 'new' => true, 'live' => false, 'held' => false, ' ' => false, 9 => true ), $got );
		$this->assertSame( array( 'WP_Object_Cache::add' ), $this->wrong );
		$this->assertSame( $calls + 5, $wp_object_cache->calls, 'one call per key, as add()' );
		$this->assertSame( 'in the request', wp_cache_get( 'held', 'am' ) );
		$next = $this->next_request();
		$this->assertSame( array( 1, 'in shared memory', 'in the request', 'nine' ), array( $next->get( 'new', 'am' ), $next->get( 'live', 'am' ), $next->get( 'held', 'am' ), $next->get( 9, 'am' ) ) );
		$this->assertSame( array( 'new' => false, 'other' => true ), $next->add_multiple( array( 'new' => 5, 'other' => 6 ), 'am' ), 'keys another request added are live' );
		wp_suspend_cache_addition( true );
		$this->assertSame( array( 'x' => false ), wp_cache_add_multiple( array( 'x' => 1 ), 'am' ) );
		$this->assertFalse( $this->next_request()->get( 'x', 'am' ) );
	}

	/** @dataProvider refused_kinds */
	public function test_add_multiple_keeps_refused_values_for_the_request_and_adds_the_rest( $kind ) {
		global $wp_object_cache;
		$value   = self::refused_value( $kind );
		$refused = $wp_object_cache->refused;
		$this->next_request()->set( 'live', 'in shared memory', 'refused-add' );
		$got = wp_cache_add_multiple( array( 'before' => 1, 'r' => $value, 'live' => $value, 'after' => 2 ), 'refused-add' );
		$this->assertSame( array( 'before' => true, 'r' => true, 'live' => false, 'after' => true ), $got );
		$this->assertEquals( $value, wp_cache_get( 'r', 'refused-add' ) );
		$this->assertSame( 'in shared memory', wp_cache_get( 'live', 'refused-add' ) );
		$this->assertGreaterThan( $refused, $wp_object_cache->refused );
		$next = $this->next_request();
		$this->assertSame( array( 1, false, 'in shared memory', 2 ), array( $next->get( 'before', 'refused-add' ), $next->get( 'r', 'refused-add' ), $next->get( 'live', 'refused-add' ), $next->get( 'after', 'refused-add' ) ) );
	}

	public function test_delete_multiple_returns_like_core_and_clears_shared_memory() {
		global $wp_object_cache;
		$this->next_request()->set_multiple( array( 'd1' => 1, 'd2' => 2, 5 => 'five', 'kept' => 3 ), 'dm' );
		$calls = $wp_object_cache->calls;
		$got   = wp_cache_delete_multiple( array( 'd1', 'missing', 'd2', 'd2', '5', '', null ), 'dm' );
		// d2 twice: the second delete finds nothing, as core's loop says.
		$this->assertSame( array( 'd1' => true, 'missing' => false, 'd2' => false, 5 => true, '' => false ), $got );
		$this->assertSame( array( 'WP_Object_Cache::delete', 'WP_Object_Cache::delete' ), $this->wrong );
		$this->assertSame( $calls + 7, $wp_object_cache->calls, 'one call per key, as delete()' );
		$next = $this->next_request();
		$this->assertSame( array( false, false, false, 3 ), array( $next->get( 'd1', 'dm' ), $next->get( 'd2', 'dm' ), $next->get( 5, 'dm' ), $next->get( 'kept', 'dm' ) ) );
		// A key only this request holds is deleted too.
		wp_cache_add_non_persistent_groups( array( 'dm-local' ) );
		wp_cache_set( 'l', 1, 'dm-local' );
		$this->assertSame( array( 'l' => true, 'm' => false ), wp_cache_delete_multiple( array( 'l', 'm' ), 'dm-local' ) );
		$this->assertSame( array(), wp_cache_delete_multiple( array(), 'dm' ) );
	}

	/**
	 * set_multiple/add_multiple hand shared memory the whole batch in one call: every value is
	 * encoded before the first is stored, so a value's __serialize() sees none of the batch in
	 * shared memory yet. A loop of set()/add() would have stored the keys before it.
	 */
	public function test_set_and_add_multiple_write_shared_memory_in_one_call() {
		foreach ( array( 'set_multiple', 'add_multiple' ) as $method ) {
			$spy  = new ShmcacheBatchSpy( 'batch-' . $method );
			$next = $this->next_request();
			$this->assertSame( array( 'first' => true, 'spy' => true, 'last' => true ), $next->$method( array( 'first' => 1, 'spy' => $spy, 'last' => 2 ), 'batch-' . $method ) );
			$this->assertSame( array( false ), ShmcacheBatchSpy::$seen, "$method: first was not stored before the spy was encoded" );
			$this->assertSame( 1, $this->next_request()->get( 'first', 'batch-' . $method ) );
		}
	}

	public function test_get_multiple_reads_shared_memory_in_one_batch() {
		global $wp_object_cache;
		$post       = new stdClass();
		$post->ID   = 7;
		$post->tags = array( 'x', 'y' );
		wp_cache_set( 'p7', $post, 'posts' );
		wp_cache_set( 10, 'ten', 'posts' );
		wp_cache_set( 'zero', 0, 'posts' );
		wp_cache_set( 'nil', null, 'posts' );
		$cache  = $this->next_request();
		$calls  = $cache->calls;
		$hits   = $cache->cache_hits;
		$misses = $cache->cache_misses;
		$got    = $cache->get_multiple( array( 'missing', 'p7', 10, 'zero', 'p7', 'nil', '10' ), 'posts' );
		$this->assertSame( array( 'missing', 'p7', 10, 'zero', 'nil' ), array_keys( $got ), "the caller's order" );
		$this->assertFalse( $got['missing'] );
		$this->assertEquals( $post, $got['p7'] );
		$this->assertSame( 'ten', $got[10] );
		$this->assertSame( 0, $got['zero'] );
		$this->assertNull( $got['nil'] );
		$this->assertSame( $calls + 7, $cache->calls, 'one call per key, as get()' );
		$this->assertSame( $hits + 6, $cache->cache_hits );
		$this->assertSame( $misses + 1, $cache->cache_misses );
		// Read values are remembered for the request, and each caller gets its own copy.
		$got['p7']->ID = 99;
		$this->assertSame( 7, $cache->get( 'p7', 'posts' )->ID );
		$this->assertSame( $hits + 7, $cache->cache_hits );
		// force goes back to shared memory even for keys this request has read.
		wp_cache_set( 'p7', 'changed', 'posts' );
		$this->assertSame( array( 'p7' => 'changed' ), $cache->get_multiple( array( 'p7' ), 'posts', true ) );
		// Non-persistent groups never reach shared memory.
		wp_cache_add_non_persistent_groups( array( 'local-only' ) );
		$wp_object_cache->set( 'k', 'v', 'local-only' );
		$this->assertSame( array( 'k' => 'v' ), $wp_object_cache->get_multiple( array( 'k' ), 'local-only' ) );
		$other = $this->next_request();
		$other->add_non_persistent_groups( array( 'local-only' ) );
		$this->assertSame( array( 'k' => false ), $other->get_multiple( array( 'k' ), 'local-only' ) );
	}

	public function test_request_local_reads_count_copy_and_normalise_like_the_first_read() {
		$cache     = $this->next_request();
		$obj       = new stdClass();
		$obj->v    = 1;
		$cache->set( 'o', $obj, '' );
		$cache->set( 7, 'seven' );
		$hits = $cache->cache_hits;
		$a    = $cache->get( 'o', 'default', false, $found );
		$this->assertTrue( $found );
		$a->v = 2;
		$b    = $cache->get( 'o', '' );
		$this->assertSame( 1, $b->v, 'every read gets its own clone' );
		$this->assertNotSame( $a, $b );
		$this->assertSame( 'seven', $cache->get( '7', 'default', false, $found ) );
		$this->assertTrue( $found );
		$this->assertSame( 'seven', $cache->get( 7, 0 ), 'an empty group is "default"' );
		$this->assertSame( $hits + 4, $cache->cache_hits );
		$cache->set( 'n', null );
		$this->assertNull( $cache->get( 'n', 'default', false, $found ) );
		$this->assertTrue( $found, 'a stored null is found' );
		$this->assertFalse( $cache->get( array( 1 ), 'default', false, $found ), 'an invalid key is refused, not looked up' );
		$this->assertFalse( $found );
		$this->assertSame( array( 'WP_Object_Cache::get' ), $this->wrong );
		// force reads shared memory even for a key the request holds.
		wp_cache_set( 'o', 'changed' );
		$this->assertSame( 'changed', $cache->get( 'o', '', true ) );
	}

	public function test_flush_runtime_keeps_shared_memory() {
		wp_cache_set( 'k', 'v' );
		$this->assertTrue( wp_cache_flush_runtime() );
		$this->assertSame( 'v', wp_cache_get( 'k' ) );
	}

	public function test_flush_group_only_flushes_that_group() {
		wp_cache_set( 'k', 'a', 'group-a' );
		wp_cache_set( 'k', 'b', 'group-b' );
		$this->assertTrue( wp_cache_flush_group( 'group-a' ) );
		$this->assertFalse( wp_cache_get( 'k', 'group-a' ) );
		$this->assertFalse( $this->next_request()->get( 'k', 'group-a' ) );
		$this->assertSame( 'b', $this->next_request()->get( 'k', 'group-b' ) );
	}

	public function test_flush_empties_this_site_everywhere() {
		wp_cache_set( 'k', 'v', 'posts' );
		$other = $this->next_request();
		$this->assertSame( 'v', $other->get( 'k', 'posts' ) );
		$this->assertTrue( wp_cache_flush() );
		$this->assertFalse( wp_cache_get( 'k', 'posts' ) );
		$other->flush_runtime();
		$this->assertFalse( $other->get( 'k', 'posts' ), 'an instance created before the flush follows it' );
	}

	public function test_flush_does_not_touch_other_sites_in_the_same_memory() {
		wp_cache_set( 'k', 'this site' );
		// Another site sharing the FPM pool: same memory, other salt.
		$other_site = shmcache_other_site_cache( 'another-site-salt' );
		$other_site->set( 'k', 'other site' );
		$this->assertSame( 'this site', wp_cache_get( 'k' ) );
		wp_cache_flush();
		$this->assertSame( 'other site', shmcache_other_site_cache( 'another-site-salt' )->get( 'k' ) );
		$this->assertFalse( wp_cache_get( 'k' ) );
	}

	public function test_non_persistent_groups_stay_in_the_request() {
		wp_cache_add_non_persistent_groups( array( 'request-only' ) );
		wp_cache_set( 'k', 'v', 'request-only' );
		$this->assertSame( 'v', wp_cache_get( 'k', 'request-only' ) );
		$this->assertFalse( $this->next_request()->get( 'k', 'request-only' ) );
		$this->assertSame( 1, wp_cache_incr( 'missing-then', 1, 'request-only' ) === false ? 1 : 0 );
		wp_cache_set( 'c', 1, 'request-only' );
		$this->assertSame( 2, wp_cache_incr( 'c', 1, 'request-only' ) );
	}

	public function test_global_groups_are_shared_across_blogs_and_others_are_per_blog() {
		$cache = $this->next_request();
		$force = Closure::bind( function () { $this->multisite = true; }, $cache, WP_Object_Cache::class );
		$force();
		$cache->add_global_groups( array( 'users-x' ) );
		$cache->switch_to_blog( 2 );
		$cache->set( 'k', 'blog 2', 'posts' );
		$cache->set( 'k', 'global', 'users-x' );
		$cache->switch_to_blog( 3 );
		$this->assertFalse( $cache->get( 'k', 'posts' ) );
		$this->assertSame( 'global', $cache->get( 'k', 'users-x' ) );
		$cache->switch_to_blog( 2 );
		$this->assertSame( 'blog 2', $cache->get( 'k', 'posts' ) );
	}

	/** A value the extension refuses, of each kind. */
	private static function refused_value( $kind ) {
		static $too_large = null;
		switch ( $kind ) {
			case 'too large':
				// Random bytes do not compress: one byte more than the ring takes.
				return $too_large ?? ( $too_large = random_bytes( shmcache_info()['max_value_size'] + 1 ) );
			case 'closure in an object':
				$o    = new stdClass();
				$o->f = static function () {
					return 1;
				};
				return $o;
			default:
				return array( 'handle' => fopen( 'php://memory', 'r' ) );
		}
	}

	public function refused_kinds() {
		return array( 'too large' => array( 'too large' ), 'closure in an object' => array( 'closure in an object' ), 'resource in an array' => array( 'resource' ) );
	}

	/** @dataProvider refused_kinds */
	public function test_a_refused_value_never_throws_and_stays_for_the_request( $kind ) {
		global $wp_object_cache;
		$value   = self::refused_value( $kind );
		$refused = $wp_object_cache->refused;
		wp_cache_set( 'r', 'older', 'refused' );
		$this->assertTrue( wp_cache_set( 'r', $value, 'refused' ), 'set returns true, as core does' );
		$this->assertEquals( $value, wp_cache_get( 'r', 'refused', false, $found ) );
		$this->assertTrue( $found );
		$this->assertFalse( $this->next_request()->get( 'r', 'refused' ), 'the older value does not come back' );
		$this->assertSame( $refused + 1, $wp_object_cache->refused );
		$this->assertArrayHasKey( 'refused:r', $wp_object_cache->refused_keys );

		$this->assertTrue( wp_cache_add( 'a', $value, 'refused' ), 'add of an absent key succeeds' );
		$this->assertEquals( $value, wp_cache_get( 'a', 'refused' ) );
		$this->assertFalse( wp_cache_add( 'a', 'again', 'refused' ) );
		wp_cache_set( 'live', 'in shared memory', 'refused' );
		$other = $this->next_request();
		$this->assertFalse( $other->add( 'live', $value, 'refused' ), 'add of a live key fails' );
		$this->assertSame( 'in shared memory', $other->get( 'live', 'refused' ) );

		$this->assertTrue( $other->replace( 'live', $value, 'refused' ), 'replace of a live key succeeds' );
		$this->assertEquals( $value, $other->get( 'live', 'refused' ) );
		$this->assertFalse( $this->next_request()->get( 'live', 'refused' ), 'the replaced value does not come back' );
		$this->assertFalse( $this->next_request()->replace( 'absent', $value, 'refused' ), 'replace of an absent key fails' );
		$this->assertSame( array( 'absent' => true ), $this->next_request()->set_multiple( array( 'absent' => $value ), 'refused' ) );
	}

	public function test_a_refused_key_is_logged_once_and_recorded_for_the_tools_page() {
		$log      = tempnam( sys_get_temp_dir(), 'shmcache-log' );
		$previous = ini_set( 'error_log', $log );
		$key      = 'logged-' . uniqid();
		try {
			$first = $this->next_request();
			$first->set( $key, self::refused_value( 'too large' ), 'refused' );
			$first->set( $key, self::refused_value( 'too large' ), 'refused' );
			$this->next_request()->set( $key, self::refused_value( 'too large' ), 'refused' );
			$this->next_request()->set( $key . '-closure', self::refused_value( 'closure in an object' ), 'refused' );
		} finally {
			ini_set( 'error_log', $previous );
		}
		$lines = file( $log, FILE_IGNORE_NEW_LINES );
		unlink( $log );
		$this->assertCount( 2, $lines, 'one line per refused key' );
		$this->assertStringContainsString( "refused:$key not kept in shared memory", $lines[0] );
		$this->assertStringContainsString( 'raise shmcache.values_memory_size', $lines[0] );
		$this->assertSame( 2, $first->refused, 'each refusal is counted' );
		$recorded = array();
		foreach ( $this->next_request()->refused_values() as $r ) {
			$recorded[ $r['key'] ] = $r;
		}
		$this->assertSame( 'refused', $recorded[ $key ]['group'] );
		$this->assertSame( 'shmcache.values_memory_size', $recorded[ $key ]['setting'] );
		$this->assertSame( '', $recorded[ $key . '-closure' ]['setting'] );
		$this->assertStringContainsString( 'Closure', $recorded[ $key . '-closure' ]['reason'] );
	}

	/**
	 * Autoloaded options too large for shared memory: each request loads them with one query,
	 * as without a drop-in, and every get_option() after that is answered from the request.
	 */
	public function test_alloptions_too_large_for_shared_memory_cost_one_query_per_request() {
		global $wpdb;
		$max = shmcache_info()['max_value_size'];
		$this->assertLessThan( 4 << 20, $max, 'needs a small value ring (scripts/test-wordpress.sh gives -d shmcache.values_memory_size=8M)' );
		$saved = $GLOBALS['wp_object_cache'];
		add_option( 'shmcache_test_huge', base64_encode( random_bytes( $max ) ), '', 'yes' );
		try {
			foreach ( array( 'first request', 'second request' ) as $request ) {
				$GLOBALS['wp_object_cache'] = $this->next_request();
				$queries                    = $wpdb->num_queries;
				$this->assertSame( 'shmcache WP Stack', get_option( 'blogname' ), $request );
				get_option( 'siteurl' );
				$this->assertSame( 4 * (int) ceil( $max / 3 ), strlen( get_option( 'shmcache_test_huge' ) ) );
				get_option( 'home' );
				$this->assertSame( $queries + 1, $wpdb->num_queries, "$request: one query loads the autoloaded options" );
				$this->assertArrayHasKey( 'options:alloptions', $GLOBALS['wp_object_cache']->refused_keys );
			}
		} finally {
			$GLOBALS['wp_object_cache'] = $saved;
			delete_option( 'shmcache_test_huge' );
		}
	}

	public function test_info_splits_hits_between_the_request_and_shared_memory() {
		wp_cache_set( 'i1', 'v', 'info' );
		wp_cache_set( 'i2', 'w', 'info' );
		$cache = $this->next_request();
		$cache->add_non_persistent_groups( array( 'info-local' ) );
		$cache->get( 'i1', 'info' );
		$cache->get( 'i1', 'info' );
		$cache->get( 'i1', 'info' );
		$cache->get_multiple( array( 'i2', 'missing' ), 'info' );
		$cache->get( 'nope', 'info' );
		$cache->get( 'x', 'info-local' );
		$info = $cache->info();
		$this->assertSame( 'shmcache', $info['backend'] );
		$this->assertSame( 4, $info['hits'] );
		$this->assertSame( 3, $info['misses'] );
		$this->assertSame( 2, $info['shared_hits'], 'i1 once, i2' );
		$this->assertSame( 2, $info['request_hits'], 'i1 twice again' );
		$this->assertSame( 2, $info['shared_misses'], 'missing, nope; not the request-only group' );
		$this->assertSame( 0, $info['refused'] );
		$this->assertSame( shmcache_info()['max_value_size'], $info['region']['max_value_size'] );
		$this->assertSame( 'cli', $info['region']['sapi'] );
		$this->assertSame( WP_Object_Cache::site_salt(), $info['salt'] );
	}

	/** Runs PHP code in a new CLI process with the site loaded after the given defines. */
	private static function run_php( $defines, $code ) {
		$script = tempnam( sys_get_temp_dir(), 'shmcache-test' );
		file_put_contents( $script, '<?php ' . $defines . ' require ' . var_export( __DIR__ . '/bootstrap-wp.php', true ) . '; ' . $code );
		$so  = dirname( __DIR__, 2 ) . '/target/release/libshmcache.so';
		$out = shell_exec( escapeshellarg( PHP_BINARY ) . ' -d extension=' . escapeshellarg( $so ) . ' -d shmcache.enable_cli=1 ' . escapeshellarg( $script ) . ' 2>&1' );
		unlink( $script );
		return json_decode( (string) $out, true ) ?? $out;
	}

	public function test_maxttl_caps_every_ttl_and_ignored_groups_stay_in_the_request() {
		$got = self::run_php(
			"define( 'SHMCACHE_MAXTTL', 1 ); define( 'SHMCACHE_IGNORED_GROUPS', array( 'ignored-a', 'ignored-b' ) );",
			'wp_cache_set( "forever", "v", "g" );
			wp_cache_set( "hour", "v", "g", 3600 );
			wp_cache_add( "added", "v", "g" );
			wp_cache_set( "k", "in the request", "ignored-b" );
			$next = new WP_Object_Cache();
			$before = array( $next->get( "forever", "g" ), $next->get( "k", "ignored-b" ), wp_cache_get( "k", "ignored-b" ) );
			sleep( 2 );
			$later = new WP_Object_Cache();
			echo json_encode( array( $before, array( $later->get( "forever", "g" ), $later->get( "hour", "g" ), $later->get( "added", "g" ) ), $later->info()["max_ttl"], $later->info()["ignored_groups"] ) );'
		);
		$this->assertSame(
			array( array( 'v', false, 'in the request' ), array( false, false, false ), 1, array( 'ignored-a', 'ignored-b' ) ),
			$got
		);
	}

	public function test_maxttl_caps_a_numeric_string_rewritten_by_incr() {
		$got = self::run_php(
			"define( 'SHMCACHE_MAXTTL', 2 );",
			'wp_cache_set( "n", "5", "g" );
			$values = array( wp_cache_incr( "n", 1, "g" ), ( new WP_Object_Cache() )->get( "n", "g" ) );
			sleep( 3 );
			$values[] = ( new WP_Object_Cache() )->get( "n", "g" );
			echo json_encode( $values );'
		);
		$this->assertSame( array( 6, 6, false ), $got );
	}

	public function test_info_on_the_fallback() {
		$got = self::run_php(
			"define( 'SHMCACHE_DISABLE', true );",
			'$before = $GLOBALS["wp_object_cache"]->info();
			wp_cache_set( "k", "v" );
			wp_cache_get( "k" );
			wp_cache_get( "absent" );
			echo json_encode( array( $before, $GLOBALS["wp_object_cache"]->info() ) );'
		);
		[ $before, $after ] = $got;
		$this->assertSame( 'per-request', $after['backend'] );
		$this->assertSame( 'SHMCACHE_DISABLE is set in wp-config.php', $after['reason'] );
		$this->assertNull( $after['region'] );
		$counts = static function ( $info ) {
			return array( $info['hits'], $info['misses'], $info['request_hits'], $info['shared_hits'], $info['shared_misses'] );
		};
		$this->assertSame( array( 0, 0 ), array( $before['shared_hits'], $before['shared_misses'] ), 'WordPress loaded without shared memory' );
		$this->assertSame( array( 1, 1, 1, 0, 0 ), array_map( static fn ( $a, $b ) => $a - $b, $counts( $after ), $counts( $before ) ) );
	}

	public function test_supports_lists_what_is_implemented() {
		foreach ( array( 'add_multiple', 'set_multiple', 'get_multiple', 'delete_multiple', 'flush_runtime', 'flush_group' ) as $feature ) {
			$this->assertTrue( wp_cache_supports( $feature ), $feature );
		}
		$this->assertFalse( wp_cache_supports( 'time_travel' ) );
		$this->assertTrue( wp_cache_close() );
	}

	public function test_instances_share_the_backend() {
		$a = new WP_Object_Cache();
		$b = new WP_Object_Cache();
		$a->set( 'shared', array( 1, 2, 3 ), 'g' );
		$this->assertSame( array( 1, 2, 3 ), $b->get( 'shared', 'g' ) );
	}

	public function test_long_keys_are_stored() {
		$key = str_repeat( 'k', 10000 );
		$this->assertTrue( wp_cache_set( $key, 'long' ) );
		$this->assertSame( 'long', $this->next_request()->get( $key ) );
		$this->assertFalse( $this->next_request()->get( str_repeat( 'k', 9999 ) ) );
	}

	/** Keys near the length above which keys are stored hashed: set() and the next request's get() agree. */
	public function test_keys_around_the_hashing_length_are_found_by_the_next_request() {
		foreach ( array( 3999, 4000, 4001 ) as $length ) {
			$key = str_repeat( 'b', $length );
			$this->assertTrue( wp_cache_set( $key, "len $length", 'edge' ) );
			$this->assertSame( "len $length", $this->next_request()->get( $key, 'edge' ), "key of $length bytes" );
		}
		// On multisite the blog prefix counts towards the length.
		$on_blog_2 = function () {
			$cache = $this->next_request();
			Closure::bind( function () { $this->multisite = true; }, $cache, WP_Object_Cache::class )();
			$cache->switch_to_blog( 2 );
			return $cache;
		};
		foreach ( array( 3997, 3998, 3999 ) as $length ) {
			$key = str_repeat( 'm', $length );
			$this->assertTrue( $on_blog_2()->set( $key, "blog 2, len $length", 'edge' ) );
			$this->assertSame( "blog 2, len $length", $on_blog_2()->get( $key, 'edge' ), "key of $length bytes on blog 2" );
		}
	}

	public function test_expiry_is_applied_in_shared_memory() {
		wp_cache_set( 'ttl', 'v', '', 1 );
		sleep( 2 );
		$this->assertFalse( $this->next_request()->get( 'ttl' ) );
	}

	public function test_core_functions_work_on_top_of_it() {
		update_option( 'shmcache_test_option', array( 'x' => 1 ) );
		$this->assertSame( array( 'x' => 1 ), get_option( 'shmcache_test_option' ) );
		set_transient( 'shmcache_t', 'tv', 60 );
		$this->assertSame( 'tv', get_transient( 'shmcache_t' ) );
		$this->assertFalse( get_option( '_transient_shmcache_t' ), 'transients live in the object cache, not the options table' );
		$post_id = wp_insert_post( array( 'post_title' => 'Cached', 'post_status' => 'publish' ) );
		$this->assertSame( 'Cached', get_post( $post_id )->post_title );
		wp_update_post( array( 'ID' => $post_id, 'post_title' => 'Edited' ) );
		$this->assertSame( 'Edited', get_post( $post_id )->post_title );
		$this->assertSame( 'Edited', $this->next_request()->get( $post_id, 'posts' )->post_title );
		wp_delete_post( $post_id, true );
		delete_option( 'shmcache_test_option' );
	}

	public function test_stats_prints_hits_and_misses() {
		wp_cache_get( 'nothing-here' );
		ob_start();
		$GLOBALS['wp_object_cache']->stats();
		$out = ob_get_clean();
		$this->assertStringContainsString( 'Cache Hits', $out );
		$this->assertStringContainsString( 'shmcache', $out );
	}
}

/** A cache object for another site (other salt) in the same shared memory. */
function shmcache_other_site_cache( $salt ) {
	$cache = new WP_Object_Cache();
	$set   = Closure::bind(
		function ( $salt ) {
			$this->salt = $salt;
			$this->load_site_prefix();
		},
		$cache,
		WP_Object_Cache::class
	);
	$set( $salt );
	return $cache;
}

/** A value that records, when it is encoded, whether "first" of its group is in shared memory. */
final class ShmcacheBatchSpy {
	public static $seen = array();
	private $group;

	public function __construct( $group ) {
		$this->group  = $group;
		self::$seen = array();
	}

	public function __serialize(): array {
		self::$seen[] = ( new WP_Object_Cache() )->get( 'first', $this->group );
		return array( 'group' => $this->group );
	}

	public function __unserialize( array $data ): void {
		$this->group = $data['group'];
	}
}
