--TEST--
A fatal error inside __sleep during a set of an integer key ends the request; the extension keeps none of the call's memory (scripts/valgrind.sh)
--FILE--
<?php
class FatalOnSleep {
    public $payload = 'p';
    public function __sleep() { trigger_error('fatal inside __sleep', E_USER_ERROR); }
}
// Objects in an array that also holds stdClass objects: the native encoder saw them first.
$value = [new stdClass, new stdClass, new FatalOnSleep];
shmcache_set(4343, $value);
echo "not reached\n";
?>
--EXPECTF--
Fatal error: fatal inside __sleep in %s on line %d
