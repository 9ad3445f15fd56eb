--TEST--
apcu_entry: the generator runs once while others wait (6 forked processes), a throwing generator stores nothing, a SIGKILLed generator is taken over at once, a stuck one blocks others only for its 5 s lease
--INI--
shmcache.apcu_compat=1
--FILE--
<?php
require __DIR__ . '/inc/common.inc';
// posix may not be loaded: signals go through kill(1).
function signal_process(int $pid, string $signal): void { exec("kill -$signal $pid"); }
function show(string $label, $v): void { echo $label, ': ', var_export($v, true), "\n"; }

echo "-- generates once, stores with the TTL, returns the stored value after\n";
$calls = 0;
$gen = function ($key) use (&$calls) { $calls++; return "made for $key"; };
show('first', apcu_entry('e', $gen, 100));
show('second', apcu_entry('e', $gen, 100));
show('generator calls', $calls);
show('stored', apcu_fetch('e'));
show('ttl', apcu_key_info('e')['ttl'] > 90);
show('int key reaches the generator as a string', apcu_entry(7, fn($k) => gettype($k) . ":$k"));
show('empty key', apcu_entry('', fn($k) => "empty:[$k]"));

echo "-- a generator that throws stores nothing, the next call runs it again\n";
try {
    apcu_entry('t', function () { throw new RuntimeException('no value'); });
} catch (RuntimeException $e) {
    echo get_class($e), ': ', $e->getMessage(), "\n";
}
show('stored', apcu_exists('t'));
show('next call', apcu_entry('t', fn() => 'second try'));

echo "-- nested entries\n";
show('outer', apcu_entry('outer', fn() => 'outer+' . apcu_entry('inner', fn() => 'inner')));
show('same key inside its own generator', apcu_entry('self', fn() => 'self+' . apcu_entry('self', fn() => 'nested')));

echo "-- 6 processes at once: one generator run, everyone gets its value\n";
$codes = shm_fork_all(6, function () {
    $v = apcu_entry('slow', function () {
        apcu_inc('slow-calls');
        usleep(300000);
        return ['value' => getmypid()];
    });
    return is_array($v) && apcu_fetch('slow') === $v ? 0 : 1;
});
show('children ok', $codes);
show('generator runs', apcu_fetch('slow-calls'));

echo "-- the generator's process is SIGKILLed: waiters do not wait for the lease to expire\n";
foreach (['zombie (not reaped yet)', 'reaped'] as $case) {
    apcu_delete(['killed', 'killed-started']);
    $pids = shm_fork(1, function () {
        apcu_entry('killed', function () {
            apcu_store('killed-started', 1);
            signal_process(getmypid(), 'KILL');
            return 'never';
        });
        return 0;
    });
    while (!apcu_exists('killed-started')) usleep(1000);
    usleep(20000);
    if ($case === 'reaped') shm_wait($pids);
    $t = microtime(true);
    show("$case: value", apcu_entry('killed', fn() => 'from the waiter'));
    show("$case: waited under 1 s", microtime(true) - $t < 1.0);
    if ($case !== 'reaped') show('child killed', shm_wait($pids));
}

echo "-- a stuck generator (SIGSTOPped) blocks others at most for its lease (5 s)\n";
$pids = shm_fork(1, function () {
    apcu_entry('stuck', function () {
        apcu_store('stuck-started', 1);
        signal_process(getmypid(), 'STOP');
        return 'late';
    });
    return 0;
});
while (!apcu_exists('stuck-started')) usleep(1000);
$t = microtime(true);
show('value', apcu_entry('stuck', fn() => 'from the waiter'));
$waited = microtime(true) - $t;
show('waited for the lease (more than 1 s)', $waited > 1.0);
show('and no longer than the lease allows (under 7 s)', $waited < 7.0);
signal_process($pids[0], 'KILL');
show('child killed', shm_wait($pids));
show('stored value kept', apcu_fetch('stuck'));
?>
--EXPECT--
-- generates once, stores with the TTL, returns the stored value after
first: 'made for e'
second: 'made for e'
generator calls: 1
stored: 'made for e'
ttl: true
int key reaches the generator as a string: 'string:7'
empty key: 'empty:[]'
-- a generator that throws stores nothing, the next call runs it again
RuntimeException: no value
stored: false
next call: 'second try'
-- nested entries
outer: 'outer+inner'
same key inside its own generator: 'self+nested'
-- 6 processes at once: one generator run, everyone gets its value
children ok: array (
  0 => 0,
  1 => 0,
  2 => 0,
  3 => 0,
  4 => 0,
  5 => 0,
)
generator runs: 1
-- the generator's process is SIGKILLed: waiters do not wait for the lease to expire
zombie (not reaped yet): value: 'from the waiter'
zombie (not reaped yet): waited under 1 s: true
child killed: array (
  0 => -9,
)
reaped: value: 'from the waiter'
reaped: waited under 1 s: true
-- a stuck generator (SIGSTOPped) blocks others at most for its lease (5 s)
value: 'from the waiter'
waited for the lease (more than 1 s): true
and no longer than the lease allows (under 7 s): true
child killed: array (
  0 => -9,
)
stored value kept: 'from the waiter'
