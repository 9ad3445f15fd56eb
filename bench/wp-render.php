<?php
// One front-end page rendered by WordPress in the CLI, for bench/wp-instructions.sh: the page of
// $argv[1] on the wp-stack site (WP_STACK_HOST), its HTML discarded; prints the number of SQL
// queries and whether an external object cache was in use, to stderr.
$_SERVER['REQUEST_URI'] = $argv[1];
define( 'WP_USE_THEMES', true );
define( 'SAVEQUERIES', false );
require dirname( __DIR__ ) . '/wordpress/tests/bootstrap-wp.php';
ob_start( static function () {
	return '';
} );
wp();
require ABSPATH . WPINC . '/template-loader.php';
ob_end_flush();
fwrite( STDERR, sprintf( "queries=%d ext=%d class=%s\n", get_num_queries(), wp_using_ext_object_cache() ? 1 : 0, get_class( $GLOBALS['wp_object_cache'] ) ) );
