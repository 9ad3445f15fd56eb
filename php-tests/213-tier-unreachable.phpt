--TEST--
Tiered mode with Redis unreachable: gets miss, writes fail, bounded time, counters; the failure goes to the error log (once), never through the error handler
--INI--
shmcache.redis=unix:///nonexistent/shmcache-test.sock
shmcache.redis_connect_timeout=20
--FILE--
<?php
$log = sys_get_temp_dir() . '/shmcache-213-' . getmypid() . '.log';
@unlink($log);
ini_set('error_log', $log);
// A framework that turns warnings into exceptions would fail the request on one.
set_error_handler(function ($no, $message) { throw new ErrorException($message, 0, $no); });
$t = microtime(true);
var_dump(shmcache_set('k', 'v'));
var_dump(shmcache_get('k', $found), $found);
var_dump(shmcache_add('k', 1), shmcache_incr('n'), shmcache_delete('k'), shmcache_flush());
var_dump((new ShmCache('ns'))->generation());
var_dump(microtime(true) - $t < 1.0);
$info = shmcache_info();
var_dump($info['tier_redis'], $info['tier_untrusted_requests'], $info['tier_redis_errors'] >= 1, $info['tier_near_hits']);
echo $info['tier_last_error'], "\n";
$lines = file_exists($log) ? file($log, FILE_IGNORE_NEW_LINES) : [];
echo count($lines), " line(s) logged\n";
echo preg_replace('/^\[[^\]]*\] /', '', $lines[0] ?? ''), "\n";
@unlink($log);
?>
--EXPECTF--
bool(false)
bool(false)
bool(false)
bool(false)
bool(false)
bool(false)
bool(false)
int(0)
bool(true)
string(38) "unix:///nonexistent/shmcache-test.sock"
int(1)
bool(true)
int(0)
shmcache: Redis at unix:///nonexistent/shmcache-test.sock failed (%s); this request does not use the near cache
1 line(s) logged
shmcache: Redis at unix:///nonexistent/shmcache-test.sock failed (%s); this request does not use the near cache
