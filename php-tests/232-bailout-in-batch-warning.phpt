--TEST--
set_multi runs as one batch and raises its warnings after it: every key is written before an error handler runs, and a fatal error inside that handler leaves none of the call's memory behind (scripts/valgrind.sh)
--INI--
; PHP 8.5 follows a fatal error with its stack trace: not what is tested here.
fatal_error_backtraces=0
shmcache.values_memory_size=1M
--FILE--
<?php
$values = [];
for ($i = 0; $i < 20; $i++) {
    $values["k$i"] = $i === 3 ? random_bytes(300000) : "value $i";
}
set_error_handler(function (int $no, string $message) {
    // The keys after the refused one are already stored when the warning comes.
    echo "handler: $message\n";
    echo "stored: ", count(shmcache_get_multi(array_map(fn($i) => "k$i", range(0, 19)))), "\n";
    eval('class FatalInsideHandler {} class FatalInsideHandler {}');
});
var_dump(shmcache_set_multi($values));
echo "not reached\n";
?>
--EXPECTF--
handler: %s too large%s
stored: 19

Fatal error: Cannot %s class FatalInsideHandler%s in %s on line %d
