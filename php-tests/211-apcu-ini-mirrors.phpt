--TEST--
shmcache.apcu_compat=1 makes apc.enabled / apc.enable_cli readable, mirroring shmcache.enable / shmcache.enable_cli (APCu clients check them); other values are refused with a warning; without apcu_compat they do not exist
--FILE--
<?php
require __DIR__ . '/inc/common.inc';
$show = 'var_dump(ini_get("apc.enabled"), ini_get("apc.enable_cli"), ini_set("apc.enable_cli", "0"), filter_var(ini_get("apc.enabled"), FILTER_VALIDATE_BOOLEAN) && function_exists("apcu_fetch"));';

echo "-- compat, CLI enabled\n";
[$out, $code] = shm_run(['shmcache.enable_cli=1', 'shmcache.apcu_compat=1'], $show);
echo $out, "exit $code\n";

echo "-- compat, CLI not enabled\n";
[$out, $code] = shm_run(['shmcache.apcu_compat=1'], $show);
echo $out, "exit $code\n";

echo "-- compat, shmcache.enable=0\n";
[$out, $code] = shm_run(['shmcache.enable=0', 'shmcache.apcu_compat=1'], $show);
echo $out, "exit $code\n";

echo "-- compat, apc.* values that agree (On) and that do not\n";
[$out, $code] = shm_run(['shmcache.enable_cli=1', 'shmcache.apcu_compat=1', 'apc.enabled=On', 'apc.enable_cli=0'], $show);
echo $out, "exit $code\n";

echo "-- no compat\n";
[$out, $code] = shm_run(['shmcache.enable_cli=1'], 'var_dump(ini_get("apc.enabled"), ini_get("apc.enable_cli"));');
echo $out, "exit $code\n";
?>
--EXPECT--
-- compat, CLI enabled
string(1) "1"
string(1) "1"
bool(false)
bool(true)
exit 0
-- compat, CLI not enabled
string(1) "1"
string(1) "0"
bool(false)
bool(true)
exit 0
-- compat, shmcache.enable=0
string(1) "0"
string(1) "0"
bool(false)
bool(false)
exit 0
-- compat, apc.* values that agree (On) and that do not

Warning: PHP Startup: shmcache: apc.enable_cli=0 is ignored: with shmcache.apcu_compat=1 it follows shmcache.enable_cli (which is 1) in Unknown on line 0
string(1) "1"
string(1) "1"
bool(false)
bool(true)
exit 0
-- no compat
bool(false)
bool(false)
exit 0
