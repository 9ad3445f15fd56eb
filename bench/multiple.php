<?php
// One round of bench/multiple.sh: the object-cache drop-in given as $argv[1], loaded outside
// WordPress, its set_multiple/get_multiple/delete_multiple of KEYS keys timed for $argv[2]
// seconds each. Prints "set_multiple <us per call> get_multiple <us> delete_multiple <us>".
define( 'ABSPATH', __DIR__ . '/' );
define( 'WP_CACHE_KEY_SALT', 'bench-multiple' );
function wp_suspend_cache_addition() {
	return false;
}
require $argv[1];
$seconds = (float) $argv[2];
$keys    = (int) ( $argv[3] ?? 50 );
$data    = array();
for ( $i = 0; $i < $keys; $i++ ) {
	$data[ "post_meta_$i" ] = array( 'meta_key' => "key $i", 'meta_value' => str_repeat( 'v', 40 ), 'id' => $i );
}
$names = array_keys( $data );
// Each call runs on a new cache object (an empty request layer), as in a new request, so the
// reads go to shared memory and the deletes find the keys there.
$time = static function ( $op ) use ( $seconds, $data, $names ) {
	$spent = 0.0;
	$calls = 0;
	$start = hrtime( true );
	while ( ( hrtime( true ) - $start ) / 1e9 < $seconds ) {
		$setup = new WP_Object_Cache();
		if ( 'set_multiple' !== $op ) {
			$setup->set_multiple( $data, 'bench' );
			$setup = new WP_Object_Cache();
		}
		$t = hrtime( true );
		if ( 'set_multiple' === $op ) {
			$setup->set_multiple( $data, 'bench' );
		} elseif ( 'get_multiple' === $op ) {
			$setup->get_multiple( $names, 'bench' );
		} else {
			$setup->delete_multiple( $names, 'bench' );
		}
		$spent += hrtime( true ) - $t;
		$calls++;
	}
	return $spent / $calls / 1000;
};
$out = array();
foreach ( array( 'set_multiple', 'get_multiple', 'delete_multiple' ) as $op ) {
	$out[] = sprintf( '%s %.2f', $op, $time( $op ) );
}
echo implode( ' ', $out ), "\n";
