<?php
// One run of bench/set.sh: the object-cache drop-in given as $argv[1], loaded outside
// WordPress, calls set() $argv[2] times with a short string, then with a small array (1,024
// distinct keys, the same cache object, as a page's sets run). With $argv[3] (scalar or array)
// only that value. Prints "scalar <ns per call> array <ns per call>".
define( 'ABSPATH', __DIR__ . '/' );
define( 'WP_CACHE_KEY_SALT', 'bench-set' );
function wp_suspend_cache_addition() {
	return false;
}
require $argv[1];
$calls  = (int) $argv[2];
$values = array(
	'scalar' => 'a short option value',
	'array'  => array( 'meta_key' => 'key', 'meta_value' => str_repeat( 'v', 40 ), 'id' => 7 ),
);
if ( isset( $argv[3] ) ) {
	$values = array( $argv[3] => $values[ $argv[3] ] );
}
$cache = new WP_Object_Cache();
$out   = array();
foreach ( $values as $name => $value ) {
	$start = hrtime( true );
	for ( $i = 0; $i < $calls; $i++ ) {
		$cache->set( 'k' . ( $i & 1023 ), $value, 'bench' );
	}
	$out[] = sprintf( '%s %.1f', $name, ( hrtime( true ) - $start ) / $calls );
}
echo implode( ' ', $out ), "\n";
