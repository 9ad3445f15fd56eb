--TEST--
A fatal error inside an error handler called for shmcache's own warning (a value too large) ends the request; the extension keeps none of the call's memory (scripts/valgrind.sh)
--INI--
shmcache.values_memory_size=1M
--FILE--
<?php
set_error_handler(function (int $no, string $message) {
    echo "handler: $message\n";
    trigger_error('fatal inside the error handler', E_USER_ERROR);
});
shmcache_set(4444, random_bytes(300000));
echo "not reached\n";
?>
--EXPECTF--
handler: %s too large%s

Fatal error: fatal inside the error handler in %s on line %d
