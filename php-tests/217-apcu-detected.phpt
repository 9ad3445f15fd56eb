--TEST--
shmcache.apcu_compat=1: applications that look for the APCu extension find it (extension_loaded, phpversion passing Nextcloud's check, php -m, phpinfo, ReflectionExtension); without the setting nothing changes (with APCu itself loaded: 221)
--FILE--
<?php
require __DIR__ . '/inc/common.inc';
$check = require __DIR__ . '/inc/apcu-detection.inc';

echo "-- compat on\n";
[$out, $code] = shm_run(['shmcache.enable_cli=1', 'shmcache.apcu_compat=1'], $check);
echo $out, "exit $code\n";

echo "-- compat on, php -m\n";
$p = proc_open([shm_php(), '-n', '-d', 'extension=' . shm_so(), '-d', 'shmcache.enable_cli=1', '-d', 'shmcache.apcu_compat=1', '-m'],
    [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['redirect', 1]], $pipes);
$m = stream_get_contents($pipes[1]);
fclose($pipes[1]);
proc_close($p);
echo in_array('apcu', explode("\n", $m), true) ? "apcu listed" : "apcu not listed", "\n";

echo "-- compat off\n";
[$out, $code] = shm_run(['shmcache.enable_cli=1'], $check);
echo $out, "exit $code\n";

echo "-- compat on, shmcache disabled in the CLI\n";
[$out, $code] = shm_run(['shmcache.apcu_compat=1'], $check);
echo $out, "exit $code\n";
?>
--EXPECTF--
-- compat on
nextcloud: available
loaded: true
listed: true
version: '5.1.22'
reflection: apcu same version
phpinfo: section, provided by shmcache
fetch: shmcache
exit 0
-- compat on, php -m
apcu listed
-- compat off
nextcloud: unavailable
loaded: false
listed: false
version: false
fetch: absent
exit 0
-- compat on, shmcache disabled in the CLI
nextcloud: unavailable
loaded: true
listed: true
version: '5.1.22'
reflection: apcu same version
phpinfo: section, provided by shmcache
fetch: shmcache
exit 0
