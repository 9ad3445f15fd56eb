--TEST--
A fatal error inside __wakeup during a get of an integer key ends the request; the extension keeps none of the call's memory (scripts/valgrind.sh)
--FILE--
<?php
class FatalOnWakeup {
    public $payload = 'p';
    public function __wakeup() { trigger_error('fatal inside __wakeup', E_USER_ERROR); }
}
var_dump(shmcache_set(4242, new FatalOnWakeup));
shmcache_get(4242);
echo "not reached\n";
?>
--EXPECTF--
bool(true)

Fatal error: fatal inside __wakeup in %s on line %d
