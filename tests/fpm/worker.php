<?php
// Worker script of scripts/test-fpm-faults.sh, served by a real php-fpm8.2 pool.
//
// Every value it stores embeds its key and an md5 of its contents, so a value that belongs to
// another key, or whose bytes changed, is detected on every read ("wrong" values). Objects go
// through __sleep/__wakeup or __serialize/__unserialize, which can be made slow (usleep) or
// CPU-bound, so that SIGKILL, request_terminate_timeout and max_execution_time land inside
// them. Each request prints one line: "RESULT ok ..." or "RESULT fail ...".

const NKEYS = 300;
const MAX_SIZE = 500 * 1024;
// Seconds of wall time that a bail_* request spins for in the method that must end in a fatal
// error. Only max_execution_time (1 s of CPU time) is to end it, however little CPU the machine
// gives it: the spin outlasts the pool's request_terminate_timeout (120 s), so a request without
// its fatal error is terminated and counted, never answered in time by chance.
const BAIL_SPIN = 600;

header('Content-Type: text/plain');
$op = $_GET['op'] ?? 'ping';

/** Object stored through __sleep/__wakeup. */
class SleepPayload
{
    public $key;
    public $seq;
    public $data;
    public $sum;
    public $sleepUs = 0;     // usleep in __sleep (at set time)
    public $wakeUs = 0;      // usleep in __wakeup (at get time; stored)
    public $wakeSpin = 0;    // seconds of CPU burnt in __wakeup (stored)
    public $sleepSpin = 0;   // seconds of CPU burnt in __sleep

    public function __sleep(): array
    {
        if ($this->sleepUs) {
            usleep($this->sleepUs);
        }
        spin($this->sleepSpin);
        return ['key', 'seq', 'data', 'sum', 'wakeUs', 'wakeSpin'];
    }

    public function __wakeup(): void
    {
        if ($this->wakeUs) {
            usleep($this->wakeUs);
        }
        spin($this->wakeSpin);
    }
}

/** Object stored through __serialize/__unserialize. */
class SerPayload
{
    public $key;
    public $seq;
    public $data;
    public $sum;
    public $serUs = 0;
    public $unserUs = 0;
    public $serSpin = 0;

    public function __serialize(): array
    {
        if ($this->serUs) {
            usleep($this->serUs);
        }
        spin($this->serSpin);
        return ['k' => $this->key, 's' => $this->seq, 'd' => $this->data, 'h' => $this->sum, 'u' => $this->unserUs];
    }

    public function __unserialize(array $a): void
    {
        [$this->key, $this->seq, $this->data, $this->sum, $this->unserUs] = [$a['k'], $a['s'], $a['d'], $a['h'], $a['u']];
        if ($this->unserUs) {
            usleep($this->unserUs);
        }
    }
}

function spin(float $seconds): void
{
    if ($seconds <= 0) {
        return;
    }
    $end = microtime(true) + $seconds;
    $x = 0;
    while (microtime(true) < $end) {
        $x++;
    }
}

/** Size between 10 B and 500 KB, log-uniform (most values small, some huge). */
function rand_size(): int
{
    return (int) min(MAX_SIZE, round(10 * exp(mt_rand() / mt_getrandmax() * log(MAX_SIZE / 10))));
}

function payload(int $size): string
{
    // Half compressible (LZ4 path), half random (stored as is).
    if (mt_rand(0, 1)) {
        return substr(str_repeat(md5((string) mt_rand()), intdiv($size, 32) + 1), 0, $size);
    }
    return random_bytes(max(1, $size));
}

function string_value(string $key, int $seq, string $payload): string
{
    $head = 'SV1|' . strlen($key) . '|' . $key . '|' . $seq . '|';
    return $head . $payload . md5($head . $payload);
}

/** A value of a random shape for $key: string, array, or one of the two object kinds. */
function make_value(string $key, int $seq, int $size, int $slowUs = 0)
{
    $p = payload($size);
    switch (mt_rand(0, 3)) {
        case 0:
            return string_value($key, $seq, $p);
        case 1:
            return ['key' => $key, 'seq' => $seq, 'data' => $p, 'mix' => [1, 2.5, true, null, 'x'], 'sum' => md5($key . $seq . $p)];
        case 2:
            $o = new SleepPayload();
            break;
        default:
            $o = new SerPayload();
    }
    $o->key = $key;
    $o->seq = $seq;
    $o->data = $p;
    $o->sum = md5($key . $seq . $p);
    if ($slowUs) {
        if ($o instanceof SleepPayload) {
            $o->sleepUs = mt_rand(0, $slowUs);
            $o->wakeUs = mt_rand(0, $slowUs);
        } else {
            $o->serUs = mt_rand(0, $slowUs);
            $o->unserUs = mt_rand(0, $slowUs);
        }
    }
    return $o;
}

/** Whether $v is a value make_value() made for $key, intact. */
function valid_for(string $key, $v): bool
{
    if (is_string($v)) {
        if (strlen($v) < 32) {
            return false;
        }
        $body = substr($v, 0, -32);
        $head = 'SV1|' . strlen($key) . '|' . $key . '|';
        return strncmp($body, $head, strlen($head)) === 0 && md5($body) === substr($v, -32);
    }
    if (is_array($v)) {
        return ($v['key'] ?? null) === $key && isset($v['data'], $v['seq'])
            && $v['mix'] === [1, 2.5, true, null, 'x'] && md5($key . $v['seq'] . $v['data']) === $v['sum'];
    }
    if ($v instanceof SleepPayload || $v instanceof SerPayload) {
        return $v->key === $key && md5($key . $v->seq . $v->data) === $v->sum;
    }
    return false;
}

function caches(): array
{
    return [null, new ShmCache('fpm-ns')];
}

function c_get(?ShmCache $c, string $k, &$found)
{
    return $c ? $c->get($k, $found) : shmcache_get($k, $found);
}

function c_set(?ShmCache $c, string $k, $v): bool
{
    return $c ? $c->set($k, $v) : shmcache_set($k, $v);
}

$seq = (int) (microtime(true) * 1000) * 1000 + getmypid() % 1000;
$wrong = 0;
$hits = 0;
$writes = 0;
$failedWrites = 0;
$wrongKeys = [];
$check = function (string $key, $v) use (&$wrong, &$hits, &$wrongKeys) {
    $hits++;
    if (!valid_for($key, $v)) {
        $wrong++;
        $wrongKeys[] = $key;
    }
};

switch ($op) {
    case 'ping':
        echo 'RESULT ok pid=' . getmypid() . "\n";
        break;

    case 'load':
        // A write-heavy mix over NKEYS keys in two namespaces, plus a shared counter.
        $ops = (int) ($_GET['ops'] ?? 40);
        $slowUs = (int) ($_GET['slow'] ?? 3000);
        foreach (caches() as $c) {
            $c ? $c->add('ctr', 0) : shmcache_add('ctr', 0);
        }
        $cs = caches();
        for ($i = 0; $i < $ops; $i++) {
            $c = $cs[mt_rand(0, 1)];
            $key = 'k' . mt_rand(0, NKEYS - 1);
            $r = mt_rand(0, 99);
            if ($r < 35) {
                $writes++;
                $failedWrites += c_set($c, $key, make_value($key, ++$seq, rand_size(), $slowUs)) ? 0 : 1;
            } elseif ($r < 65) {
                $v = c_get($c, $key, $found);
                if ($found) {
                    $check($key, $v);
                }
            } elseif ($r < 75) {
                $n = $c ? $c->incr('ctr', 1) : shmcache_incr('ctr', 1);
                // false only if the counter is gone (e.g. evicted); a non-int is a wrong value
                if ($n !== false && !is_int($n)) {
                    $wrong++;
                }
            } elseif ($r < 79) {
                $c ? $c->delete($key) : shmcache_delete($key);
            } elseif ($r < 84) {
                $v = make_value($key, ++$seq, rand_size(), $slowUs);
                $c ? $c->add($key, $v) : shmcache_add($key, $v);
            } elseif ($r < 87) {
                $v = make_value($key, ++$seq, rand_size(), $slowUs);
                $c ? $c->replace($key, $v) : shmcache_replace($key, $v);
            } elseif ($r < 93) {
                $keys = [];
                for ($j = 0; $j < 8; $j++) {
                    $keys[] = 'k' . mt_rand(0, NKEYS - 1);
                }
                $got = $c ? $c->getMulti($keys) : shmcache_get_multi($keys);
                foreach ($got as $k => $v) {
                    $check((string) $k, $v);
                }
            } elseif ($r < 97) {
                $vals = [];
                for ($j = 0; $j < 4; $j++) {
                    $k = 'k' . mt_rand(0, NKEYS - 1);
                    $vals[$k] = make_value($k, ++$seq, min(rand_size(), 50000), $slowUs);
                }
                $writes++;
                $failedWrites += count($c ? $c->setMulti($vals) : shmcache_set_multi($vals)) ? 1 : 0;
            } else {
                $v = c_get($c, $key, $found);
                $exists = $c ? $c->exists($key) : shmcache_exists($key);
                if ($found) {
                    $check($key, $v);
                }
            }
        }
        printf("RESULT ok wrong=%d hits=%d writes=%d failed_writes=%d pid=%d%s\n", $wrong, $hits, $writes, $failedWrites, getmypid(),
            $wrongKeys ? ' wrong_keys=' . implode(',', array_slice($wrongKeys, 0, 10)) : '');
        break;

    case 'verify':
        // Reads every key of both namespaces once.
        foreach (caches() as $c) {
            for ($i = 0; $i < NKEYS; $i++) {
                $key = 'k' . $i;
                $v = c_get($c, $key, $found);
                if ($found) {
                    $check($key, $v);
                }
            }
            $n = $c ? $c->get('ctr', $found) : shmcache_get('ctr', $found);
            if ($found && !is_int($n)) {
                $wrong++;
                $wrongKeys[] = 'ctr';
            }
        }
        printf("RESULT ok wrong=%d hits=%d%s\n", $wrong, $hits, $wrongKeys ? ' wrong_keys=' . implode(',', $wrongKeys) : '');
        break;

    case 'info':
        // Every counter must be a non-negative int, and slots_used <= slots_total.
        $bad = [];
        foreach ([shmcache_info(), (new ShmCache('fpm-ns'))->info()] as $info) {
            if (($info['enabled'] ?? false) !== true) {
                $bad[] = 'enabled';
            }
            foreach (['hits', 'misses', 'sets', 'deletes', 'kicks', 'recycles', 'expired', 'validation_failures',
                         'slots_total', 'slots_used', 'keys_memory_size', 'values_memory_size', 'values_written_bytes',
                         'compressed_count', 'flushes', 'start_time'] as $k) {
                if (!isset($info[$k]) || !is_int($info[$k]) || $info[$k] < 0) {
                    $bad[] = $k;
                }
            }
            if (($info['slots_used'] ?? 1) > ($info['slots_total'] ?? 0)) {
                $bad[] = 'slots_used>slots_total';
            }
            if (isset($info['values_used_bytes']) && $info['values_used_bytes'] > $info['values_memory_size']) {
                $bad[] = 'values_used_bytes>values_memory_size';
            }
        }
        $i = shmcache_info();
        printf("RESULT %s bad=%s hits=%d misses=%d sets=%d deletes=%d kicks=%d recycles=%d validation_failures=%d slots_used=%d slots_total=%d cas_retries=%d keys=%d values=%d\n",
            $bad ? 'fail' : 'ok', $bad ? implode(',', array_unique($bad)) : '-', $i['hits'], $i['misses'], $i['sets'], $i['deletes'],
            $i['kicks'], $i['recycles'], $i['validation_failures'], $i['slots_used'], $i['slots_total'], $i['cas_retries'] ?? -1,
            $i['keys_memory_size'], $i['values_memory_size']);
        break;

    case 'incr':
        // M increments of one counter; every one must succeed.
        $key = $_GET['key'];
        $m = (int) $_GET['m'];
        $fails = 0;
        for ($i = 0; $i < $m; $i++) {
            if (shmcache_incr($key, 1) === false) {
                $fails++;
            }
        }
        echo "RESULT " . ($fails ? 'fail' : 'ok') . " fails=$fails\n";
        break;

    case 'set':
        echo 'RESULT ' . (shmcache_set($_GET['key'], (int) $_GET['value']) ? 'ok' : 'fail') . "\n";
        break;

    case 'get':
        $v = shmcache_get($_GET['key'], $found);
        echo 'RESULT ok found=' . ($found ? 1 : 0) . ' value=' . (is_scalar($v) ? $v : gettype($v)) . "\n";
        break;

    // ---- requests that request_terminate_timeout ends (wall clock, usleep) ----
    case 'term_sleep':     // inside __sleep, during shmcache_set
        $o = new SleepPayload();
        [$o->key, $o->seq, $o->data, $o->sum, $o->sleepUs] = ['poison', 1, 'x', md5('poison1x'), 20000000];
        shmcache_set('poison:sleep', $o);
        echo "RESULT fail not terminated\n";
        break;

    case 'term_serialize': // inside __serialize, during ShmCache::set
        $o = new SerPayload();
        [$o->key, $o->seq, $o->data, $o->sum, $o->serUs] = ['poison', 1, 'x', md5('poison1x'), 20000000];
        (new ShmCache('fpm-ns'))->set('poison:serialize', $o);
        echo "RESULT fail not terminated\n";
        break;

    case 'term_wakeup':    // inside __wakeup, during shmcache_get
        $o = new SleepPayload();
        [$o->key, $o->seq, $o->data, $o->sum, $o->wakeUs] = ['poison', 1, random_bytes(300000), 'x', 20000000];
        shmcache_set('poison:wakeup', $o);
        shmcache_get('poison:wakeup');
        echo "RESULT fail not terminated\n";
        break;

    case 'term_unserialize': // inside __unserialize, during getMulti
        $o = new SerPayload();
        [$o->key, $o->seq, $o->data, $o->sum, $o->unserUs] = ['poison', 1, random_bytes(300000), 'x', 20000000];
        $c = new ShmCache('fpm-ns');
        $c->set('poison:unserialize', $o);
        $c->getMulti(['k1', 'poison:unserialize', 'k2']);
        echo "RESULT fail not terminated\n";
        break;

    case 'term_big':       // set/get of large values until terminated (the kill lands inside them)
        set_time_limit(0); // CPU-bound: only request_terminate_timeout may end it
        $vals = [];
        for ($i = 0; $i < 4; $i++) {
            $k = 'k' . mt_rand(0, NKEYS - 1);
            $vals[] = [$k, string_value($k, ++$seq, $i % 2 ? random_bytes(MAX_SIZE - 100) : str_repeat(md5((string) $i), (MAX_SIZE - 100) >> 5))];
        }
        $end = microtime(true) + 20;
        while (microtime(true) < $end) {
            foreach ($vals as [$k, $v]) {
                shmcache_set($k, $v);
                $got = shmcache_get($k, $found);
                if ($found && !valid_for($k, $got)) {
                    echo "RESULT fail wrong value for $k\n";
                    exit;
                }
            }
        }
        echo "RESULT fail not terminated\n";
        break;

    // ---- requests that max_execution_time ends with a fatal error (CPU time); the worker lives on ----
    case 'bail_sleep':     // fatal error inside __sleep, during shmcache_set
        $o = new SleepPayload();
        [$o->key, $o->seq, $o->data, $o->sum, $o->sleepSpin] = ['poison', 1, random_bytes(100000), 'x', BAIL_SPIN];
        shmcache_set('poison:bail-sleep', $o);
        echo "RESULT fail no fatal error\n";
        break;

    case 'bail_serialize': // fatal error inside __serialize, during setMulti
        $o = new SerPayload();
        [$o->key, $o->seq, $o->data, $o->sum, $o->serSpin] = ['poison', 1, random_bytes(100000), 'x', BAIL_SPIN];
        (new ShmCache('fpm-ns'))->setMulti(['a' => 1, 'poison:bail-ser' => $o, 'b' => 2]);
        echo "RESULT fail no fatal error\n";
        break;

    case 'bail_wakeup':    // fatal error inside __wakeup, during shmcache_get of a large value
        $size = (int) ($_GET['size'] ?? 4000000);
        $o = new SleepPayload();
        [$o->key, $o->seq, $o->data, $o->sum, $o->wakeSpin] = ['poison', 1, random_bytes($size), 'x', BAIL_SPIN];
        if (!shmcache_set('poison:bail-wakeup:' . $size, $o)) {
            echo "RESULT fail set\n";
            break;
        }
        shmcache_get('poison:bail-wakeup:' . $size);
        echo "RESULT fail no fatal error\n";
        break;

    case 'bail_wakeup_multi': // fatal error inside __wakeup, halfway through a get_multi batch
    case 'ctl_wakeup_multi':  // control: the same get_multi, without a fatal error
        $size = (int) ($_GET['size'] ?? 4000000);
        $bail = $op === 'bail_wakeup_multi';
        $o = new SleepPayload();
        [$o->key, $o->seq, $o->data, $o->sum, $o->wakeSpin] = ['poison', 1, random_bytes($size), 'x', $bail ? BAIL_SPIN : 0];
        $keys = [];
        for ($i = 0; $i < 8; $i++) {
            shmcache_set("poison:multi:$i", "value $i");
            $keys[] = "poison:multi:$i";
        }
        $poison = "poison:multi-wakeup:$op:$size";
        if (!shmcache_set($poison, $o)) {
            echo "RESULT fail set\n";
            break;
        }
        // The object sits in the middle: keys before it are read, keys after it wait in the
        // batch's look-ahead window when the fatal error ends the request.
        array_splice($keys, 3, 0, [$poison]);
        $v = shmcache_get_multi($keys);
        if ($bail) {
            echo "RESULT fail no fatal error\n";
        } else {
            echo 'RESULT ' . (count($v) === 9 && $v[$poison] instanceof SleepPayload && $v['poison:multi:7'] === 'value 7' ? 'ok' : 'fail') . "\n";
        }
        break;

    case 'bail_memory':    // memory_limit reached while the extension builds the PHP value of a get
        $k = 'poison:mem';
        shmcache_set($k, random_bytes(3000000));
        ini_set('memory_limit', (string) (memory_get_usage(true) + 1000000));
        $v = shmcache_get($k);
        echo "RESULT fail no fatal error\n";
        break;

    case 'bail_memory_array': // memory_limit reached halfway through decoding a native array
        // Short keys and values: the decoder shares them through its per-request string table,
        // which the fatal error abandons mid-use; the load requests that follow on the same
        // workers check every value they read.
        $k = 'poison:mem-array';
        $big = [];
        for ($i = 0; $i < 200000; $i++) {
            $big["f$i"] = 'v' . ($i % 1000);
        }
        shmcache_set($k, $big);
        unset($big);
        ini_set('memory_limit', (string) (memory_get_usage(true) + 4000000));
        $v = shmcache_get($k);
        echo "RESULT fail no fatal error\n";
        break;

    case 'bail_sleep_multi': // fatal error inside __sleep, after setMulti encoded a large value
        $size = (int) ($_GET['size'] ?? 4000000);
        $o = new SleepPayload();
        [$o->key, $o->seq, $o->data, $o->sum, $o->sleepSpin] = ['poison', 1, 'small', 'x', BAIL_SPIN];
        shmcache_set_multi(['poison:big' => random_bytes($size), 'poison:sleep' => $o]);
        echo "RESULT fail no fatal error\n";
        break;

    case 'ctl_sleep_multi':  // control for bail_sleep_multi: the same setMulti, without a fatal error
        $size = (int) ($_GET['size'] ?? 4000000);
        $o = new SleepPayload();
        [$o->key, $o->seq, $o->data, $o->sum] = ['poison', 1, 'small', 'x'];
        $failed = shmcache_set_multi(['poison:big' => random_bytes($size), 'poison:sleep' => $o]);
        echo 'RESULT ' . ($failed === [] ? 'ok' : 'fail') . "\n";
        break;

    case 'ctl_wakeup':     // control for bail_wakeup: the same get, without a fatal error
        $size = (int) ($_GET['size'] ?? 4000000);
        $o = new SleepPayload();
        [$o->key, $o->seq, $o->data, $o->sum] = ['poison', 1, random_bytes($size), 'x'];
        shmcache_set('poison:ctl:' . $size, $o);
        $v = shmcache_get('poison:ctl:' . $size);
        echo 'RESULT ' . ($v instanceof SleepPayload ? 'ok' : 'fail') . "\n";
        break;

    case 'rss':
        preg_match('/VmRSS:\s+(\d+)/', file_get_contents('/proc/self/status'), $m);
        echo 'RESULT ok pid=' . getmypid() . ' rss_kb=' . $m[1] . "\n";
        break;

    default:
        echo "RESULT fail unknown op\n";
}
