--TEST--
A ShmCache's namespace is fixed at construction: __construct() on a constructed object throws, also from user code that a method of that object runs
--FILE--
<?php
function attempt(ShmCache $c, string $ns): string {
    try {
        $c->__construct($ns);
        return 'constructed again';
    } catch (Error $e) {
        return get_class($e) . ': ' . $e->getMessage();
    }
}

$c = new ShmCache('first');
echo attempt($c, 'second'), "\n";
// Through reflection too
try { (new ReflectionMethod('ShmCache', '__construct'))->invoke($c, 'second'); echo "constructed again\n"; }
catch (Error $e) { echo get_class($e), ': ', $e->getMessage(), "\n"; }
var_dump($c->getNamespace());

// From a __sleep of the value being stored by a method of that same object: the method goes on
// with the namespace it started with.
class Sleeper {
    public static ?ShmCache $cache = null;
    public static string $seen = '';
    public $payload = 'slept';
    public function __sleep(): array {
        self::$seen = attempt(self::$cache, 'renamed-by-sleep');
        return ['payload'];
    }
    public function __wakeup(): void {
        self::$seen = attempt(self::$cache, 'renamed-by-wakeup');
    }
}
$site = new ShmCache('site-' . getmypid());
Sleeper::$cache = $site;
var_dump($site->set('k', new Sleeper));
echo Sleeper::$seen, "\n";
Sleeper::$seen = '';
var_dump($site->get('k')->payload);
echo Sleeper::$seen, "\n";
Sleeper::$seen = '';
var_dump($site->getMulti(['k'])['k']->payload);
echo Sleeper::$seen, "\n";
var_dump($site->getNamespace() === 'site-' . getmypid());
// Nothing landed in the namespaces user code asked for.
var_dump((new ShmCache('renamed-by-sleep'))->exists('k'), (new ShmCache('renamed-by-wakeup'))->exists('k'));
// The object still works.
var_dump($site->set('n', 1), $site->incr('n'), $site->get('n'));
?>
--EXPECT--
Error: ShmCache::__construct(): the object is already constructed; its namespace cannot change
Error: ShmCache::__construct(): the object is already constructed; its namespace cannot change
string(5) "first"
bool(true)
Error: ShmCache::__construct(): the object is already constructed; its namespace cannot change
string(5) "slept"
Error: ShmCache::__construct(): the object is already constructed; its namespace cannot change
string(5) "slept"
Error: ShmCache::__construct(): the object is already constructed; its namespace cannot change
bool(true)
bool(false)
bool(false)
bool(true)
int(2)
int(2)
