<?php
// Given to Debian 12's PHPUnit 9.6 (`phpunit --prepend THIS-FILE`) when it runs the WordPress tests
// on PHP 8.4 or later (scripts/php-versions.sh lends it to the 8.4 chroot: WordPress's test
// framework supports no PHPUnit after 9, and Debian 13 ships 11).
//
// PHPUnit 9.6.7's own classes declare implicitly nullable parameters, which PHP 8.4 deprecates
// when it compiles them. PHPUnit loads most of its classes lazily, during a test, where WordPress's
// phpunit.xml.dist turns every deprecation into an error: the first assertion of each test then
// failed with "PHPUnit\Framework\Constraint\Constraint::fail(): Implicitly marking parameter
// $comparisonFailure as nullable is deprecated". So every class of PHPUnit and of the libraries it
// loads is loaded here, before any test, with E_DEPRECATED off for that moment only. What the
// tests run (WordPress, the drop-in, shmcache) is compiled later, with the settings the test
// configuration asks for: a deprecation there still fails its test.

require_once 'PHPUnit/Autoload.php';

$shmcache_level = error_reporting();
error_reporting($shmcache_level & ~E_DEPRECATED);
$shmcache_loaded = 0;
// Debian's autoloaders of PHPUnit and its libraries: each a class map, 'lowercased\\name' => file.
foreach (get_included_files() as $shmcache_file) {
    if (basename($shmcache_file) !== 'autoload.php' && basename($shmcache_file) !== 'Autoload.php') {
        continue;
    }
    if (!preg_match_all("/^\\s*'([a-z0-9_\\\\\\\\]+)' => '/m", (string) file_get_contents($shmcache_file), $shmcache_m)) {
        continue;
    }
    foreach ($shmcache_m[1] as $shmcache_class) {
        $shmcache_class = str_replace('\\\\', '\\', $shmcache_class);
        try {
            if (class_exists($shmcache_class) || interface_exists($shmcache_class) || trait_exists($shmcache_class)) {
                $shmcache_loaded++;
            }
        } catch (Throwable $e) {
            // A class of an optional part (its own dependency absent): PHPUnit never loads it either.
        }
    }
}
error_reporting($shmcache_level);
if ($shmcache_loaded < 300) {
    fwrite(STDERR, "phpunit9-preload.php: loaded only $shmcache_loaded classes of PHPUnit: its layout is not Debian 12's\n");
    exit(1);
}
unset($shmcache_level, $shmcache_loaded, $shmcache_file, $shmcache_m, $shmcache_class);
