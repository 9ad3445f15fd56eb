<?php
/*
 * shmcache demo workload: every request is served by one of several PHP worker processes
 * (PHP-FPM children, or the built-in server's PHP_CLI_SERVER_WORKERS), yet they all see one cache.
 *
 *   demo.php                 HTML page
 *   demo.php?format=text     one line, for curl in a terminal
 *   demo.php?format=json     the same as JSON
 *   demo.php?peek=1          report the shared state without changing anything (any format)
 *
 * Each request: counts itself in a shared counter (shmcache_add + shmcache_incr, atomic across
 * processes), registers its worker PID, swaps the "last visitor" record, and reads an
 * "expensive" value that is computed on a miss and cached with a TTL.
 */

declare(strict_types=1);

const EXPENSIVE_TTL = 20;        // seconds the computed value stays cached
const PRIME_LIMIT = 300000;      // the "expensive computation": counting primes below this
const EXTRA_DELAY_US = 250000;   // plus a simulated slow backend (database, API …)

function h(mixed $v): string
{
    if (is_bool($v)) {
        $v = $v ? 'true' : 'false';
    }
    return htmlspecialchars((string)$v, ENT_QUOTES | ENT_SUBSTITUTE | ENT_HTML5, 'UTF-8');
}

function ms(float $v): string
{
    return $v >= 10 ? number_format($v, 0) . ' ms' : number_format($v, 3) . ' ms';
}

function count_primes(int $limit): int
{
    $sieve = str_repeat("\1", $limit);
    $sieve[0] = $sieve[1] = "\0";
    for ($i = 2; $i * $i < $limit; $i++) {
        if ($sieve[$i] === "\1") {
            for ($j = $i * $i; $j < $limit; $j += $i) {
                $sieve[$j] = "\0";
            }
        }
    }
    return substr_count($sieve, "\1");
}

$format = (string)($_GET['format'] ?? 'html');
if (!in_array($format, ['html', 'text', 'json'], true)) {
    $format = 'html';
}
$peek = isset($_GET['peek']) && $_GET['peek'] !== '0';
$pid = getmypid();
$nonce = base64_encode(random_bytes(18));

header('Cache-Control: no-store');
header('X-Content-Type-Options: nosniff');
header("Content-Security-Policy: default-src 'none'; style-src 'nonce-$nonce'; frame-ancestors 'none'; base-uri 'none'");

$loaded = extension_loaded('shmcache') && function_exists('shmcache_info');
$enabled = $loaded && !empty(shmcache_info()['enabled']);

if (!$enabled) {
    $msg = $loaded
        ? 'shmcache is loaded but disabled in this SAPI (' . PHP_SAPI . '): check shmcache.enable (and shmcache.enable_cli for the CLI).'
        : 'the shmcache extension is not loaded in this PHP (' . PHP_SAPI . ').';
    http_response_code(503);
    if ($format === 'json') {
        header('Content-Type: application/json');
        echo json_encode(['pid' => $pid, 'error' => $msg]), "\n";
    } elseif ($format === 'text') {
        header('Content-Type: text/plain; charset=utf-8');
        echo "pid=$pid error: $msg\n";
    } else {
        header('Content-Type: text/html; charset=utf-8');
        echo '<!doctype html><meta charset="utf-8"><title>shmcache demo</title><h1>shmcache demo</h1><p>',
            h(ucfirst($msg)), '</p><p><a href="status.php">status page</a></p>', "\n";
    }
    exit;
}

// --- 1. the shared hit counter --------------------------------------------------------------
if ($peek) {
    $c = shmcache_get('demo:counter', $found);
    $counter = $found ? $c : null;
} else {
    $counter = false;
    for ($try = 0; $try < 3 && $counter === false; $try++) {
        shmcache_add('demo:counter', 0);            // only the first request of all creates it
        $counter = shmcache_incr('demo:counter');   // atomic: no two requests get the same number
    }
}

// --- 2. the workers seen so far: a race-free registry built from add + incr -----------------
if (!$peek && shmcache_add("demo:pid:$pid", 0)) {
    // First request of this PID since the last flush: claim the next registry slot.
    $n = shmcache_incr('demo:pids');
    if ($n === false) {
        shmcache_add('demo:pids', 0);
        $n = shmcache_incr('demo:pids');
    }
    if ($n !== false) {
        shmcache_set("demo:pidslot:$n", $pid);
    }
}
$mine = $peek ? null : shmcache_incr("demo:pid:$pid");
$workers = [];
$registered = shmcache_get('demo:pids', $found);
if ($found && is_int($registered) && $registered > 0) {
    $slotKeys = [];
    for ($i = 1; $i <= min($registered, 256); $i++) {
        $slotKeys[] = "demo:pidslot:$i";
    }
    foreach (shmcache_get_multi($slotKeys) as $p) {
        $cnt = shmcache_get("demo:pid:$p", $f);
        $workers[(int)$p] = $f ? (int)$cnt : 0;
    }
    ksort($workers);
}

// --- 3. the last visitor: read the previous record, leave ours -------------------------------
$prev = shmcache_get('demo:last_visitor', $found);
$previous = $found && is_array($prev) ? $prev : null;
if (!$peek) {
    shmcache_set('demo:last_visitor', [
        'pid' => $pid,
        'request' => $counter,
        'time' => microtime(true),
        'ip' => (string)($_SERVER['REMOTE_ADDR'] ?? ''),
        'agent' => substr((string)($_SERVER['HTTP_USER_AGENT'] ?? PHP_SAPI), 0, 80),
    ]);
}

// --- 4. an expensive value, cached with a TTL ------------------------------------------------
$t0 = hrtime(true);
$value = shmcache_get('demo:expensive', $found);
$hit = $found && is_array($value);
if (!$hit && !$peek) {
    usleep(EXTRA_DELAY_US);
    $count = count_primes(PRIME_LIMIT);
    $value = [
        'primes_below' => PRIME_LIMIT,
        'count' => $count,
        'computed_by' => $pid,
        'computed_at' => time(),
        'expires_at' => time() + EXPENSIVE_TTL,
        'compute_ms' => round((hrtime(true) - $t0) / 1e6, 1),
    ];
    shmcache_set('demo:expensive', $value, EXPENSIVE_TTL);
}
$elapsedMs = (hrtime(true) - $t0) / 1e6;

$result = [
    'pid' => $pid,
    'counter' => $counter,
    'peek' => $peek,
    'this_worker_requests' => $mine,
    'workers' => $workers,
    'previous_visitor' => $previous,
    'expensive' => [
        'hit' => $hit,
        'ms' => round($elapsedMs, 3),
        'value' => $hit || !$peek ? $value : null,
    ],
];

if ($format === 'json') {
    header('Content-Type: application/json');
    echo json_encode($result, JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES | JSON_INVALID_UTF8_SUBSTITUTE), "\n";
    exit;
}
if ($format === 'text') {
    header('Content-Type: text/plain; charset=utf-8');
    printf(
        "pid=%d counter=%s previous_pid=%s expensive=%s(%s) workers_seen=%s\n",
        $pid,
        is_int($counter) ? (string)$counter : 'none',
        $previous['pid'] ?? '-',
        $hit ? 'HIT' : ($peek ? 'absent' : 'MISS'),
        ms($elapsedMs),
        $workers ? implode(',', array_keys($workers)) : '-'
    );
    exit;
}

header('Content-Type: text/html; charset=utf-8');
$ago = $previous ? max(0.0, microtime(true) - (float)$previous['time']) : 0.0;
?><!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>shmcache demo · pid <?= h($pid) ?></title>
<style nonce="<?= h($nonce) ?>">
body { margin:0; font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif; background:#f5f6f8; color:#1d2330; }
header { background:#1d2330; color:#fff; padding:14px 24px; display:flex; gap:18px; align-items:baseline; flex-wrap:wrap; }
header h1 { margin:0; font-size:20px; } header a { color:#9ec1ff; }
main { max-width:980px; margin:0 auto; padding:20px 24px 40px; }
.grid { display:grid; grid-template-columns:repeat(auto-fit,minmax(200px,1fr)); gap:16px; }
.card { background:#fff; border:1px solid #e3e6ea; border-radius:10px; padding:16px 18px; }
.card h2 { font-size:13px; text-transform:uppercase; letter-spacing:.06em; color:#667085; margin:0 0 10px; }
.big { font-size:38px; font-weight:700; font-variant-numeric:tabular-nums; }
.hit { color:#2e9d5b; font-weight:700; } .miss { color:#d64545; font-weight:700; }
table { border-collapse:collapse; width:100%; } td, th { padding:4px 8px; border-bottom:1px solid #e3e6ea; text-align:left; }
.workers { margin-top:16px; }
tr.me td { font-weight:700; background:#eef4ff; }
.muted { color:#667085; font-size:13px; } code { background:#f0f2f5; padding:1px 5px; border-radius:4px; }
</style>
</head>
<body>
<header>
  <h1>shmcache demo</h1>
  <span><a href="">reload</a> · <a href="status.php">status page</a> · <a href="?format=json">JSON</a></span>
</header>
<main>
  <p>This request was served by worker <strong>PID <?= h($pid) ?></strong>. Reload a few times: other
     worker processes answer, and they all read and write the same shared-memory cache.</p>
  <div class="grid">
    <section class="card">
      <h2>Shared hit counter</h2>
      <div class="big"><?= h($counter ?? '—') ?></div>
      <div class="muted"><?= $peek ? 'read only (peek)' : 'this request’s number: <code>shmcache_incr()</code> is atomic across processes' ?></div>
    </section>
    <section class="card">
      <h2>Worker PID</h2>
      <div class="big"><?= h($pid) ?></div>
      <div class="muted"><?= $mine !== null ? h($mine) . ' request(s) served by this worker so far' : '' ?></div>
    </section>
    <section class="card">
      <h2>Previous visitor</h2>
      <?php if ($previous): ?>
      <div>request <strong>#<?= h($previous['request'] ?? '?') ?></strong>, served by PID
        <strong><?= h($previous['pid'] ?? '?') ?></strong><?= ($previous['pid'] ?? null) !== $pid ? ' (another process!)' : ' (this same process)' ?>,
        <?= h(number_format($ago, 1)) ?> s ago</div>
      <div class="muted"><?= h($previous['ip'] ?? '') ?> · <?= h($previous['agent'] ?? '') ?></div>
      <?php else: ?>
      <div>nobody yet — you are the first.</div>
      <?php endif ?>
    </section>
    <section class="card">
      <h2>Expensive value (TTL <?= h(EXPENSIVE_TTL) ?> s)</h2>
      <?php if ($hit): ?>
      <div><span class="hit">HIT</span> read in <strong><?= h(ms($elapsedMs)) ?></strong></div>
      <div class="muted">computed by PID <?= h($value['computed_by'] ?? '?') ?> in <?= h(ms((float)($value['compute_ms'] ?? 0))) ?>,
        expires in <?= h(max(0, (int)($value['expires_at'] ?? 0) - time())) ?> s</div>
      <?php elseif ($peek): ?>
      <div>not cached right now</div>
      <?php else: ?>
      <div><span class="miss">MISS</span> computed in <strong><?= h(ms($elapsedMs)) ?></strong> and stored for <?= h(EXPENSIVE_TTL) ?> s</div>
      <?php endif ?>
      <?php if (is_array($value)): ?>
      <div class="muted"><?= h(number_format((int)$value['count'])) ?> primes below <?= h(number_format((int)$value['primes_below'])) ?>
        (plus a simulated <?= h(EXTRA_DELAY_US / 1000) ?> ms backend call on a miss)</div>
      <?php endif ?>
    </section>
  </div>
  <section class="card workers">
    <h2>Workers that served this cache</h2>
    <table>
      <tr><th>PID</th><th>requests served</th></tr>
      <?php foreach ($workers as $wpid => $cnt): ?>
      <tr<?= $wpid === $pid ? ' class="me"' : '' ?>><td><?= h($wpid) ?></td><td><?= h($cnt) ?></td></tr>
      <?php endforeach ?>
    </table>
    <p class="muted">Each PID registered itself once with <code>shmcache_add("demo:pid:&lt;pid&gt;")</code>
      (only one caller can win an add), then took a slot number from <code>shmcache_incr("demo:pids")</code>.
      From a terminal: <code>for i in $(seq 8); do curl -s 'http://<?= h($_SERVER['HTTP_HOST'] ?? '127.0.0.1:8080') ?>/demo.php?format=text'; done</code></p>
  </section>
</main>
</body>
</html>
