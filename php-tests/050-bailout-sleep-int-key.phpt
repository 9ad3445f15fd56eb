--TEST--
A fatal error inside __sleep during a set of an integer key ends the request; the extension keeps none of the call's memory (scripts/valgrind.sh)
--INI--
; PHP 8.5 follows a fatal error with its stack trace: not what is tested here.
fatal_error_backtraces=0
--FILE--
<?php
class FatalOnSleep {
    public $payload = 'p';
    public function __sleep() {
        // A fatal error PHP bails out of (E_COMPILE_ERROR), the same on every PHP version:
        // trigger_error(..., E_USER_ERROR) is deprecated since PHP 8.4.
        eval('class FatalInsideSleep {} class FatalInsideSleep {}');
    }
}
// Objects in an array that also holds stdClass objects: the native encoder saw them first.
$value = [new stdClass, new stdClass, new FatalOnSleep];
shmcache_set(4343, $value);
echo "not reached\n";
?>
--EXPECTF--
Fatal error: Cannot %s class FatalInsideSleep%s in %s on line %d
