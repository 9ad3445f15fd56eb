--TEST--
In tiered mode a step back of the wall clock in the middle of a request (a CLI script, a worker loop) stops its near reads at once: the per-process clock check sends the next get to the tier, which empties the near copy, so a value Redis has expired is not served (resync interval off, so nothing else would make it ask)
--SKIPIF--
<?php if (!is_executable(trim((string) shell_exec('command -v redis-server')))) die('skip redis-server not found'); ?>
--FILE--
<?php
require __DIR__ . '/inc/common.inc';
$dir = sys_get_temp_dir() . '/shmcache-223-' . getmypid();
@mkdir($dir, 0700);
$sock = "$dir/redis.sock";
$redis = proc_open(['redis-server', '--port', '0', '--save', '', '--appendonly', 'no', '--unixsocket', $sock],
    [0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', '/dev/null', 'w']], $pipes);
for ($i = 0; $i < 500 && !file_exists($sock); $i++) usleep(10000);
// The process reads the wall clock 60 s ahead for its first second, then steps back to the true time.
$tiered = ['shmcache.enable_cli=1', "shmcache.redis=unix://$sock", 'shmcache.redis_resync_interval=0',
    'shmcache.redis_connect_timeout=1000', 'shmcache.redis_read_timeout=1000',
    'shmcache.test_hook_clock_ahead=60000', 'shmcache.test_hook_clock_step_back_after=1000'];
$worker = '
  var_dump(shmcache_set("short", "v", 2));   // a near copy that dies 62 s from now, true time
  var_dump(shmcache_get("short"));           // a near hit
  $hits = shmcache_info()["tier_near_hits"];
  $resets = shmcache_info()["tier_near_flushes"];
  sleep(3);                                  // the clock stepped back at 1 s; Redis expired the key at 2 s
  var_dump(shmcache_get("short"));
  echo "near hits since: ", shmcache_info()["tier_near_hits"] - $hits, "\n";
  echo "near copy reset: ", shmcache_info()["tier_near_flushes"] > $resets ? "yes" : "no", "\n";';
echo shm_run($tiered, $worker)[0];
proc_terminate($redis);
proc_close($redis);
@unlink($sock);
@rmdir($dir);
?>
--EXPECT--
bool(true)
string(1) "v"
bool(false)
near hits since: 0
near copy reset: yes
