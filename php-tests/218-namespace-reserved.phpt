--TEST--
The namespaces the extension keeps for itself cannot be opened: "apcu" (the apcu_* functions' entries, local to a server even in tiered mode) and its empty-key companion, and "\0shmcache..." (the tier's own); other binary names stay open; a ValueError says why, and nothing is read or written there
--INI--
shmcache.apcu_compat=1
--FILE--
<?php
apcu_store('k', 'from apcu');
foreach (['apcu', "apcu\0empty-key", "apcu\0lease", "\0shmcache-tier"] as $name) {
    try {
        $ns = new ShmCache($name);
        echo bin2hex($name), ": opened, reads ", var_export($ns->get('k'), true), "\n";
    } catch (ValueError $e) {
        echo get_class($e), ": ", str_replace("\0", '\0', $e->getMessage()), "\n";
    }
}
// Other names stay open, "apcu" included as part of a longer name or in another case.
foreach (['APCU', 'apcu2', 'my-apcu', "\0anything"] as $name) {
    $ns = new ShmCache($name);
    var_dump($ns->set('k', $name), $ns->get('k'));
}
var_dump(apcu_fetch('k'));
?>
--EXPECTF--
ValueError: ShmCache::__construct(): Argument #1 ($namespace) is reserved: the apcu_* functions keep their entries there
ValueError: ShmCache::__construct(): Argument #1 ($namespace) is reserved: the apcu_* functions keep their entries there
ValueError: ShmCache::__construct(): Argument #1 ($namespace) is reserved: the apcu_* functions keep their entries there
ValueError: ShmCache::__construct(): Argument #1 ($namespace) is reserved: the extension keeps its own entries there
bool(true)
string(4) "APCU"
bool(true)
string(5) "apcu2"
bool(true)
string(7) "my-apcu"
bool(true)
string(9) "%0anything"
string(9) "from apcu"
