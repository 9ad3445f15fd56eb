--TEST--
shmcache.apcu_compat=1 registers the 14 apcu_* functions and APCUIterator (PHP_INI_SYSTEM); an invalid value fails startup (beside a loaded APCu: 217)
--FILE--
<?php
require __DIR__ . '/inc/common.inc';
$list = 'foreach ([\'apcu_fetch\', \'apcu_store\', \'apcu_add\', \'apcu_delete\', \'apcu_exists\', \'apcu_inc\', \'apcu_dec\', \'apcu_cas\', \'apcu_entry\', \'apcu_clear_cache\', \'apcu_cache_info\', \'apcu_sma_info\', \'apcu_key_info\', \'apcu_enabled\'] as $f) echo $f, "=", function_exists($f) ? (new ReflectionFunction($f))->getExtensionName() : "absent", " "; echo "APCUIterator=", class_exists("APCUIterator") ? (new ReflectionClass("APCUIterator"))->getExtensionName() : "absent", " ";';

echo "-- on\n";
[$out, $code] = shm_run(['shmcache.enable_cli=1', 'shmcache.apcu_compat=1'], $list . ' echo "\n", ini_get("shmcache.apcu_compat"), " ", var_export(ini_set("shmcache.apcu_compat", "0"), true), "\n";');
echo $out, "exit $code\n";

echo "-- invalid value\n";
[$out, $code] = shm_run(['shmcache.enable_cli=1', 'shmcache.apcu_compat=maybe'], 'echo extension_loaded("shmcache") ? "loaded" : "not loaded", "\n";');
echo $out, "exit $code\n";

echo "-- off by value\n";
[$out, $code] = shm_run(['shmcache.enable_cli=1', 'shmcache.apcu_compat=off'], 'var_dump(function_exists("apcu_fetch"));');
echo $out, "exit $code\n";
?>
--EXPECT--
-- on
apcu_fetch=shmcache apcu_store=shmcache apcu_add=shmcache apcu_delete=shmcache apcu_exists=shmcache apcu_inc=shmcache apcu_dec=shmcache apcu_cas=shmcache apcu_entry=shmcache apcu_clear_cache=shmcache apcu_cache_info=shmcache apcu_sma_info=shmcache apcu_key_info=shmcache apcu_enabled=shmcache APCUIterator=shmcache 
1 false
exit 0
-- invalid value

Warning: PHP Startup: shmcache: invalid value "maybe" for shmcache.apcu_compat: expected On or Off in Unknown on line 0

Fatal error: Unable to start shmcache module in Unknown on line 0
exit 254
-- off by value
bool(false)
exit 0
