--TEST--
shmcache_set/get/exists/delete: basic store, overwrite, miss and removal
--FILE--
<?php
var_dump(shmcache_get('basic'));            // miss
var_dump(shmcache_exists('basic'));
var_dump(shmcache_set('basic', 'one'));
var_dump(shmcache_exists('basic'));
var_dump(shmcache_get('basic'));
var_dump(shmcache_set('basic', 'two'));     // overwrite
var_dump(shmcache_get('basic'));
var_dump(shmcache_set('basic', 3));         // overwrite with another type
var_dump(shmcache_get('basic'));
var_dump(shmcache_delete('basic'));         // live entry removed
var_dump(shmcache_delete('basic'));         // nothing left to remove
var_dump(shmcache_exists('basic'));
var_dump(shmcache_get('basic'));
var_dump(shmcache_set('basic', 'again'));   // storable again after delete
var_dump(shmcache_get('basic'));
// A key made of digits and the same integer are the same key.
var_dump(shmcache_set(42, 'int key'));
var_dump(shmcache_get('42'));
var_dump(shmcache_set('43', 'string key'));
var_dump(shmcache_get(43));
// Many keys, each with its own value.
$ok = true;
for ($i = 0; $i < 2000; $i++) {
    $ok = shmcache_set("many:$i", "value $i") && $ok;
}
$bad = 0;
for ($i = 0; $i < 2000; $i++) {
    if (shmcache_get("many:$i") !== "value $i") $bad++;
}
var_dump($ok, $bad);
?>
--EXPECT--
bool(false)
bool(false)
bool(true)
bool(true)
string(3) "one"
bool(true)
string(3) "two"
bool(true)
int(3)
bool(true)
bool(false)
bool(false)
bool(false)
bool(true)
string(5) "again"
bool(true)
string(7) "int key"
bool(true)
string(10) "string key"
bool(true)
int(0)
