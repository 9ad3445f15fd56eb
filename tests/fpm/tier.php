<?php
// One request of scripts/test-tier.sh, served by PHP-FPM with shmcache.redis set (or, in pool
// cplain, without it).
// ?op=get|set|sleepset|add|delete|flush|nsflush|incr|info &k=KEY &v=VALUE &ms=MS; prints one line
// "RESULT <json>".
$op = $_GET['op'] ?? 'info';
$k  = $_GET['k'] ?? 'k';
$v  = $_GET['v'] ?? '';
$r  = ['pid' => getmypid()];
set_error_handler(function ($no, $msg) use (&$r) {
	$r['warnings'][] = $msg;
	return true;
});
switch ($op) {
	case 'get':
		$r['value'] = shmcache_get($k, $found);
		$r['found'] = $found;
		break;
	case 'set':
		$r['ok'] = shmcache_set($k, $v, (int) ($_GET['ttl'] ?? 0));
		break;
	case 'sleepset':
		usleep((int) ($_GET['ms'] ?? 0) * 1000);
		$r['ok'] = shmcache_set($k, $v);
		break;
	case 'add':
		$r['ok'] = shmcache_add($k, $v);
		break;
	case 'delete':
		$r['ok'] = shmcache_delete($k);
		break;
	case 'incr':
		$r['value'] = shmcache_incr($k, (int) $v);
		break;
	case 'flush':
		$r['ok'] = shmcache_flush();
		break;
	case 'midfail':
		// Trusted, then Redis fails in the middle of the request: the rest of it must not read
		// the near copy. CLIENT PAUSE ... WRITE holds the write script past the read timeout.
		$r['before'] = shmcache_get($k);
		$redis = stream_socket_client(ini_get('shmcache.redis'));
		fwrite($redis, "*4\r\n\$6\r\nCLIENT\r\n\$5\r\nPAUSE\r\n\$3\r\n600\r\n\$5\r\nWRITE\r\n");
		$r['pause'] = trim((string) fgets($redis));
		$r['ok'] = shmcache_set($k, 'during-the-failure');
		$r['value'] = shmcache_get($k, $found);
		$r['found'] = $found;
		usleep(700000);
		break;
	case 'nsget':
		$r['value'] = ( new ShmCache( $_GET['ns'] ) )->get($k, $found);
		$r['found'] = $found;
		break;
	case 'nsset':
		$r['ok'] = ( new ShmCache( $_GET['ns'] ) )->set($k, $v);
		break;
	case 'nsflush':
		$r['ok'] = ( new ShmCache( $_GET['ns'] ) )->flush();
		break;
}
$info = shmcache_info();
foreach ($info as $name => $value) {
	if (strncmp($name, 'tier_', 5) === 0) {
		$r[$name] = $value;
	}
}
echo 'RESULT ', json_encode($r), "\n";
