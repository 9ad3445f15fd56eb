--TEST--
A fatal error inside __wakeup during a get of an integer key ends the request; the extension keeps none of the call's memory (scripts/valgrind.sh)
--INI--
; PHP 8.5 follows a fatal error with its stack trace: not what is tested here.
fatal_error_backtraces=0
--FILE--
<?php
class FatalOnWakeup {
    public $payload = 'p';
    public function __wakeup() {
        // A fatal error PHP bails out of (E_COMPILE_ERROR), the same on every PHP version:
        // trigger_error(..., E_USER_ERROR) is deprecated since PHP 8.4.
        eval('class FatalInsideWakeup {} class FatalInsideWakeup {}');
    }
}
var_dump(shmcache_set(4242, new FatalOnWakeup));
shmcache_get(4242);
echo "not reached\n";
?>
--EXPECTF--
bool(true)

Fatal error: Cannot %s class FatalInsideWakeup%s in %s on line %d
