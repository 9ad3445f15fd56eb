--TEST--
In tiered mode a reset of the near copy (this server's full flush, another server's, a burst past shmcache.redis_max_apply, a Redis restart that lost its data) empties what the tier keeps and leaves the apcu_* entries, which are local to the server by contract
--SKIPIF--
<?php if (!is_executable(trim((string) shell_exec('command -v redis-server')))) die('skip redis-server not found'); ?>
--INI--
shmcache.apcu_compat=1
shmcache.redis=unix:///tmp/shmcache-phpt-222/redis.sock
shmcache.redis_resync_interval=0
shmcache.redis_max_apply=2
shmcache.redis_connect_timeout=1000
shmcache.redis_read_timeout=1000
--FILE--
<?php
require __DIR__ . '/inc/common.inc';
$dir = '/tmp/shmcache-phpt-222';
@mkdir($dir, 0700);
$sock = "$dir/redis.sock";
function start_redis(string $sock)
{
    @unlink($sock);
    $redis = proc_open(['redis-server', '--port', '0', '--save', '', '--appendonly', 'no', '--unixsocket', $sock],
        [0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', '/dev/null', 'w']], $pipes);
    for ($i = 0; $i < 500 && !file_exists($sock); $i++) usleep(10000);
    return $redis;
}
$redis = start_redis($sock);
// Another server: a CLI process has a region of its own.
$other = ['shmcache.enable_cli=1', "shmcache.redis=unix://$sock", 'shmcache.redis_connect_timeout=1000',
    'shmcache.redis_read_timeout=1000'];
var_dump(apcu_store('a', 'local'), apcu_add('b', 2));
var_dump(shmcache_set('t', 'tier'), shmcache_get('t'));
$resets = shmcache_info()['tier_near_flushes'];
$check = function (string $what) use (&$resets) {
    var_dump(shmcache_begin_request());
    $now = shmcache_info()['tier_near_flushes'];
    printf("%s: near copy reset %s; apcu_fetch: %s, %s\n", $what, $now > $resets ? 'yes' : 'no',
        var_export(apcu_fetch('a'), true), var_export(apcu_fetch('b'), true));
    $resets = $now;
};
var_dump(shmcache_flush());
$check("this server's full flush");
echo shm_run($other, 'var_dump(shmcache_flush());')[0];
$check("another server's full flush");
echo shm_run($other, 'for ($i = 0; $i < 3; $i++) shmcache_set("k$i", $i); echo "3 writes\n";')[0];
$check('a burst past redis_max_apply');
proc_terminate($redis);
proc_close($redis);
$redis = start_redis($sock);
$check('a Redis restart that lost its data');
// The near copy is still kept coherent: a write elsewhere is read here.
echo shm_run($other, 'var_dump(shmcache_set("t", "after"));')[0];
var_dump(shmcache_begin_request(), shmcache_get('t'));
// apcu_clear_cache() still clears them.
var_dump(apcu_clear_cache(), apcu_fetch('a'));
proc_terminate($redis);
proc_close($redis);
@unlink($sock);
@rmdir($dir);
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
string(4) "tier"
bool(true)
bool(true)
this server's full flush: near copy reset yes; apcu_fetch: 'local', 2
bool(true)
bool(true)
another server's full flush: near copy reset yes; apcu_fetch: 'local', 2
3 writes
bool(true)
a burst past redis_max_apply: near copy reset yes; apcu_fetch: 'local', 2
bool(true)
a Redis restart that lost its data: near copy reset yes; apcu_fetch: 'local', 2
bool(true)
bool(true)
string(5) "after"
bool(true)
bool(false)
