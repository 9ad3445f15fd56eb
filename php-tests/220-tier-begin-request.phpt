--TEST--
shmcache_begin_request() starts a new logical request in a long-lived worker: in tiered mode it syncs at once, so another server's write that returned before it is read after it, even with the resync interval off (a worker loop is one PHP request)
--SKIPIF--
<?php if (!is_executable(trim((string) shell_exec('command -v redis-server')))) die('skip redis-server not found'); ?>
--FILE--
<?php
require __DIR__ . '/inc/common.inc';
$dir = sys_get_temp_dir() . '/shmcache-220-' . getmypid();
@mkdir($dir, 0700);
$sock = "$dir/redis.sock";
$redis = proc_open(['redis-server', '--port', '0', '--save', '', '--appendonly', 'no', '--unixsocket', $sock],
    [0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', '/dev/null', 'w']], $pipes);
for ($i = 0; $i < 500 && !file_exists($sock); $i++) usleep(10000);
// Each CLI process has a region of its own: two processes stand for two servers.
$tiered = ['shmcache.enable_cli=1', "shmcache.redis=unix://$sock", 'shmcache.redis_resync_interval=0',
    'shmcache.redis_connect_timeout=1000', 'shmcache.redis_read_timeout=1000'];
$worker = 'require ' . var_export(__DIR__ . '/inc/common.inc', true) . ';
  $tiered = ' . var_export($tiered, true) . ';
  echo shm_run($tiered, "var_dump(shmcache_set(\"k\", \"v1\"));")[0];
  var_dump(shmcache_get("k"));                       // a near copy of v1 from here on
  echo shm_run($tiered, "var_dump(shmcache_set(\"k\", \"v2\"));")[0];
  var_dump(shmcache_get("k"));                       // the same logical request: its own view
  var_dump(shmcache_begin_request());                // the next one: synced now
  var_dump(shmcache_get("k"));
  echo "near hits: ", shmcache_info()["tier_near_hits"], "\n";';
echo shm_run($tiered, $worker)[0];
proc_terminate($redis);
proc_close($redis);
@unlink($sock);
@rmdir($dir);
?>
--EXPECT--
bool(true)
string(2) "v1"
bool(true)
string(2) "v1"
bool(true)
string(2) "v2"
near hits: 1
