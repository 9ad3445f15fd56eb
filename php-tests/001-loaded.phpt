--TEST--
The extension is loaded and its functions and class exist
--FILE--
<?php
var_dump(extension_loaded('shmcache'));
foreach (['shmcache_get', 'shmcache_get_multi', 'shmcache_set', 'shmcache_set_multi', 'shmcache_add', 'shmcache_add_multi', 'shmcache_delete_multi',
          'shmcache_replace', 'shmcache_cas', 'shmcache_incr', 'shmcache_decr', 'shmcache_delete',
          'shmcache_exists', 'shmcache_ttl', 'shmcache_flush', 'shmcache_info'] as $f) {
    if (!function_exists($f)) echo "missing $f\n";
}
var_dump(class_exists('ShmCache'), (new ReflectionClass('ShmCache'))->isFinal());
var_dump(SHMCACHE_MAX_KEY_LENGTH, is_string(SHMCACHE_VERSION));
var_dump(shmcache_info()['enabled']);
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
int(4096)
bool(true)
bool(true)
