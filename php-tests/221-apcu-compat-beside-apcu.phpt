--TEST--
shmcache.apcu_compat=1 beside a loaded APCu extension: refused with a startup warning, APCu keeps its apcu_* functions and APCUIterator, shmcache's own functions still work, and applications that look for the extension find APCu's own entry, no second one
--SKIPIF--
<?php
// Skipped only where this PHP has no APCu to load (Debian ships none for PHP 8.5 and 8.6);
// scripts/test.sh installs it for 8.2, where a skip counts as a failure.
require __DIR__ . '/inc/common.inc';
[$out] = shm_run(['extension=apcu.so'], 'echo extension_loaded("apcu") ? "APCu loaded" : "no APCu";');
if (!str_contains($out, 'APCu loaded')) {
    echo 'skip APCu is not available for PHP ', PHP_MAJOR_VERSION, '.', PHP_MINOR_VERSION;
}
?>
--FILE--
<?php
require __DIR__ . '/inc/common.inc';
$list = 'foreach ([\'apcu_fetch\', \'apcu_store\', \'apcu_add\', \'apcu_delete\', \'apcu_exists\', \'apcu_inc\', \'apcu_dec\', \'apcu_cas\', \'apcu_entry\', \'apcu_clear_cache\', \'apcu_cache_info\', \'apcu_sma_info\', \'apcu_key_info\', \'apcu_enabled\'] as $f) echo $f, "=", function_exists($f) ? (new ReflectionFunction($f))->getExtensionName() : "absent", " "; echo "APCUIterator=", class_exists("APCUIterator") ? (new ReflectionClass("APCUIterator"))->getExtensionName() : "absent", " ";';
[$out, $code] = shm_run(['extension=apcu.so', 'apc.enable_cli=1', 'shmcache.enable_cli=1', 'shmcache.apcu_compat=1'], $list . ' echo "\n", var_export(shmcache_set("still", "works"), true), "\n";');
echo $out, "exit $code\n";

// What applications that look for the extension see (217 without APCu): APCu's own entry, no
// second one from shmcache.
echo "-- detection\n";
[$out, $code] = shm_run(['extension=apcu.so', 'apc.enable_cli=1', 'shmcache.enable_cli=1', 'shmcache.apcu_compat=1'], require __DIR__ . '/inc/apcu-detection.inc');
echo $out, "exit $code\n";
?>
--EXPECTF--

Warning: PHP Startup: shmcache: shmcache.apcu_compat=1 is ignored because the APCu extension is loaded; remove extension=apcu.so to serve the apcu_* functions from shmcache in Unknown on line 0
apcu_fetch=apcu apcu_store=apcu apcu_add=apcu apcu_delete=apcu apcu_exists=apcu apcu_inc=apcu apcu_dec=apcu apcu_cas=apcu apcu_entry=apcu apcu_clear_cache=apcu apcu_cache_info=apcu apcu_sma_info=apcu apcu_key_info=apcu apcu_enabled=apcu APCUIterator=apcu 
true
exit 0
-- detection
%AWarning: PHP Startup: shmcache: shmcache.apcu_compat=1 is ignored because the APCu extension is loaded%A
nextcloud: available
loaded: true
listed: true
version: '%s'
reflection: apcu same version
phpinfo: section, provider not shown
fetch: apcu
exit 0
