--TEST--
shmcache_get_multi and ShmCache::getMulti read each key as it is when its turn comes: what an earlier value's __wakeup deletes or overwrites among the keys after it is seen (a batch locates its keys' entries before reading them)
--FILE--
<?php
class Changer {
    public $ns = null;
    function __wakeup() {
        $c = $this->ns === null ? null : new ShmCache($this->ns);
        $del = fn($k) => $c ? $c->delete($k) : shmcache_delete($k);
        $set = fn($k, $v, $ttl = 0) => $c ? $c->set($k, $v, $ttl) : shmcache_set($k, $v, $ttl);
        $del('k1');
        $set('k2', 'new');
        $set('k3', str_repeat('n', 300));
        $set('k4', 'expired', -1);
        $set('k5', 42);
    }
}
foreach ([null, 'space'] as $ns) {
    $c = $ns === null ? null : new ShmCache($ns);
    $changer = new Changer();
    $changer->ns = $ns;
    $keys = ['k0', 'k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7'];
    foreach ($keys as $k) {
        $c ? $c->set($k, "$k:old") : shmcache_set($k, "$k:old");
    }
    $c ? $c->set('k0', $changer) : shmcache_set('k0', $changer);
    $got = $c ? $c->getMulti($keys) : shmcache_get_multi($keys);
    foreach ($got as $k => $v) {
        echo $k, ' => ', is_object($v) ? get_class($v) : (strlen((string) $v) > 20 ? strlen($v) . ' bytes' : var_export($v, true)), "\n";
    }
}
--EXPECT--
k0 => Changer
k2 => 'new'
k3 => 300 bytes
k5 => 42
k6 => 'k6:old'
k7 => 'k7:old'
k0 => Changer
k2 => 'new'
k3 => 300 bytes
k5 => 42
k6 => 'k6:old'
k7 => 'k7:old'
