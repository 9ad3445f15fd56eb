--TEST--
Tiered mode: reads of the near copy keep their hit counts in the process like plain gets (a killed child's reach the region in batches of 64, a child that ends adds the rest)
--SKIPIF--
<?php if (!is_executable(trim((string) shell_exec('command -v redis-server')))) die('skip redis-server not found'); ?>
--FILE--
<?php
require __DIR__ . '/inc/common.inc';
$dir = sys_get_temp_dir() . '/shmcache-237-' . getmypid();
@mkdir($dir, 0700);
$sock = "$dir/redis.sock";
$redis = proc_open(['redis-server', '--port', '0', '--save', '', '--appendonly', 'no', '--unixsocket', $sock],
    [0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', '/dev/null', 'w']], $pipes);
for ($i = 0; $i < 500 && !file_exists($sock); $i++) usleep(10000);
$tiered = ['shmcache.enable_cli=1', "shmcache.redis=unix://$sock",
    'shmcache.redis_connect_timeout=1000', 'shmcache.redis_read_timeout=1000'];
$worker = 'require ' . var_export(__DIR__ . '/inc/common.inc', true) . ';
  var_dump(shmcache_set("k", "v"));
  var_dump(shmcache_get("k"));
  $base = shmcache_info();
  $near = $base["tier_near_hits"];
  for ($i = 0; $i < 3; $i++) shmcache_get("k");
  echo "own: ", shmcache_info()["hits"] - $base["hits"], ", near hits: ", shmcache_info()["tier_near_hits"] - $near, "\n";
  $codes = shm_fork_all(1, function () {
      for ($i = 0; $i < 100; $i++) shmcache_get("k") === "v" || exit(10);
      shell_exec("kill -KILL " . getmypid()); sleep(10);
      return 12;
  });
  echo "after a killed child: ", shmcache_info()["hits"] - $base["hits"], "\n";
  $codes = shm_fork_all(1, function () {
      for ($i = 0; $i < 5; $i++) shmcache_get("k") === "v" || exit(10);
      return 0;
  });
  echo "child: {$codes[0]}; after it: ", shmcache_info()["hits"] - $base["hits"], "\n";';
echo shm_run($tiered, $worker)[0];
proc_terminate($redis);
proc_close($redis);
@unlink($sock);
@rmdir($dir);
?>
--EXPECT--
bool(true)
string(1) "v"
own: 3, near hits: 3
after a killed child: 67
child: 0; after it: 72
