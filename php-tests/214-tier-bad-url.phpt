--TEST--
Tiered mode with an address that is neither unix:// nor tcp://: logged naming it (not a warning), and the cache is not used
--INI--
shmcache.redis=redis://127.0.0.1:6379
--FILE--
<?php
$log = sys_get_temp_dir() . '/shmcache-214-' . getmypid() . '.log';
@unlink($log);
ini_set('error_log', $log);
set_error_handler(function ($no, $message) { throw new ErrorException($message, 0, $no); });
var_dump(shmcache_set('k', 'v'));
var_dump(shmcache_get('k'));
var_dump(shmcache_info()['tier_error']);
$lines = file_exists($log) ? file($log, FILE_IGNORE_NEW_LINES) : [];
echo count($lines), " line(s) logged\n";
echo preg_replace('/^\[[^\]]*\] /', '', $lines[0] ?? ''), "\n";
@unlink($log);
?>
--EXPECT--
bool(false)
bool(false)
string(72) "shmcache.redis: redis://127.0.0.1:6379 must start with unix:// or tcp://"
1 line(s) logged
shmcache.redis: redis://127.0.0.1:6379 must start with unix:// or tcp://
