--TEST--
shmcache.enable=0 (--INI-- override): every call returns false/miss/[], info says disabled
--INI--
shmcache.enable=0
--FILE--
<?php
require __DIR__ . '/inc/disabled.inc';
var_dump(ini_get('shmcache.enable'));
shm_disabled_report();
?>
--EXPECT--
string(1) "0"
enabled => false
set => false
get => false
found => false
get_multi => array ()
set_multi => array (  0 => 'k',  1 => 'j',)
add => false
replace => false
cas => false
incr => false
decr => false
exists => false
ttl => false
delete => false
flush => false
->set => false
->get => false
->found => false
->getMulti => array ()
->setMulti => array (  0 => 'k',)
->add => false
->replace => false
->cas => false
->incr => false
->decr => false
->exists => false
->ttl => false
->delete => false
->flush => false
->getNamespace => 'disabled'
->info enabled => false, namespace => 'disabled'
set closure => Exception: Serialization of 'Closure' is not allowed
done
