--TEST--
apcu_store() of an array raises the warnings of a run of plain values after writing the run: a fatal error inside the error handler then leaves none of the call's memory behind (scripts/valgrind.sh)
--INI--
; PHP 8.5 follows a fatal error with its stack trace: not what is tested here.
fatal_error_backtraces=0
shmcache.values_memory_size=1M
shmcache.apcu_compat=1
--FILE--
<?php
$values = [];
for ($i = 0; $i < 20; $i++) {
    $values["k$i"] = $i === 3 ? random_bytes(300000) : "value $i";
}
set_error_handler(function (int $no, string $message) {
    echo "handler: $message\n";
    echo "stored: ", count(apcu_fetch(array_map(fn($i) => "k$i", range(0, 19)))), "\n";
    eval('class FatalInsideHandler {} class FatalInsideHandler {}');
});
var_dump(apcu_store($values));
echo "not reached\n";
?>
--EXPECTF--
handler: %s too large%s
stored: 19

Fatal error: Cannot %s class FatalInsideHandler%s in %s on line %d
