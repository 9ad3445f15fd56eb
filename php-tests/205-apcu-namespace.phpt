--TEST--
apcu_* keys live in the namespace "apcu" of the same region (reserved: ShmCache('apcu') cannot open it, 218), shmcache_* keys do not mix with them, apcu_clear_cache() leaves other namespaces alone, shmcache_flush() clears them too; with the cache disabled every apcu_* call fails like APCu's
--INI--
shmcache.apcu_compat=1
--FILE--
<?php
require __DIR__ . '/inc/common.inc';
apcu_store('shared', 'from apcu');
shmcache_set('shared', 'from shmcache');
var_dump(shmcache_get('shared'), apcu_fetch('shared'));
apcu_store('written', 'by apcu');
var_dump(apcu_fetch('written'), apcu_inc('counter'), apcu_inc('counter'), apcu_fetch('counter'));
$other = new ShmCache('other');
$other->set('k', 'v');
var_dump(apcu_clear_cache(), apcu_exists('shared'), apcu_exists('written'), shmcache_get('shared'), $other->get('k'));
apcu_store('again', 1);
apcu_store('', 'empty');
shmcache_flush();
var_dump(apcu_exists('again'), apcu_exists(''));

echo "-- disabled (shmcache.enable_cli=0)\n";
[$out, $code] = shm_run(['shmcache.apcu_compat=1', 'shmcache.enable_cli=0'], '
    var_dump(apcu_enabled(), apcu_store("k", 1), apcu_add("k", 1), apcu_fetch("k", $ok), $ok, apcu_exists("k"),
        apcu_delete("k"), apcu_inc("k"), apcu_cas("k", 0, 1), apcu_key_info("k"), apcu_entry("k", fn() => 1), apcu_clear_cache());
    var_dump(apcu_cache_info(), apcu_sma_info());');
echo $out;
?>
--EXPECTF--
string(13) "from shmcache"
string(9) "from apcu"
string(7) "by apcu"
int(1)
int(2)
int(2)
bool(true)
bool(false)
bool(false)
string(13) "from shmcache"
string(1) "v"
bool(false)
bool(false)
-- disabled (shmcache.enable_cli=0)
bool(false)
bool(false)
bool(false)
bool(false)
bool(false)
bool(false)
bool(false)
bool(false)
bool(false)
NULL
NULL
bool(true)

Warning: apcu_cache_info(): No APC info available.  Perhaps APC is not enabled? Check apc.enabled in your ini file in Command line code on line %d

Warning: apcu_sma_info(): No APC SMA info available.  Perhaps APC is disabled via apc.enabled? in Command line code on line %d
bool(false)
bool(false)
