--TEST--
A process without shmcache.redis whose request began before a tiered process marked the region publishes nothing into it afterwards (set, add, replace, incr, cas, delete, set_multi, flush are refused and it says why); before the mark its writes work
--FILE--
<?php
require __DIR__ . '/inc/common.inc';
$dir = sys_get_temp_dir() . '/shmcache-219-' . getmypid();
@mkdir($dir, 0700);
$shared = ['shmcache.enable_cli=1', 'shmcache.keys_memory_size=1M', 'shmcache.values_memory_size=8M', "shmcache.region=$dir/shared"];
$tiered = array_merge($shared, ['shmcache.redis=unix:///nonexistent/shmcache-219.sock', 'shmcache.redis_connect_timeout=20']);
// The process without the tier: one request (a queue worker started from a CLI php.ini without
// shmcache.redis) during which a tiered process starts a request on the same region.
$worker = 'require ' . var_export(__DIR__ . '/inc/common.inc', true) . ';
  $tiered = ' . var_export($tiered, true) . ';
  var_dump(shmcache_set("k", "before"), shmcache_set("n", 1));
  echo shm_run($tiered, "echo \"tiered request ran\n\";")[0];
  var_dump(shmcache_set("k", "after"), shmcache_add("a", 1), shmcache_replace("k", "r"), shmcache_incr("n"),
      shmcache_cas("n", 1, 2), shmcache_delete("k"), shmcache_set_multi(["m" => 1]), (new ShmCache("ns"))->set("k", 1),
      shmcache_flush());
  echo "tier_error: ", shmcache_info()["tier_error"] ?? "(none)", "\n";';
echo shm_run($shared, $worker)[0];
@unlink("$dir/shared");
@rmdir($dir);
?>
--EXPECTF--
bool(true)
bool(true)
tiered request ran
%Ashmcache: this region is used in tiered mode (a process with shmcache.redis started a request on it %d s ago), but shmcache.redis is not set here; this request does not use the cache (set the same shmcache.redis for every process of the region)
bool(false)
bool(false)
bool(false)
bool(false)
bool(false)
bool(false)
array(1) {
  [0]=>
  string(1) "m"
}
bool(false)
bool(false)
tier_error: shmcache: this region is used in tiered mode%s
