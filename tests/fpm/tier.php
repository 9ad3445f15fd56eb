<?php
// One request of scripts/test-tier.sh, served by PHP-FPM with shmcache.redis set.
// ?op=get|set|add|delete|flush|nsflush|incr|info &k=KEY &v=VALUE; prints one line "RESULT <json>".
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
