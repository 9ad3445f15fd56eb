--TEST--
Forked processes share the cache: a child's writes, deletes and flushes are visible to the parent and vice versa
--FILE--
<?php
require __DIR__ . '/inc/common.inc';
shmcache_set('parent:before', 'from parent');
shmcache_set('to-delete', 'x');
$ns = new ShmCache('forked');
$ns->set('to-flush', 'x');
shmcache_set('root-survives', 'x');

$codes = shm_fork_all(1, function () use ($ns) {
    // The child sees what the parent stored before the fork.
    if (shmcache_get('parent:before') !== 'from parent') return 10;
    shmcache_set('child:string', 'from child');
    shmcache_set('child:array', ['pid' => getmypid(), 'list' => [1, 2, 3]]);
    $o = new stdClass;
    $o->who = 'child';
    shmcache_set('child:object', $o);
    shmcache_set('child:big', str_repeat('big', 100000));
    $ns->set('child', 'namespaced');
    shmcache_delete('to-delete');
    $ns->flush();
    $ns->set('after-flush', 'yes');
    shmcache_incr('counter') === false || exit(11);
    shmcache_set('counter', 1);
    return 0;
});
echo "child exit code: {$codes[0]}\n";
var_dump(shmcache_get('child:string'));
var_dump(shmcache_get('child:array')['list'], is_int(shmcache_get('child:array')['pid']));
var_dump(shmcache_get('child:object')->who);
var_dump(strlen(shmcache_get('child:big')));
var_dump($ns->get('child'));              // written before the child's flush
var_dump($ns->get('to-flush'), $ns->get('after-flush'));
var_dump(shmcache_exists('to-delete'), shmcache_get('root-survives'));
var_dump(shmcache_incr('counter'));

// And the other way round: the parent writes after the fork, the child reads and reports back.
shmcache_set('go', 0);
$pids = shm_fork(2, function (int $i) {
    // Wait (at most 5 s) for the parent's signal, then answer through the cache.
    $deadline = microtime(true) + 5;
    while (shmcache_get('go') !== 1) {
        if (microtime(true) > $deadline) return 20;
        usleep(1000);
    }
    shmcache_set("answer:$i", shmcache_get('question') . " answered by $i");
    return 0;
});
shmcache_set('question', 'what?');
shmcache_set('go', 1);
echo 'exit codes: ', implode(',', shm_wait($pids)), "\n";
var_dump(shmcache_get('answer:0'), shmcache_get('answer:1'));
?>
--EXPECT--
child exit code: 0
string(10) "from child"
array(3) {
  [0]=>
  int(1)
  [1]=>
  int(2)
  [2]=>
  int(3)
}
bool(true)
string(5) "child"
int(300000)
bool(false)
bool(false)
string(3) "yes"
bool(false)
string(1) "x"
int(2)
exit codes: 0,0
string(19) "what? answered by 0"
string(19) "what? answered by 1"
