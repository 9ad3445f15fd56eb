<?php
/**
 * Side-by-side benchmark of shmcache against APCu, Yac, Memcached, Redis and a plain PHP array
 * (the in-process ceiling), in one PHP process. Run by bench/run-all.sh, which starts the
 * servers and loads every extension; prints markdown tables (absolute ops/s and the ratio
 * shmcache/peer) and writes the raw figures as JSON for the charts.
 *
 *   php bench/suite.php micro|contention|memory  [--json FILE] [--seconds S]
 */

$mode    = 'micro';
$opts    = [];
for ($i = 1; $i < count($argv); $i++) {
    if (strncmp($argv[$i], '--', 2) === 0) {
        $opts[substr($argv[$i], 2)] = $argv[++$i] ?? '';
    } else {
        $mode = $argv[$i];
    }
}
$seconds = (float) ($opts['seconds'] ?? (getenv('BENCH_SECONDS') ?: 0.2));
$jsonOut = $opts['json'] ?? null;

// ------------------------------------------------------------------------------ the caches
/**
 * Each cache: PHP expressions for its operations ($k key, $v value, $ks array of keys, $s step),
 * compiled into loops by loop(), so no closure call sits between two operations.
 */
function caches(): array {
    $c = [];
    if (function_exists('shmcache_get') && shmcache_info()['enabled']) {
        $c['shmcache'] = [
            'init' => '',
            'get' => 'shmcache_get($k)', 'set' => 'shmcache_set($k, $v)', 'add' => 'shmcache_add($k, $v)',
            'set_ttl' => 'shmcache_set($k, $v, 3600)',
            'incr' => 'shmcache_incr($k, 1)', 'delete' => 'shmcache_delete($k)', 'multi' => 'shmcache_get_multi($ks)',
            'flush' => 'shmcache_flush()',
        ];
    }
    $c['php array'] = [
        'init' => 'global $ARR;',
        'get' => '($ARR[$k] ?? false)', 'set' => '($ARR[$k] = $v)', 'add' => '(isset($ARR[$k]) ? false : ($ARR[$k] = $v))',
        'set_ttl' => '($ARR[$k] = $v)', // (no expiry: the bound no cache can beat)
        'incr' => '(++$ARR[$k])', 'delete' => '(function() use ($k) { global $ARR; unset($ARR[$k]); })()',
        'multi' => 'array_intersect_key($ARR, array_flip($ks))', 'flush' => '($GLOBALS["ARR"] = [])',
    ];
    if (function_exists('apcu_fetch') && apcu_enabled()) {
        $c['apcu'] = [
            'init' => '',
            'get' => 'apcu_fetch($k)', 'set' => 'apcu_store($k, $v)', 'add' => 'apcu_add($k, $v)',
            'set_ttl' => 'apcu_store($k, $v, 3600)',
            'incr' => 'apcu_inc($k, 1)', 'delete' => 'apcu_delete($k)', 'multi' => 'apcu_fetch($ks)',
            'flush' => 'apcu_clear_cache()',
        ];
    }
    if (class_exists('Yac')) {
        $GLOBALS['YAC'] = new Yac();
        $c['yac'] = [
            'init' => 'global $YAC;',
            'get' => '$YAC->get($k)', 'set' => '$YAC->set($k, $v)', 'add' => '$YAC->add($k, $v)',
            'set_ttl' => '$YAC->set($k, $v, 3600)',
            'incr' => null, 'delete' => '$YAC->delete($k)', 'multi' => '$YAC->get($ks)',
            'flush' => '$YAC->flush()',
        ];
    }
    if (class_exists('Memcached') && getenv('BENCH_MEMCACHED_SOCKET')) {
        $m = new Memcached();
        $m->addServer(getenv('BENCH_MEMCACHED_SOCKET'), 0);
        $m->setOption(Memcached::OPT_BINARY_PROTOCOL, false);
        $GLOBALS['MC'] = $m;
        $c['memcached'] = [
            'init' => 'global $MC;',
            'get' => '$MC->get($k)', 'set' => '$MC->set($k, $v)', 'add' => '$MC->add($k, $v)',
            'set_ttl' => '$MC->set($k, $v, 3600)',
            'incr' => '$MC->increment($k, 1)', 'delete' => '$MC->delete($k)', 'multi' => '$MC->getMulti($ks)',
            'flush' => '$MC->flush()',
        ];
    }
    if (class_exists('Redis') && getenv('BENCH_REDIS_SOCKET')) {
        $r = new Redis();
        $r->connect(getenv('BENCH_REDIS_SOCKET'));
        $r->setOption(Redis::OPT_SERIALIZER, Redis::SERIALIZER_PHP);
        $GLOBALS['RD'] = $r;
        $c['redis'] = [
            'init' => 'global $RD;',
            'get' => '$RD->get($k)', 'set' => '$RD->set($k, $v)', 'add' => '$RD->setnx($k, $v)',
            'set_ttl' => '$RD->setex($k, 3600, $v)',
            // INCR on a PHP-serialized integer fails: counters are written raw by the harness.
            'incr' => '$RD->incr($k)', 'delete' => '$RD->del($k)', 'multi' => '$RD->mGet($ks)',
            'flush' => '$RD->flushDb()',
        ];
    }
    // BENCH_ONLY=apcu,...: only these caches (bench/apcu.sh measures the apcu_* functions alone,
    // served by shmcache in one process and by APCu in another).
    if ($only = getenv('BENCH_ONLY')) {
        $c = array_intersect_key($c, array_flip(explode(',', $only)));
    }
    return $c;
}

/** A compiled loop: function(array $keys, $v) running $expr once per key, returning the count. */
function loop(array $cache, string $expr): Closure {
    static $n = 0;
    $name = 'bench_loop_' . ++$n;
    eval('function ' . $name . '(array $keys, $v) { ' . $cache['init'] . ' $r = null; foreach ($keys as $k) { $r = ' . $expr . '; } return count($keys); }');
    return Closure::fromCallable($name);
}

function multiloop(array $cache): Closure {
    static $n = 0;
    $name = 'bench_multi_' . ++$n;
    eval('function ' . $name . '(array $batches) { ' . $cache['init'] . ' $r = null; foreach ($batches as $ks) { $r = ' . $cache['multi'] . '; } return count($batches); }');
    return Closure::fromCallable($name);
}

require __DIR__ . '/rounds.php';

/**
 * Best of 5 rounds of about $seconds each, per cache, the caches taking turns: ops/s by cache.
 * (Five short rounds rather than three longer ones: a burst of load from other jobs on the
 * shared machine that spans a whole round then rarely decides a cache's figure.)
 */
function rates(array $roundsByCache, float $seconds): array {
    return best_rates($roundsByCache, 5, $seconds);
}

/** One pass over fresh keys, for operations that change state (add, delete): ops/s. */
function once(callable $pass, int $n): float {
    $t0 = hrtime(true);
    $pass();
    return $n / ((hrtime(true) - $t0) / 1e9);
}

require __DIR__ . '/values.php';

function keys_for(string $prefix, int $n, bool $shuffled): array {
    $idx = range(0, $n - 1);
    if ($shuffled) {
        mt_srand(12345);
        shuffle($idx);
    }
    $keys = [];
    foreach ($idx as $i) {
        $keys[] = "$prefix:$i";   // fresh strings in access order; short enough for Yac (48 B)
    }
    return $keys;
}

function same($a, $b): bool {
    return is_object($a) ? $a == $b : $a === $b;
}

// ------------------------------------------------------------------------------------ micro
function micro(float $seconds): array {
    $caches  = caches();
    $results = [];
    // BENCH_MICRO_VALUES: only the values whose name contains it (run-all's compression-off pass);
    // BENCH_MICRO_LABEL: appended to every case name.
    $only  = getenv('BENCH_MICRO_VALUES') ?: '';
    $label = getenv('BENCH_MICRO_LABEL') ?: '';
    foreach (values() as $vname => $v) {
        if ($only !== '' && strpos($vname, $only) === false) {
            continue;
        }
        $vname .= $label;
        // Large values: fewer keys, so the whole set fits every cache's memory (a quarter of it).
        $N     = (int) min(10000, (64 << 20) / max(64, strlen(serialize($v))));
        $keys  = keys_for('m', $N, false);
        $order = keys_for('m', $N, true);
        $chunks = array_chunk($order, 500);
        // Every cache is filled before any is measured, so that each case can run its rounds
        // with the caches taking turns (rates()).
        $loops = [];
        foreach ($caches as $cname => $c) {
            eval($c['init'] . ' ' . $c['flush'] . ';');
            $set = loop($c, $c['set']);
            $set($keys, $v);
            $probe = eval($c['init'] . ' $k = "m:' . ($N - 1) . '"; return ' . $c['get'] . ';');
            if (!same($probe, $v)) {
                fwrite(STDERR, "$cname: wrong value read back for '$vname' (" . gettype($probe) . ")\n");
                continue;
            }
            $loops[$cname] = [
                'get' => loop($c, $c['get']), 'set' => $set, 'add' => loop($c, $c['add']), 'delete' => loop($c, $c['delete']),
                'set_ttl' => loop($c, $c['set_ttl']),
                'chunk' => new ArrayIterator($chunks),
            ];
        }
        // Each round takes the next chunk of shuffled keys (wrapping around).
        $next = function (ArrayIterator $it): array {
            if (!$it->valid()) {
                $it->rewind();
            }
            $chunk = $it->current();
            $it->next();
            return $chunk;
        };
        foreach (['get' => "get hit: $vname", 'set' => "set: $vname"] as $op => $case) {
            $results[$case] = rates(array_map(fn($l) => fn() => $l[$op]($next($l['chunk']), $v), $loops), $seconds);
        }
        if ($vname === 'small string') {
            $missKeys = keys_for('absent', 500, false);
            $results['get miss'] = rates(array_map(fn($l) => fn() => $l['get']($missKeys, $v), $loops), $seconds);
            // Values with an expiry: each read and write of one compares or computes a time.
            $ttlKeys = keys_for('ttl', 500, true);
            foreach ($loops as $l) {
                $l['set_ttl']($ttlKeys, $v);
            }
            $results["get hit, stored with a 1 h TTL: $vname"] = rates(array_map(fn($l) => fn() => $l['get']($ttlKeys, $v), $loops), $seconds);
            $results["set with a 1 h TTL: $vname"] = rates(array_map(fn($l) => fn() => $l['set_ttl']($ttlKeys, $v), $loops), $seconds);
        }
        // add and delete change what they measure, so each of the 3 rounds adds a fresh set of
        // keys and then deletes exactly those; the best round counts, as elsewhere. At most
        // 5,000 keys a round (the same for every cache), so that the network caches' rounds of
        // large values stay short.
        $adds = array_fill_keys(array_keys($loops), 0.0);
        $deletes = $adds;
        $fresh_n = min($N, 5000);
        for ($round = 0; $round < 3; $round++) {
            foreach ($loops as $cname => $l) {
                $fresh = keys_for("add$round-" . mt_rand(), $fresh_n, true);
                $adds[$cname] = max($adds[$cname], once(fn() => $l['add']($fresh, $v), $fresh_n));
                $deletes[$cname] = max($deletes[$cname], once(fn() => $l['delete']($fresh, $v), $fresh_n));
            }
        }
        $results["add (new keys): $vname"] = $adds;
        $results["delete (existing keys): $vname"] = $deletes;
        // 20 batches of 100 of the stored keys, in shuffled order.
        $batches = array_slice(array_chunk($order, 100), 0, 20);
        $multi = [];
        foreach (array_keys($loops) as $cname) {
            $m = multiloop($caches[$cname]);
            $multi[$cname] = fn() => 100 * $m($batches);
        }
        $results["multi-get of 100 keys (keys/s): $vname"] = rates($multi, $seconds);
        if ($vname === 'int') {
            $incr = [];
            foreach ($loops as $cname => $l) {
                if ($caches[$cname]['incr'] === null) {
                    continue;
                }
                $counters = keys_for('ctr', 500, false);
                if ($cname === 'redis') {
                    foreach ($counters as $k) { $GLOBALS['RD']->rawCommand('SET', $k, '0'); }
                } else {
                    $l['set']($counters, 0);
                }
                $loop = loop($caches[$cname], $caches[$cname]['incr']);
                $incr[$cname] = fn() => $loop($counters, null);
            }
            $results['incr'] = rates($incr, $seconds);
        }
    }
    return $results;
}

// ------------------------------------------------------------------------------- contention
/** A value that proves which key it belongs to. */
function proof_value(string $key, int $size, int $seq): string {
    $body = $key . '|' . $seq . '|' . str_repeat(chr(65 + $seq % 26), max(0, $size - strlen($key) - 40));
    return $body . '|' . md5($body);
}

function proof_ok(string $key, $v): bool {
    if (!is_string($v)) {
        return false;
    }
    $p = strrpos($v, '|');
    return $p !== false && md5(substr($v, 0, $p)) === substr($v, $p + 1) && strncmp($v, $key . '|', strlen($key) + 1) === 0;
}

function contention(float $seconds): array {
    $results = [];
    $keysN   = (int) (getenv('BENCH_CONTENTION_KEYS') ?: 2000);
    $label   = getenv('BENCH_CONTENTION_LABEL') ?: '';
    foreach (caches() as $cname => $c) {
        if ($cname === 'php array') {
            continue; // not shared between processes
        }
        foreach ([100, 4096, 20480] as $size) {
            foreach ([90, 50] as $readPct) {
                foreach ([1, 2, 4] as $procs) {
                    eval($c['init'] . ' ' . $c['flush'] . ';');
                    $tmp   = [];
                    $pids  = [];
                    $t0    = hrtime(true);
                    for ($p = 0; $p < $procs; $p++) {
                        $tmp[$p] = tempnam(sys_get_temp_dir(), 'shmbench');
                        $pid = pcntl_fork();
                        if ($pid === 0) {
                            $cc = caches()[$cname];   // fresh connections in the child
                            $init = $cc['init'];
                            mt_srand(1000 + $p);
                            $ops = 0;
                            $wrong = 0;
                            $hits = 0;
                            $reads = 0;
                            $seq = $p * 1000000;
                            $end = hrtime(true) + (int) ($seconds * 1e9);
                            $setfn = eval('return function ($k, $v) { ' . $init . ' return ' . $cc['set'] . '; };');
                            $getfn = eval('return function ($k) { ' . $init . ' return ' . $cc['get'] . '; };');
                            while (hrtime(true) < $end) {
                                for ($i = 0; $i < 200; $i++) {
                                    $k = 'c:' . mt_rand(0, $keysN - 1);
                                    if (mt_rand(0, 99) < $readPct) {
                                        $reads++;
                                        $v = $getfn($k);
                                        if ($v !== false && $v !== null) {
                                            $hits++;
                                            if (!proof_ok($k, $v)) {
                                                $wrong++;
                                            }
                                        }
                                    } else {
                                        $setfn($k, proof_value($k, $size, ++$seq));
                                    }
                                }
                                $ops += 200;
                            }
                            file_put_contents($tmp[$p], "$ops $wrong $hits $reads");
                            exit(0);
                        }
                        $pids[] = $pid;
                    }
                    foreach ($pids as $pid) {
                        pcntl_waitpid($pid, $st);
                    }
                    $elapsed = (hrtime(true) - $t0) / 1e9;
                    $ops = $wrong = $hits = $reads = 0;
                    for ($p = 0; $p < $procs; $p++) {
                        [$o, $w, $h, $r] = array_map('intval', explode(' ', (string) @file_get_contents($tmp[$p])) + [0, 0, 0, 0]);
                        @unlink($tmp[$p]);
                        $ops += $o;
                        $wrong += $w;
                        $hits += $h;
                        $reads += $r;
                    }
                    $case = sprintf('%s%d B, %d%% reads, %d proc', $label, $size, $readPct, $procs);
                    $results[$case][$cname] = ['ops' => $ops / $elapsed, 'wrong' => $wrong, 'hits' => $hits, 'reads' => $reads,
                        'hits_per_s' => $hits / $elapsed];
                }
            }
        }
    }
    return $results;
}

// ----------------------------------------------------------------------------------- memory
function memory_per_entry(): array {
    $n   = 100000;
    $out = [];
    foreach (caches() as $cname => $c) {
        if ($cname === 'yac') {
            continue; // Yac reports no used-bytes figure for its value memory
        }
        eval($c['init'] . ' ' . $c['flush'] . ';');
        $before = mem_used($cname);
        $set = loop($c, $c['set']);
        $keys = keys_for('wp:posts', $n, false);
        // 100,000 WordPress-like entries (a post object each, ~3 KB serialized).
        foreach (array_chunk($keys, 1000) as $ci => $chunk) {
            $v = wp_post_object($ci);
            $set($chunk, $v);
        }
        $stored = 0;
        $get = eval('return function ($k) { ' . $c['init'] . ' return ' . $c['get'] . '; };');
        foreach ($keys as $i => $k) {
            if ($i % 10 === 0 && $get($k) !== false) {
                $stored += 10;
            }
        }
        $used = mem_used($cname) - $before;
        $out[$cname] = ['bytes' => $used, 'entries' => $stored, 'per_entry' => $stored ? $used / $stored : null];
    }
    return $out;
}

function mem_used(string $cname): int {
    switch ($cname) {
        case 'shmcache':
            $i = shmcache_info();
            return $i['values_used_bytes'] + $i['slots_used'] * 8;
        case 'php array':
            return memory_get_usage();
        case 'apcu':
            $s = apcu_sma_info(true);
            return $s['num_seg'] * $s['seg_size'] - $s['avail_mem'];
        case 'memcached':
            $st = $GLOBALS['MC']->getStats();
            return (int) array_values($st)[0]['bytes'];
        case 'redis':
            return (int) $GLOBALS['RD']->info('memory')['used_memory'];
    }
    return 0;
}

// ------------------------------------------------------------------------------------ output
function table(array $results, string $unit = 'ops/s'): string {
    $names = [];
    foreach ($results as $row) {
        foreach (array_keys($row) as $n) {
            $names[$n] = true;
        }
    }
    $names = array_keys($names);
    $peers = array_values(array_filter($names, fn($n) => $n !== 'shmcache'));
    $md = '| benchmark | ' . implode(' | ', array_map(fn($n) => "$n $unit", $names)) . ' | '
        . implode(' | ', array_map(fn($n) => "shmcache / $n", $peers)) . " |\n";
    $md .= '|---' . str_repeat('|---:', count($names) + count($peers)) . "|\n";
    foreach ($results as $case => $row) {
        $val = fn($n) => is_array($row[$n] ?? null) ? $row[$n]['ops'] : ($row[$n] ?? null);
        $cells = array_map(fn($n) => $val($n) === null ? '–' : number_format($val($n)), $names);
        $ratios = array_map(fn($n) => ($val($n) && $val('shmcache')) ? sprintf('%.2f×', $val('shmcache') / $val($n)) : '–', $peers);
        $md .= "| $case | " . implode(' | ', $cells) . ' | ' . implode(' | ', $ratios) . " |\n";
    }
    return $md;
}

switch ($mode) {
    case 'micro':
        $r = micro($seconds);
        echo table($r);
        break;
    case 'contention':
        $r = contention($seconds);
        echo table($r);
        // A miss costs a cache almost nothing, so ops/s alone rewards a cache that keeps fewer
        // values: the reads it served from memory per second are the work a site gets.
        echo "\nReads served from the cache (hits) per second, all processes together:\n\n";
        $served = [];
        foreach ($r as $case => $row) {
            foreach ($row as $n => $x) {
                $served[$case][$n] = $x['hits_per_s'];
            }
        }
        echo table($served, 'hits/s');
        echo "\nWrong values read (value not matching its key and checksum) / values read from the cache, and the hit rate (hits / reads), per cache:\n\n";
        $wrongTable = [];
        foreach ($r as $case => $row) {
            foreach ($row as $n => $x) {
                $rate = $x['reads'] > 0 ? sprintf(' (%.1f%%)', 100 * $x['hits'] / $x['reads']) : '';
                $wrongTable[$case][$n] = $x['wrong'] . ' / ' . number_format($x['hits']) . $rate;
            }
        }
        $names = array_keys(reset($wrongTable));
        echo '| case | ' . implode(' | ', $names) . " |\n|---" . str_repeat('|---:', count($names)) . "|\n";
        foreach ($wrongTable as $case => $row) {
            echo "| $case | " . implode(' | ', array_map(fn($n) => $row[$n] ?? '–', $names)) . " |\n";
        }
        break;
    case 'memory':
        $r = memory_per_entry();
        echo "| cache | memory used | entries retrievable | bytes per entry |\n|---|---:|---:|---:|\n";
        foreach ($r as $n => $x) {
            printf("| %s | %s | %s | %s |\n", $n, number_format($x['bytes']), number_format($x['entries']), $x['per_entry'] === null ? '–' : number_format($x['per_entry']));
        }
        break;
    default:
        fwrite(STDERR, "usage: suite.php micro|contention|memory\n");
        exit(2);
}
if ($jsonOut) {
    file_put_contents($jsonOut, json_encode($r, JSON_PRETTY_PRINT));
}
