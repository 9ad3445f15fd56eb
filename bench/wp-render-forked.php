<?php
// One front-end page rendered $argv[2] times by WordPress, each time in a fresh child process
// forked from this one, one child after the other: for bench/wp-instructions.sh. The children
// share what this process mapped before forking, as PHP-FPM's workers share their master's:
// OPcache's shared memory (so a script compiled by one child is not compiled again) and an
// extension's anonymous shared memory (APCu's, or shmcache's region with shmcache.enable_cli),
// so the caches the first children fill are warm for the last, which is the one counted.
// Prints each child's process id on stdout, one per line, in order.
//   php wp-render-forked.php PATH RENDERS
[ , $path, $renders ] = $argv + [ null, '/', '4' ];
for ( $i = 0; $i < (int) $renders; $i++ ) {
	$pid = pcntl_fork();
	if ( $pid === -1 ) {
		fwrite( STDERR, "fork failed\n" );
		exit( 1 );
	}
	if ( $pid === 0 ) {
		$argv = [ __DIR__ . '/wp-render.php', $path ];
		require __DIR__ . '/wp-render.php';
		exit( 0 );
	}
	echo $pid, "\n";
	pcntl_waitpid( $pid, $status );
	if ( ! pcntl_wifexited( $status ) || pcntl_wexitstatus( $status ) !== 0 ) {
		fwrite( STDERR, "render $i failed\n" );
		exit( 1 );
	}
}
