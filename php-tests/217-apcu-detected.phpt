--TEST--
shmcache.apcu_compat=1: applications that look for the APCu extension find it (extension_loaded, phpversion passing Nextcloud's check, php -m, phpinfo, ReflectionExtension); without the setting, or with APCu itself loaded, nothing changes
--FILE--
<?php
require __DIR__ . '/inc/common.inc';
// Nextcloud's OC\Memcache\APCu::isAvailable() (nextcloud/server, lib/private/Memcache/APCu.php),
// its four conditions as the source states them, with ini_get for its IniGetWrapper::getBool.
$check = <<<'PHP'
$cli = PHP_SAPI === 'cli';
$ok = extension_loaded('apcu')
    && filter_var(ini_get('apc.enabled'), FILTER_VALIDATE_BOOL)
    && !(!filter_var(ini_get('apc.enable_cli'), FILTER_VALIDATE_BOOL) && $cli)
    && version_compare(phpversion('apcu') ?: '0.0.0', '5.1.0') !== -1;
echo "nextcloud: ", $ok ? "available" : "unavailable", "\n";
echo "loaded: ", var_export(extension_loaded('apcu'), true), "\n";
echo "listed: ", var_export(in_array('apcu', get_loaded_extensions(), true), true), "\n";
$v = phpversion('apcu');
echo "version: ", var_export($v, true), "\n";
if ($v !== false) {
    $r = new ReflectionExtension('apcu');
    echo "reflection: ", $r->getName(), " ", $r->getVersion() === $v ? "same version" : "other version", "\n";
    ob_start();
    phpinfo(INFO_MODULES);
    $info = ob_get_clean();
    echo "phpinfo: ", preg_match('/^apcu$/m', $info) ? "section" : "no section", ", ",
        preg_match('/^Provided by => shmcache /m', $info) ? "provided by shmcache" : "provider not shown", "\n";
}
echo "fetch: ", function_exists('apcu_fetch') ? (new ReflectionFunction('apcu_fetch'))->getExtensionName() : "absent", "\n";
PHP;

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

echo "-- compat on, with APCu itself loaded: APCu's own entry, no second one\n";
[$out, $code] = shm_run(['extension=apcu.so', 'apc.enable_cli=1', 'shmcache.enable_cli=1', 'shmcache.apcu_compat=1'], $check);
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
-- compat on, with APCu itself loaded: APCu's own entry, no second one
%AWarning: PHP Startup: shmcache: shmcache.apcu_compat=1 is ignored because the APCu extension is loaded%A
nextcloud: available
loaded: true
listed: true
version: '%s'
reflection: apcu same version
phpinfo: section, provider not shown
fetch: apcu
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
