--TEST--
Without shmcache.apcu_compat no apcu_* function, APCUIterator class or APC_* constant exists (applications that test function_exists('apcu_fetch') keep their meaning)
--FILE--
<?php
var_dump(ini_get('shmcache.apcu_compat'));
$names = ['apcu_fetch', 'apcu_store', 'apcu_add', 'apcu_delete', 'apcu_exists', 'apcu_inc', 'apcu_dec', 'apcu_cas',
    'apcu_entry', 'apcu_clear_cache', 'apcu_cache_info', 'apcu_sma_info', 'apcu_key_info', 'apcu_enabled'];
$present = array_filter($names, fn($f) => function_exists($f) && (new ReflectionFunction($f))->getExtensionName() === 'shmcache');
var_dump($present);
var_dump(array_values(array_filter(get_extension_funcs('shmcache'), fn($f) => str_starts_with($f, 'apcu_'))));
var_dump(class_exists('APCUIterator'), defined('APC_ITER_ALL'), defined('APC_LIST_ACTIVE'));
?>
--EXPECT--
string(1) "0"
array(0) {
}
array(0) {
}
bool(false)
bool(false)
bool(false)
