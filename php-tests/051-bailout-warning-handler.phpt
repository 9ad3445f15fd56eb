--TEST--
A fatal error inside an error handler called for shmcache's own warning (a value too large) ends the request; the extension keeps none of the call's memory (scripts/valgrind.sh)
--INI--
; PHP 8.5 follows a fatal error with its stack trace: not what is tested here.
fatal_error_backtraces=0
shmcache.values_memory_size=1M
--FILE--
<?php
set_error_handler(function (int $no, string $message) {
    echo "handler: $message\n";
    // A fatal error PHP bails out of (E_COMPILE_ERROR), the same on every PHP version:
    // trigger_error(..., E_USER_ERROR) is deprecated since PHP 8.4.
    eval('class FatalInsideHandler {} class FatalInsideHandler {}');
});
shmcache_set(4444, random_bytes(300000));
echo "not reached\n";
?>
--EXPECTF--
handler: %s too large%s

Fatal error: Cannot %s class FatalInsideHandler%s in %s on line %d
