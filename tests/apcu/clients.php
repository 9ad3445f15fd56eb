<?php
/**
 * Real APCu clients, as Debian packages them, run unmodified on shmcache.apcu_compat=1, for
 * scripts/test-apcu-clients.sh. Each call is one step in a fresh CLI process; the script runs
 * the steps of one check in two processes that share a named region, so what one process
 * wrote through a client is what the other reads through it.
 *
 *   php clients.php STEP [ARG]    prints one line: what the step saw
 *
 * Steps are named CLIENT-ACTION: sf-* Symfony's ApcuAdapter (and TagAwareAdapter, Psr16Cache
 * over it), il-* Illuminate's ApcStore behind a Repository, cl-* Composer's ClassLoader with
 * an APCu prefix.
 */

error_reporting(E_ALL);
set_error_handler(function (int $no, string $message, string $file, int $line): bool {
    // A client that trips over a warning or notice must fail the check, not print past it.
    echo "PHP error $no: $message at $file:$line\n";
    exit(3);
});

$step = $argv[1] ?? '';
$arg = $argv[2] ?? '';

/** A value as one line (json, with objects by class). */
function show($value): string
{
    if (is_object($value)) {
        return get_class($value) . json_encode(get_object_vars($value) ?: (array) $value);
    }
    return json_encode($value);
}

function symfony(): void
{
    require_once '/usr/share/php/Symfony/Component/Cache/autoload.php';
    require_once '/usr/share/php/Psr/SimpleCache/autoload.php';
}

function symfony_pool(string $namespace, ?string $version = null): Symfony\Component\Cache\Adapter\ApcuAdapter
{
    symfony();
    return new Symfony\Component\Cache\Adapter\ApcuAdapter($namespace, 0, $version);
}

/** isHit and value of each item, in order: "key=hit:value" or "key=miss". */
function items(Psr\Cache\CacheItemPoolInterface $pool, array $keys): string
{
    $out = [];
    foreach ($pool->getItems($keys) as $key => $item) {
        $out[] = $key . '=' . ($item->isHit() ? 'hit:' . show($item->get()) : 'miss');
    }
    return implode(' ', $out);
}

function illuminate(): Illuminate\Cache\Repository
{
    require_once '/usr/share/php/Illuminate/Cache/autoload.php';
    return new Illuminate\Cache\Repository(new Illuminate\Cache\ApcStore(new Illuminate\Cache\ApcWrapper(), 'laravel:'));
}

function composer_loader(): Composer\Autoload\ClassLoader
{
    require_once '/usr/share/php/Composer/Autoload/ClassLoader.php';
    return new Composer\Autoload\ClassLoader();
}

switch ($step) {
    // -- Symfony ApcuAdapter: get/save/deleteItem, the array forms of apcu_fetch (with
    //    &$success for stored nulls and falses) and apcu_store.
    case 'sf-save':
        $pool = symfony_pool('app', 'v1');
        $saved = [];
        foreach (['user.1' => ['name' => 'Ada', 'roles' => ['admin']], 'nothing' => null, 'no' => false, 'zero' => 0] as $k => $v) {
            $saved[] = $pool->save($pool->getItem($k)->set($v)) ? 'saved' : 'not saved';
        }
        $deferred = $pool->getItem('deferred')->set(new ArrayObject([1, 2]));
        $pool->saveDeferred($deferred);
        $saved[] = $pool->commit() ? 'committed' : 'not committed';
        $other = symfony_pool('other');
        $saved[] = $other->save($other->getItem('keep')->set('kept')) ? 'saved' : 'not saved';
        echo implode(' ', $saved), "\n";
        break;
    case 'sf-read':
        echo items(symfony_pool('app', 'v1'), ['user.1', 'nothing', 'no', 'zero', 'deferred', 'missing']),
            ' other:', items(symfony_pool('other'), ['keep']), "\n";
        break;
    case 'sf-has':
        $pool = symfony_pool('app', 'v1');
        echo 'user.1=', var_export($pool->hasItem('user.1'), true), ' missing=', var_export($pool->hasItem('missing'), true), "\n";
        break;
    case 'sf-delete':
        $pool = symfony_pool('app', 'v1');
        echo 'deleted=', var_export($pool->deleteItem('user.1'), true), ' deleteItems=', var_export($pool->deleteItems(['zero', 'missing']), true), "\n";
        break;
    // clear() of a namespace deletes its keys by prefix through APCUIterator (Symfony does so
    // only when apc.enable_cli is on in the CLI; otherwise apcu_clear_cache() takes all).
    case 'sf-clear':
        $pool = symfony_pool('app', 'v1');
        echo items($pool, ['nothing']), ' cleared=', var_export($pool->clear(), true), "\n";
        break;
    // A pool built with another version clears its namespace at construction.
    case 'sf-version':
        echo 'v1: ', items(symfony_pool('app', 'v1'), ['nothing']), " $arg: ", items(symfony_pool('app', $arg), ['nothing']), "\n";
        break;
    case 'sf-version-read':
        echo items(symfony_pool('app', 'v1'), ['nothing']), ' other:', items(symfony_pool('other'), ['keep']), "\n";
        break;
    // enableVersioning(): clear() bumps a version key kept in APCu instead of deleting.
    case 'sf-versioning-save':
        $pool = symfony_pool('versioned');
        $pool->enableVersioning();
        echo $pool->save($pool->getItem('k')->set('v')) ? 'saved' : 'not saved', "\n";
        break;
    case 'sf-versioning-read':
        $pool = symfony_pool('versioned');
        $pool->enableVersioning();
        echo items($pool, ['k']), ' other:', items(symfony_pool('other'), ['keep']), "\n";
        break;
    case 'sf-versioning-clear':
        $pool = symfony_pool('versioned');
        $pool->enableVersioning();
        echo items($pool, ['k']), ' cleared=', var_export($pool->clear(), true), "\n";
        break;
    case 'sf-ttl-save':
        $pool = symfony_pool('ttl');
        $saved = $pool->save($pool->getItem('short')->set('s')->expiresAfter(5));
        $saved = $saved && $pool->save($pool->getItem('long')->set('l')->expiresAfter(3600));
        echo $saved ? 'saved' : 'not saved', "\n";
        break;
    case 'sf-ttl-read':
        echo items(symfony_pool('ttl'), ['short', 'long']), "\n";
        break;
    // Contracts' get(): the callback runs only where the item is missing.
    case 'sf-get':
        echo show(symfony_pool('computed')->get('answer', function () use ($arg) {
            return "computed by $arg";
        })), "\n";
        break;
    // Tags: TagAwareAdapter keeps items and tag versions in the APCu pool.
    case 'sf-tags-save':
        symfony();
        $pool = new Symfony\Component\Cache\Adapter\TagAwareAdapter(symfony_pool('tagged'));
        $a = $pool->save($pool->getItem('a')->set('A')->tag(['red']));
        $b = $pool->save($pool->getItem('b')->set('B')->tag(['blue']));
        echo $a && $b ? 'saved' : 'not saved', "\n";
        break;
    case 'sf-tags-read':
        symfony();
        echo items(new Symfony\Component\Cache\Adapter\TagAwareAdapter(symfony_pool('tagged')), ['a', 'b']), "\n";
        break;
    case 'sf-tags-invalidate':
        symfony();
        $pool = new Symfony\Component\Cache\Adapter\TagAwareAdapter(symfony_pool('tagged'));
        echo 'invalidated=', var_export($pool->invalidateTags(['red']), true), "\n";
        break;
    // PSR-16 over the same pool.
    case 'sf-psr16-set':
        symfony();
        $cache = new Symfony\Component\Cache\Psr16Cache(symfony_pool('simple'));
        echo 'set=', var_export($cache->setMultiple(['x' => 1, 'y' => [2]], 3600), true), "\n";
        break;
    case 'sf-psr16-get':
        symfony();
        $cache = new Symfony\Component\Cache\Psr16Cache(symfony_pool('simple'));
        echo show($cache->getMultiple(['x', 'y', 'z'], 'default')), ' has_x=', var_export($cache->has('x'), true), "\n";
        break;

    // -- Illuminate's ApcStore (Laravel's "apc" cache store) behind a Repository.
    case 'il-write':
        $cache = illuminate();
        $out = [];
        $out[] = 'put=' . var_export($cache->put('k', ['v' => 1], 60), true);
        $out[] = 'forever=' . var_export($cache->forever('f', 'ever'), true);
        $out[] = 'increment=' . var_export($cache->increment('hits'), true);
        $out[] = 'add=' . var_export($cache->add('once', 'first', 60), true);
        $out[] = 'remember=' . show($cache->remember('r', 60, fn () => 'remembered by the writer'));
        echo implode(' ', $out), "\n";
        break;
    case 'il-read':
        $cache = illuminate();
        $out = [];
        $out[] = 'k=' . show($cache->get('k'));
        $out[] = 'f=' . show($cache->get('f'));
        $out[] = 'many=' . show($cache->many(['k', 'nope']));
        $out[] = 'increment=' . var_export($cache->increment('hits', 5), true);
        $out[] = 'decrement=' . var_export($cache->decrement('hits'), true);
        $out[] = 'add=' . var_export($cache->add('once', 'second', 60), true);
        $out[] = 'once=' . show($cache->get('once'));
        $out[] = 'remember=' . show($cache->remember('r', 60, fn () => 'remembered by the reader'));
        echo implode(' ', $out), "\n";
        break;
    case 'il-forget':
        echo 'forget=', var_export(illuminate()->forget('k'), true), "\n";
        break;
    // Prints what it flushes, then leaves one key written after the flush.
    case 'il-flush':
        $cache = illuminate();
        echo 'f=', show($cache->get('f')), ' flush=', var_export($cache->flush(), true), ' put=', var_export($cache->put('after', 'written after the flush', 60), true), "\n";
        break;
    case 'il-state':
        $cache = illuminate();
        echo 'has_k=', var_export($cache->has('k'), true), ' f=', show($cache->get('f')), ' hits=', show($cache->get('hits')), ' after=', show($cache->get('after')), "\n";
        break;

    // -- Composer's class loader: with an APCu prefix it caches where each class was found
    //    (apcu_fetch with &$success, apcu_add).
    case 'cl-load':
        $loader = composer_loader();
        $loader->addPsr4('Demo\\', $arg);
        $loader->setApcuPrefix('classes:');
        $loader->register();
        echo 'prefix=', show($loader->getApcuPrefix()), ' loaded=', var_export(class_exists('Demo\\Greeter'), true), ' cached=', show(apcu_fetch('classes:Demo\\Greeter')), "\n";
        break;
    // A loader that knows no directory at all finds the class only through the shared cache.
    case 'cl-cached':
        $loader = composer_loader();
        $loader->setApcuPrefix('classes:');
        $loader->register();
        echo 'loaded=', var_export(class_exists('Demo\\Greeter'), true), class_exists('Demo\\Greeter') ? ' says=' . show(Demo\Greeter::hello()) : '', "\n";
        break;

    default:
        echo "unknown step $step\n";
        exit(2);
}
