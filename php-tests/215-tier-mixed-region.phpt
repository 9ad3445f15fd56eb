--TEST--
A process without shmcache.redis stays out of a region that tiered processes use: it misses, its writes are refused, it says why; before any tiered process, and in a region of its own, it works
--FILE--
<?php
require __DIR__ . '/inc/common.inc';
$dir = sys_get_temp_dir() . '/shmcache-215-' . getmypid();
@mkdir($dir, 0700);
$base = ['shmcache.enable_cli=1', 'shmcache.keys_memory_size=1M', 'shmcache.values_memory_size=8M'];
$shared = array_merge($base, ["shmcache.region=$dir/shared"]);
$tiered = array_merge($shared, ['shmcache.redis=unix:///nonexistent/shmcache-215.sock', 'shmcache.redis_connect_timeout=20']);
$probe = 'set_error_handler(function ($n, $m) { echo "handler: $m\n"; return true; });
  var_dump(shmcache_get("k"), shmcache_set("k", "mine"), shmcache_get("k"));
  echo "tier_error: ", shmcache_info()["tier_error"] ?? "(none)", "\n";';

echo "-- alone, before any tiered process\n";
echo shm_run($shared, 'var_dump(shmcache_set("k", "alone"), shmcache_get("k"));')[0];
echo "-- a tiered process starts a request on the region\n";
echo shm_run($tiered, 'echo "tiered: ", var_export(shmcache_get("k"), true), "\n";')[0] === "" ? "no output\n" : "ran\n";
echo "-- without the tier, after it\n";
echo shm_run($shared, $probe)[0];
echo "-- without the tier, in another region\n";
echo shm_run(array_merge($base, ["shmcache.region=$dir/other"]), $probe)[0];
@unlink("$dir/shared");
@unlink("$dir/other");
@rmdir($dir);
?>
--EXPECTF--
-- alone, before any tiered process
bool(true)
string(5) "alone"
-- a tiered process starts a request on the region
ran
-- without the tier, after it
shmcache: this region is used in tiered mode (a process with shmcache.redis started a request on it %d s ago), but shmcache.redis is not set here; this request does not use the cache (set the same shmcache.redis for every process of the region)
bool(false)
bool(false)
bool(false)
tier_error: shmcache: this region is used in tiered mode (a process with shmcache.redis started a request on it %d s ago), but shmcache.redis is not set here; this request does not use the cache (set the same shmcache.redis for every process of the region)
-- without the tier, in another region
bool(false)
bool(true)
string(4) "mine"
tier_error: (none)
