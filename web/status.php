<?php
/*
 * shmcache status page — a single file in the spirit of APCu's apc.php.
 *
 * Drop it into a directory served by the PHP-FPM pool whose cache you want to see: every worker
 * of one FPM master shares one region, so any worker reports the same numbers.
 *
 *   status.php               HTML page: health verdict, charts, every counter, "Flush cache"
 *   status.php?format=json   shmcache_info() as JSON (for monitoring); 503 if not loaded
 *   status.php?refresh=5     reload the HTML page every 5 seconds
 *
 * Access control: when the environment variable SHMCACHE_STATUS_PASSWORD is set (FPM pool:
 * env[SHMCACHE_STATUS_PASSWORD] = ..., or fastcgi_param / SetEnv) HTTP basic auth is required;
 * the user name must equal SHMCACHE_STATUS_USER when that is set, and is free otherwise.
 * Without a password anyone who can reach the page can read it and flush the cache, so put it
 * behind your web server's access control in production.
 *
 * The flush is a POST carrying a CSRF token (random token in a SameSite=Strict cookie, echoed
 * in a hidden field, compared with hash_equals); a request whose Origin or Referer names
 * another host is refused as well.
 */

declare(strict_types=1);

const CSRF_COOKIE = 'shmcache_status_csrf';
const CSRF_FIELD = 'csrf_token';

// ---------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------

function h(mixed $v): string
{
    if (is_bool($v)) {
        $v = $v ? 'true' : 'false';
    }
    return htmlspecialchars((string)$v, ENT_QUOTES | ENT_SUBSTITUTE | ENT_HTML5, 'UTF-8');
}

function env_value(string $name): string
{
    $v = getenv($name);
    if ($v === false || $v === '') {
        $v = $_SERVER[$name] ?? $_ENV[$name] ?? '';
    }
    return is_string($v) ? $v : '';
}

function num(int|float $n, int $decimals = 0): string
{
    return number_format((float)$n, $decimals, '.', ',');
}

function bytes(int|float $n): string
{
    $units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    $i = 0;
    $n = (float)$n;
    while ($n >= 1024 && $i < count($units) - 1) {
        $n /= 1024;
        $i++;
    }
    return $i === 0 ? num($n) . ' B' : num($n, $n >= 100 ? 0 : 1) . ' ' . $units[$i];
}

function pct(float $ratio, int $decimals = 1): string
{
    return num($ratio * 100, $decimals) . ' %';
}

function duration(int $s): string
{
    if ($s < 0) {
        $s = 0;
    }
    $d = intdiv($s, 86400);
    $hh = intdiv($s % 86400, 3600);
    $m = intdiv($s % 3600, 60);
    $sec = $s % 60;
    $parts = [];
    if ($d) {
        $parts[] = "{$d}d";
    }
    if ($d || $hh) {
        $parts[] = "{$hh}h";
    }
    if ($d || $hh || $m) {
        $parts[] = "{$m}m";
    }
    $parts[] = "{$sec}s";
    return implode(' ', $parts);
}

function ratio(int|float $a, int|float $b): float
{
    return $b > 0 ? $a / $b : 0.0;
}

function is_https(): bool
{
    return (!empty($_SERVER['HTTPS']) && strtolower((string)$_SERVER['HTTPS']) !== 'off')
        || strtolower((string)($_SERVER['HTTP_X_FORWARDED_PROTO'] ?? '')) === 'https';
}

function script_path(): string
{
    $p = (string)($_SERVER['SCRIPT_NAME'] ?? $_SERVER['PHP_SELF'] ?? 'status.php');
    return $p === '' ? 'status.php' : $p;
}

function send_json(mixed $data, int $status = 200): never
{
    http_response_code($status);
    header('Content-Type: application/json; charset=utf-8');
    echo json_encode($data, JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES | JSON_INVALID_UTF8_SUBSTITUTE
        | JSON_PRESERVE_ZERO_FRACTION), "\n";
    exit;
}

// ---------------------------------------------------------------------------------------------
// Request handling: headers, auth, CSRF
// ---------------------------------------------------------------------------------------------

$method = strtoupper((string)($_SERVER['REQUEST_METHOD'] ?? 'GET'));
$wantJson = ($_GET['format'] ?? '') === 'json';
$nonce = base64_encode(random_bytes(18));

if (!headers_sent()) {
    header('Cache-Control: no-store');
    header('X-Content-Type-Options: nosniff');
    header('X-Frame-Options: DENY');
    header('Referrer-Policy: same-origin');
    header("Content-Security-Policy: default-src 'none'; style-src 'nonce-$nonce'; img-src data:; "
        . "form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
}

/** The credentials of an HTTP basic auth header, whichever way the SAPI passes them. */
function basic_credentials(): array
{
    if (isset($_SERVER['PHP_AUTH_USER'])) {
        return [(string)$_SERVER['PHP_AUTH_USER'], (string)($_SERVER['PHP_AUTH_PW'] ?? '')];
    }
    $hdr = (string)($_SERVER['HTTP_AUTHORIZATION'] ?? $_SERVER['REDIRECT_HTTP_AUTHORIZATION'] ?? '');
    if (stripos($hdr, 'basic ') === 0) {
        $raw = base64_decode(trim(substr($hdr, 6)), true);
        if ($raw !== false && str_contains($raw, ':')) {
            return explode(':', $raw, 2);
        }
    }
    return [null, null];
}

$password = env_value('SHMCACHE_STATUS_PASSWORD');
if ($password !== '') {
    [$user, $given] = basic_credentials();
    $wantUser = env_value('SHMCACHE_STATUS_USER');
    $ok = $given !== null
        && hash_equals(hash('sha256', $password), hash('sha256', (string)$given))
        && ($wantUser === '' || hash_equals(hash('sha256', $wantUser), hash('sha256', (string)$user)));
    if (!$ok) {
        header('WWW-Authenticate: Basic realm="shmcache status", charset="UTF-8"');
        if ($wantJson) {
            send_json(['error' => 'authentication required'], 401);
        }
        http_response_code(401);
        header('Content-Type: text/plain; charset=utf-8');
        echo "401 Unauthorized: this shmcache status page needs a password.\n";
        exit;
    }
}

/** host[:port] of a URL or Host header, lower case, default ports dropped; null if unusable. */
function origin_key(string $url, string $defaultScheme = 'http'): ?string
{
    if (!preg_match('~^[a-z][a-z0-9+.-]*://~i', $url)) {
        $url = $defaultScheme . '://' . $url;
    }
    $p = parse_url($url);
    if (!is_array($p) || !isset($p['host']) || $p['host'] === '') {
        return null;
    }
    $scheme = strtolower($p['scheme'] ?? $defaultScheme);
    $port = $p['port'] ?? null;
    if (($scheme === 'http' && $port === 80) || ($scheme === 'https' && $port === 443)) {
        $port = null;
    }
    return strtolower($p['host']) . ($port === null ? '' : ':' . $port);
}

/** False when the Origin (or else the Referer) header names another host than this request's. */
function same_origin(): bool
{
    $source = (string)($_SERVER['HTTP_ORIGIN'] ?? '');
    if ($source === '') {
        $source = (string)($_SERVER['HTTP_REFERER'] ?? '');
    }
    if ($source === '') {
        return true; // no header sent (privacy settings, old clients): the CSRF token still applies
    }
    if ($source === 'null') {
        return false; // opaque origin: sandboxed frame, data: URL, cross-origin redirect
    }
    $host = (string)($_SERVER['HTTP_HOST'] ?? '');
    $theirs = origin_key($source);
    $ours = origin_key($host, is_https() ? 'https' : 'http');
    return $theirs !== null && $ours !== null && hash_equals($ours, $theirs);
}

$csrfCookie = $_COOKIE[CSRF_COOKIE] ?? '';
$csrfToken = is_string($csrfCookie) && preg_match('/^[0-9a-f]{64}$/', $csrfCookie) ? $csrfCookie : '';
if ($csrfToken === '') {
    $csrfToken = bin2hex(random_bytes(32));
    if (PHP_SAPI !== 'cli') {
        setcookie(CSRF_COOKIE, $csrfToken, [
            'expires' => 0,
            'path' => script_path(),
            'secure' => is_https(),
            'httponly' => true,
            'samesite' => 'Strict',
        ]);
    }
}

$loaded = extension_loaded('shmcache') && function_exists('shmcache_info');

// ---------------------------------------------------------------------------------------------
// POST: flush
// ---------------------------------------------------------------------------------------------

if ($method === 'POST') {
    $action = $_POST['action'] ?? '';
    $field = $_POST[CSRF_FIELD] ?? '';
    $reason = null;
    if ($action !== 'flush') {
        $reason = 'unknown action';
    } elseif (!same_origin()) {
        $reason = 'the request comes from another site (Origin/Referer host differs)';
    } elseif (!is_string($csrfCookie) || $csrfCookie === '' || !is_string($field) || $field === ''
        || !hash_equals($csrfCookie, $field)) {
        $reason = 'missing or invalid CSRF token (reload the page and try again)';
    }
    if ($reason !== null) {
        if ($wantJson) {
            send_json(['flushed' => false, 'error' => $reason], 403);
        }
        http_response_code(403);
        header('Content-Type: text/html; charset=utf-8');
        echo '<!doctype html><meta charset="utf-8"><title>403 Forbidden</title>',
            '<h1>403 Forbidden</h1><p>The cache was not flushed: ', h($reason), '.</p>',
            '<p><a href="', h(script_path()), '">Back to the status page</a></p>', "\n";
        exit;
    }
    $flushed = $loaded && shmcache_flush();
    if ($wantJson) {
        send_json(['flushed' => $flushed] + ($loaded ? ['info' => shmcache_info()] : []), $flushed ? 200 : 503);
    }
    // Post/Redirect/Get: reloading the result page must not flush again.
    header('Location: ' . script_path() . '?flushed=' . ($flushed ? '1' : '0'), true, 303);
    exit;
} elseif ($method !== 'GET' && $method !== 'HEAD') {
    http_response_code(405);
    header('Allow: GET, HEAD, POST');
    exit;
}

// ---------------------------------------------------------------------------------------------
// Data
// ---------------------------------------------------------------------------------------------

$info = $loaded ? shmcache_info() : [];
$enabled = $loaded && !empty($info['enabled']);

if ($wantJson) {
    if (!$loaded) {
        send_json([
            'enabled' => false,
            'loaded' => false,
            'sapi' => PHP_SAPI,
            'error' => 'the shmcache extension is not loaded',
        ], 503);
    }
    send_json($info);
}

$g = static fn(string $k): int => (int)($info[$k] ?? 0);
$now = time();
$uptime = $enabled && $g('start_time') > 0 ? $now - $g('start_time') : 0;
$lookups = $g('hits') + $g('misses');
$hitRate = ratio($g('hits'), $lookups);
$slotUse = ratio($g('slots_used'), $g('slots_total'));
$ringFill = min(1.0, ratio($g('values_used_bytes'), $g('values_memory_size')));
$laps = ratio($g('values_written_bytes'), $g('values_memory_size'));

// ---------------------------------------------------------------------------------------------
// Health verdict: [level, title, explanation]; level 0 ok, 1 note, 2 warning, 3 problem
// ---------------------------------------------------------------------------------------------

$findings = [];
if (!$loaded) {
    $findings[] = [3, 'The shmcache extension is not loaded',
        'This PHP (SAPI "' . PHP_SAPI . '") has no shmcache extension. Install it (scripts/install.sh), '
        . 'make sure extension=libshmcache.so is in this SAPI\'s conf.d, then restart PHP-FPM.'];
} elseif (!$enabled) {
    $why = ini_get('shmcache.enable') !== false && !filter_var(ini_get('shmcache.enable'), FILTER_VALIDATE_BOOLEAN)
        ? 'shmcache.enable is off'
        : (in_array(PHP_SAPI, ['cli', 'phpdbg'], true) ? 'this is the CLI and shmcache.enable_cli is off'
            : 'the region could not be created at startup (see the PHP error log)');
    $findings[] = [3, 'shmcache is loaded but disabled',
        "No shared region in this SAPI: $why. Every call misses and returns false."];
} else {
    $sets = $g('sets');
    $kickRatio = ratio($g('kicks'), $sets);
    if ($g('kicks') > 0 && ($slotUse >= 0.75 || $kickRatio >= 0.01)) {
        $findings[] = [$slotUse >= 0.9 || $kickRatio >= 0.05 ? 3 : 2, 'Keys are being evicted from the key table',
            num($g('kicks')) . ' kicks (' . pct($kickRatio) . ' of sets) with ' . pct($slotUse)
            . ' of the key slots in use: live keys are thrown out because their buckets are full. '
            . 'Raise shmcache.keys_memory_size (now ' . bytes($g('keys_memory_size')) . ').'];
    } elseif ($slotUse >= 0.9) {
        $findings[] = [2, 'The key table is nearly full',
            pct($slotUse) . ' of the key slots are in use; new keys will soon evict live ones. '
            . 'Raise shmcache.keys_memory_size (now ' . bytes($g('keys_memory_size')) . ').'];
    } elseif ($g('kicks') > 0) {
        $findings[] = [1, 'A few keys were evicted from the key table',
            num($g('kicks')) . ' kicks (' . pct($kickRatio) . ' of sets): harmless at this rate.'];
    }

    $recycleEvery = $g('recycles') > 0 ? max($uptime, 1) / $g('recycles') : 0.0;
    $every = $recycleEvery >= 1 ? 'about every ' . duration((int)round($recycleEvery))
        : 'about ' . num(1 / max($recycleEvery, 0.001), 1) . ' times a second';
    if ($g('recycles') > 0 && $lookups >= 100 && $hitRate < 0.8) {
        $findings[] = [$hitRate < 0.5 ? 3 : 2, 'The value ring recycles while the hit rate is low',
            'The ring wrapped ' . num($g('recycles')) . ' times (' . $every
            . ') and the hit rate is only ' . pct($hitRate) . ': values are overwritten before they are '
            . 'read again. Raise shmcache.values_memory_size (now ' . bytes($g('values_memory_size')) . ').'];
    } elseif ($g('recycles') > 0 && $recycleEvery < 60) {
        $findings[] = [2, 'The value ring turns over quickly',
            'The ring wrapped ' . num($g('recycles')) . ' times, ' . $every
            . ': nothing lives longer than that. Raise shmcache.values_memory_size if values should be '
            . 'kept longer (now ' . bytes($g('values_memory_size')) . ').'];
    } elseif ($g('recycles') > 0) {
        $findings[] = [1, 'The value ring has wrapped',
            num($g('recycles')) . ' times (' . $every . '); the oldest '
            . 'values are reused first. That is how the ring works and the hit rate is fine.'];
    }

    if ($g('validation_failures_corrupt') > 0) {
        $findings[] = [3, 'Damaged entries: ' . num($g('validation_failures_corrupt')),
            'A read found a record whose checksum did not match although the value ring had not reached '
            . 'it: something wrote into shared memory where it should not (a writer stalled for a whole '
            . 'lap of the ring, faulty memory, or a bug). The record was not returned, so no wrong data '
            . 'reached PHP, but this should never happen: report it with this page.'];
    }
    if ($g('validation_failures_lapped') > 0) {
        $vf = $g('validation_failures_lapped');
        $heavy = ratio($vf, max($lookups, 1)) >= 0.001;
        $findings[] = [$heavy ? 2 : 1, 'Reads overtaken by the ring: ' . num($vf),
            'The value ring reused a record while a worker was copying it. Such a copy is never '
            . 'returned: the read counts as a miss, so no wrong data reached PHP. '
            . ($heavy ? 'They are frequent here: the ring is reused under readers, so raise '
                . 'shmcache.values_memory_size.' : 'A few under heavy writing are expected.')];
    }

    if ($lookups >= 1000 && $hitRate < 0.5 && $g('recycles') === 0 && $g('kicks') === 0) {
        $findings[] = [2, 'Low hit rate without memory pressure',
            'Only ' . pct($hitRate) . ' of ' . num($lookups) . ' lookups hit, yet nothing was evicted: '
            . 'values expire (' . num($g('expired')) . ' expired reads), are flushed ('
            . num($g('flushes') + $g('namespace_flushes')) . ' flushes) or are read before they are written. '
            . 'Memory sizes will not help; check TTLs and cache keys.'];
    }
    if ($g('cas_retries') > 0 && $g('cas_retries') >= max(100, intdiv($g('sets'), 10))) {
        $findings[] = [1, 'Write contention',
            num($g('cas_retries')) . ' writes had to be retried because another worker wrote the same '
            . 'key or slot at the same moment; hot keys written by every request cause this.'];
    }
    if ($lookups < 100) {
        $findings[] = [0, 'Warming up', 'Only ' . num($lookups) . ' lookups so far: the rates are not meaningful yet.'];
    }
}
$level = $findings ? max(array_column($findings, 0)) : 0;
$verdicts = [
    0 => ['ok', 'Healthy', 'The cache has room for its keys and values and serves hits.'],
    1 => ['ok', 'Healthy', 'Working well; notes below.'],
    2 => ['warn', 'Needs attention', 'The cache works but is too small or misused; see below.'],
    3 => ['bad', 'Problem', 'The cache is not doing its job; see below.'],
];
[$verdictClass, $verdictTitle, $verdictText] = $verdicts[$level];
if (!$enabled) {
    $verdictText = 'shmcache is not caching anything in this PHP.';
}

// ---------------------------------------------------------------------------------------------
// Counter descriptions (every key of shmcache_info() is listed; unknown keys too)
// ---------------------------------------------------------------------------------------------

$described = [
    'enabled' => ['a region exists in this SAPI', 'bool'],
    'version' => ['extension version', 'text'],
    'sapi' => ['SAPI of this PHP process', 'text'],
    'max_key_length' => ['longest key accepted, bytes', 'int'],
    'hits' => ['lookups that found a live value', 'rate'],
    'misses' => ['lookups that found nothing (absent, expired, flushed or invalid)', 'rate'],
    'sets' => ['values stored (set, add, replace, incr, cas …)', 'rate'],
    'deletes' => ['live entries removed by delete', 'rate'],
    'kicks' => ['live keys evicted from the key table because their buckets were full', 'rate'],
    'recycles' => ['times the value ring wrapped around, reusing its oldest bytes', 'rate'],
    'expired' => ['lookups that found a value past its TTL', 'rate'],
    'validation_failures' => ['reads whose copy failed its checks and counted as a miss (the two below)', 'rate'],
    'validation_failures_lapped' => ['of those: the ring reused the record while it was copied (ring too small for the write rate)', 'rate'],
    'validation_failures_corrupt' => ['of those: the record was damaged although the ring had not reached it (should stay 0)', 'rate'],
    'slots_total' => ['slots in the key table', 'int'],
    'slots_used' => ['slots holding a live key', 'int'],
    'keys_memory_size' => ['shmcache.keys_memory_size', 'bytes'],
    'values_memory_size' => ['shmcache.values_memory_size (value ring)', 'bytes'],
    'values_written_bytes' => ['bytes appended to the ring since start', 'bytes'],
    'values_used_bytes' => ['bytes of the ring filled so far', 'bytes'],
    'compressed_count' => ['values stored LZ4-compressed', 'rate'],
    'compress_threshold' => ['shmcache.compress_threshold (0 = never compress)', 'bytes'],
    'flushes' => ['whole-cache flushes', 'rate'],
    'namespace_flushes' => ['single-namespace flushes', 'rate'],
    'namespaces_used' => ['namespaces with their own flush generation', 'int'],
    'cas_retries' => ['writes retried after losing a race to another worker', 'rate'],
    'max_value_size' => ['largest value the ring accepts', 'bytes'],
    'start_time' => ['when the region was created', 'time'],
];

function format_value(string $kind, mixed $v): string
{
    if (is_bool($v)) {
        return $v ? 'true' : 'false';
    }
    if (!is_int($v) && !is_float($v)) {
        return is_scalar($v) ? (string)$v : json_encode($v, JSON_INVALID_UTF8_SUBSTITUTE);
    }
    return match ($kind) {
        'bytes' => $v >= 1024 ? bytes($v) . ' (' . num($v) . ')' : num($v) . ' B',
        'time' => $v > 0 ? gmdate('Y-m-d H:i:s', (int)$v) . ' UTC' : '—',
        default => num($v),
    };
}

// ---------------------------------------------------------------------------------------------
// SVG charts (inline, no external resources)
// ---------------------------------------------------------------------------------------------

/** A donut: $parts = [[value, css class, label], ...]; the centre shows $big over $small. */
function svg_donut(array $parts, string $big, string $small, string $title): string
{
    $total = array_sum(array_column($parts, 0));
    $out = '<svg class="donut" viewBox="0 0 42 42" width="170" height="170" role="img" aria-label="' . h($title) . '">'
        . '<title>' . h($title) . '</title>'
        . '<circle cx="21" cy="21" r="15.9155" class="track" fill="none" stroke-width="5"/>';
    $offset = 25.0; // start at 12 o'clock (circumference is 100)
    if ($total > 0) {
        foreach ($parts as [$value, $class, $label]) {
            $len = 100 * $value / $total;
            if ($len <= 0) {
                continue;
            }
            $out .= '<circle cx="21" cy="21" r="15.9155" fill="none" stroke-width="5" class="' . h($class) . '"'
                . ' stroke-dasharray="' . h(round($len, 3)) . ' ' . h(round(100 - $len, 3)) . '"'
                . ' stroke-dashoffset="' . h(round($offset, 3)) . '"><title>' . h($label) . '</title></circle>';
            $offset -= $len;
        }
    }
    $out .= '<text x="21" y="21" class="big" text-anchor="middle">' . h($big) . '</text>'
        . '<text x="21" y="26.5" class="small" text-anchor="middle">' . h($small) . '</text></svg>';
    return $out;
}

/** A horizontal usage bar with its label and percentage. */
function svg_bar(string $label, float $ratio, string $detail, float $warnAt = 0.75, float $badAt = 0.9): string
{
    $ratio = max(0.0, min(1.0, $ratio));
    $class = $ratio >= $badAt ? 'bad' : ($ratio >= $warnAt ? 'warn' : 'good');
    $w = round(400 * $ratio, 2);
    return '<svg class="bar" viewBox="0 0 400 46" width="100%" role="img" aria-label="'
        . h("$label: " . pct($ratio)) . '"><title>' . h("$label: $detail") . '</title>'
        . '<text x="0" y="13" class="lbl">' . h($label) . '</text>'
        . '<text x="400" y="13" class="lbl" text-anchor="end">' . h(pct($ratio) . ' · ' . $detail) . '</text>'
        . '<rect x="0" y="20" width="400" height="18" rx="4" class="track"/>'
        . ($w > 0 ? '<rect x="0" y="20" width="' . h($w) . '" height="18" rx="4" class="' . h($class) . '"/>' : '')
        . '</svg>';
}

/** Bars comparing event counters, scaled to the largest. */
function svg_counters(array $rows): string
{
    $max = max(1, ...array_column($rows, 1));
    $rowH = 24;
    $hgt = count($rows) * $rowH + 4;
    $out = '<svg class="counters" viewBox="0 0 400 ' . $hgt . '" width="100%"'
        . ' role="img" aria-label="event counters"><title>Event counters since start</title>';
    foreach ($rows as $i => [$label, $value, $class]) {
        $y = $i * $rowH + 2;
        $w = $value > 0 ? max(1.5, round(196 * $value / $max, 2)) : 0;
        $out .= '<text x="112" y="' . ($y + 15) . '" class="lbl" text-anchor="end">' . h($label) . '</text>'
            . '<rect x="120" y="' . ($y + 3) . '" width="196" height="16" rx="3" class="track"/>'
            . ($w > 0 ? '<rect x="120" y="' . ($y + 3) . '" width="' . h($w) . '" height="16" rx="3" class="' . h($class) . '"/>' : '')
            . '<text x="400" y="' . ($y + 15) . '" class="lbl" text-anchor="end">' . h(num($value)) . '</text>';
    }
    return $out . '</svg>';
}

// ---------------------------------------------------------------------------------------------
// Page
// ---------------------------------------------------------------------------------------------

$self = script_path();
$refresh = isset($_GET['refresh']) ? max(2, min(3600, (int)$_GET['refresh'])) : 0;
$flushedParam = $_GET['flushed'] ?? null;

http_response_code($loaded ? 200 : 503);
header('Content-Type: text/html; charset=utf-8');
?><!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<?php if ($refresh): ?><meta http-equiv="refresh" content="<?= h($refresh) ?>">
<?php endif ?>
<title>shmcache status<?= $enabled ? ' · ' . h(pct($hitRate)) . ' hits' : '' ?></title>
<style nonce="<?= h($nonce) ?>">
:root { --bg:#f5f6f8; --card:#fff; --ink:#1d2330; --mute:#667085; --line:#e3e6ea;
        --good:#2e9d5b; --warn:#e3a008; --bad:#d64545; --miss:#c9ced6; --accent:#3b6fd8; }
* { box-sizing: border-box; }
body { margin:0; font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif; background:var(--bg); color:var(--ink); }
header { background:#1d2330; color:#fff; padding:14px 24px; display:flex; align-items:baseline; gap:18px; flex-wrap:wrap; }
header h1 { margin:0; font-size:20px; font-weight:600; }
header .meta { color:#b8c0cc; font-size:13px; }
header a { color:#9ec1ff; }
main { max-width:1180px; margin:0 auto; padding:20px 24px 40px; }
.grid { display:grid; grid-template-columns:repeat(auto-fit,minmax(300px,1fr)); gap:16px; }
.card { background:var(--card); border:1px solid var(--line); border-radius:10px; padding:16px 18px; }
.card h2 { font-size:14px; text-transform:uppercase; letter-spacing:.06em; color:var(--mute); margin:0 0 12px; font-weight:600; }
.verdict { border-left:6px solid var(--good); margin-bottom:16px; }
.verdict.warn { border-left-color:var(--warn); } .verdict.bad { border-left-color:var(--bad); }
.verdict .title { font-size:22px; font-weight:650; }
.verdict ul { margin:10px 0 0; padding-left:0; list-style:none; }
.verdict li { margin:8px 0; padding-left:26px; position:relative; }
.verdict li::before { content:""; position:absolute; left:6px; top:7px; width:10px; height:10px; border-radius:50%; background:var(--good); }
.verdict li.l1::before { background:var(--accent); } .verdict li.l2::before { background:var(--warn); } .verdict li.l3::before { background:var(--bad); }
.notice { padding:10px 14px; border-radius:8px; margin-bottom:16px; background:#e8f5ec; border:1px solid #b7dfc4; }
.notice.err { background:#fdecec; border-color:#f3bcbc; }
.donutwrap { display:flex; align-items:center; gap:18px; flex-wrap:wrap; }
svg .track { stroke:#eceef1; fill:#eceef1; }
svg circle.track { fill:none; }
svg .hit { stroke:var(--good); } svg .miss { stroke:var(--miss); }
svg .used { stroke:var(--accent); } svg .free { stroke:#eceef1; }
svg rect.good { fill:var(--good); } svg rect.warn { fill:var(--warn); } svg rect.bad { fill:var(--bad); }
svg rect.c-hit { fill:var(--good); } svg rect.c-miss { fill:#9aa3b0; } svg rect.c-set { fill:var(--accent); }
svg rect.c-evict { fill:var(--warn); } svg rect.c-err { fill:var(--bad); }
svg text.big { font-size:7px; font-weight:700; fill:var(--ink); }
svg text.small { font-size:3.3px; fill:var(--mute); }
svg text.lbl { font-size:12px; fill:var(--ink); }
svg.bar, svg.counters { display:block; width:100%; height:auto; }
.legend { font-size:14px; } .legend div { margin:4px 0; }
.sw { display:inline-block; width:11px; height:11px; border-radius:3px; margin-right:7px; vertical-align:-1px; }
.sw.hit { background:var(--good); } .sw.miss { background:var(--miss); } .sw.used { background:var(--accent); }
.kpis { display:grid; grid-template-columns:repeat(auto-fit,minmax(150px,1fr)); gap:12px; margin-bottom:16px; }
.kpi { background:var(--card); border:1px solid var(--line); border-radius:10px; padding:12px 14px; }
.kpi .v { font-size:22px; font-weight:650; } .kpi .k { font-size:12px; color:var(--mute); text-transform:uppercase; letter-spacing:.05em; }
table { width:100%; border-collapse:collapse; font-size:14px; }
th, td { text-align:left; padding:6px 8px; border-bottom:1px solid var(--line); vertical-align:top; }
th { color:var(--mute); font-weight:600; font-size:12px; text-transform:uppercase; letter-spacing:.05em; }
td.n { text-align:right; font-variant-numeric:tabular-nums; white-space:nowrap; }
td code, p code { background:#f0f2f5; padding:1px 5px; border-radius:4px; font-size:13px; }
.muted { color:var(--mute); font-size:13px; }
form.flush p { margin:12px 0 0; }
button { font:inherit; padding:8px 16px; border-radius:8px; border:1px solid #b42d2d; background:var(--bad); color:#fff; cursor:pointer; }
button:hover { background:#b83636; }
.wide { grid-column:1/-1; }
footer { color:var(--mute); font-size:12px; margin-top:20px; }
</style>
</head>
<body>
<header>
  <h1>shmcache status</h1>
  <span class="meta">
    <?= $loaded ? 'version ' . h($info['version'] ?? '?') . ' · ' : '' ?>SAPI <?= h($info['sapi'] ?? PHP_SAPI) ?>
    · PHP <?= h(PHP_VERSION) ?> · pid <?= h(getmypid()) ?>
    <?php if ($enabled): ?> · up <?= h(duration($uptime)) ?><?php endif ?>
  </span>
  <span class="meta">
    <a href="<?= h($self) ?>">reload</a> ·
    <?php if ($refresh): ?><a href="<?= h($self) ?>">stop auto-refresh</a><?php else: ?><a href="<?= h($self) ?>?refresh=5">auto-refresh 5 s</a><?php endif ?>
    · <a href="<?= h($self) ?>?format=json">JSON</a>
  </span>
</header>
<main>
<?php if ($flushedParam === '1'): ?>
  <div class="notice" role="status">Cache flushed: every key in every namespace is gone
    (flushes since start: <?= h(num($g('flushes'))) ?>).</div>
<?php elseif ($flushedParam === '0'): ?>
  <div class="notice err" role="alert">The flush failed: shmcache is not enabled in this PHP.</div>
<?php endif ?>

  <section class="card verdict <?= h($verdictClass) ?>">
    <div class="title"><?= h($verdictTitle) ?></div>
    <div class="muted"><?= h($verdictText) ?></div>
    <?php if ($findings): ?>
    <ul>
      <?php foreach ($findings as [$lv, $title, $text]): ?>
      <li class="l<?= h($lv) ?>"><strong><?= h($title) ?>.</strong> <?= h($text) ?></li>
      <?php endforeach ?>
    </ul>
    <?php endif ?>
  </section>

<?php if (!$enabled): ?>
  <section class="card">
    <h2>What to do</h2>
    <?php if (!$loaded): ?>
    <p>Build and install the extension with <code>scripts/install.sh</code> (it writes
       <code>/etc/php/8.2/mods-available/shmcache.ini</code> and enables it for the CLI and FPM), then
       restart PHP-FPM: <code>systemctl restart php8.2-fpm</code>. Check with <code>php --ri shmcache</code>.</p>
    <?php else: ?>
    <p>Settings seen by this PHP:</p>
    <table>
      <tr><th>directive</th><th>value</th></tr>
      <?php foreach (['shmcache.enable', 'shmcache.enable_cli', 'shmcache.keys_memory_size',
                      'shmcache.values_memory_size', 'shmcache.compress_threshold'] as $d): ?>
      <tr><td><code><?= h($d) ?></code></td><td><?= h(ini_get($d) === false ? '—' : ini_get($d)) ?></td></tr>
      <?php endforeach ?>
    </table>
    <p>Set <code>shmcache.enable=1</code> in the SAPI's php.ini / conf.d and restart PHP-FPM. The CLI gets a
       region only with <code>shmcache.enable_cli=1</code>, and then one per process, shared with nobody.</p>
    <?php endif ?>
  </section>
<?php else: ?>
  <div class="kpis">
    <div class="kpi"><div class="k">hit rate</div><div class="v"><?= h($lookups ? pct($hitRate) : '—') ?></div></div>
    <div class="kpi"><div class="k">keys</div><div class="v"><?= h(num($g('slots_used'))) ?></div></div>
    <div class="kpi"><div class="k">slot usage</div><div class="v"><?= h(pct($slotUse)) ?></div></div>
    <div class="kpi"><div class="k">kicks</div><div class="v"><?= h(num($g('kicks'))) ?></div></div>
    <div class="kpi"><div class="k">recycles</div><div class="v"><?= h(num($g('recycles'))) ?></div></div>
    <div class="kpi"><div class="k">lapped reads</div><div class="v"><?= h(num($g('validation_failures_lapped'))) ?></div></div>
    <div class="kpi"><div class="k">damaged entries</div><div class="v"><?= h(num($g('validation_failures_corrupt'))) ?></div></div>
    <div class="kpi"><div class="k">uptime</div><div class="v"><?= h(duration($uptime)) ?></div></div>
  </div>

  <div class="grid">
    <section class="card">
      <h2>Hits and misses</h2>
      <div class="donutwrap">
        <?= svg_donut([[$g('hits'), 'hit', 'hits: ' . num($g('hits'))], [$g('misses'), 'miss', 'misses: ' . num($g('misses'))]],
            $lookups ? pct($hitRate, 0) : '—', 'hit rate', 'Hit rate ' . pct($hitRate)) ?>
        <div class="legend">
          <div><span class="sw hit"></span>hits <strong><?= h(num($g('hits'))) ?></strong></div>
          <div><span class="sw miss"></span>misses <strong><?= h(num($g('misses'))) ?></strong></div>
          <div class="muted">of which expired: <?= h(num($g('expired'))) ?></div>
          <div class="muted"><?= h(num(ratio($lookups, max($uptime, 1)), 1)) ?> lookups/s since start</div>
        </div>
      </div>
    </section>

    <section class="card">
      <h2>Memory</h2>
      <?= svg_bar('Key slots', $slotUse, num($g('slots_used')) . ' / ' . num($g('slots_total'))) ?>
      <p class="muted">Key table <?= h(bytes($g('keys_memory_size'))) ?> (shmcache.keys_memory_size).
        Kicks: <?= h(num($g('kicks'))) ?>.</p>
      <?= svg_bar('Value ring filled', $ringFill, bytes($g('values_used_bytes')) . ' / ' . bytes($g('values_memory_size')), 2.0, 2.0) ?>
      <p class="muted">Value ring <?= h(bytes($g('values_memory_size'))) ?> (shmcache.values_memory_size);
        <?= h(bytes($g('values_written_bytes'))) ?> written = <?= h(num($laps, 2)) ?> laps,
        <?= h(num($g('recycles'))) ?> recycles. A ring is always full once it has wrapped; the oldest values
        are overwritten first.</p>
    </section>

    <section class="card">
      <h2>Value ring</h2>
      <div class="donutwrap">
        <?= svg_donut([[$ringFill, 'used', 'filled ' . pct($ringFill)], [1 - $ringFill, 'free', 'unused ' . pct(1 - $ringFill)]],
            $g('recycles') > 0 ? 'lap ' . num($g('recycles') + 1) : pct($ringFill, 0),
            $g('recycles') > 0 ? 'wrapped' : 'filled', 'Value ring') ?>
        <div class="legend">
          <div><span class="sw used"></span>in use <strong><?= h(bytes($g('values_used_bytes'))) ?></strong></div>
          <div class="muted">largest value: <?= h(bytes($g('max_value_size'))) ?></div>
          <div class="muted">compressed values: <?= h(num($g('compressed_count'))) ?>
            (threshold <?= h($g('compress_threshold') ? bytes($g('compress_threshold')) : 'off') ?>)</div>
          <div class="muted">written: <?= h(bytes(ratio($g('values_written_bytes'), max($uptime, 1)))) ?>/s</div>
        </div>
      </div>
    </section>

    <section class="card">
      <h2>Events since start</h2>
      <?= svg_counters([
          ['hits', $g('hits'), 'c-hit'],
          ['misses', $g('misses'), 'c-miss'],
          ['sets', $g('sets'), 'c-set'],
          ['deletes', $g('deletes'), 'c-set'],
          ['expired', $g('expired'), 'c-miss'],
          ['kicks', $g('kicks'), 'c-evict'],
          ['recycles', $g('recycles'), 'c-evict'],
          ['lapped reads', $g('validation_failures_lapped'), 'c-evict'],
          ['damaged', $g('validation_failures_corrupt'), 'c-err'],
          ['flushes', $g('flushes') + $g('namespace_flushes'), 'c-evict'],
      ]) ?>
    </section>

    <section class="card">
      <h2>Settings</h2>
      <table>
        <?php foreach (['shmcache.enable', 'shmcache.enable_cli', 'shmcache.keys_memory_size',
                        'shmcache.values_memory_size', 'shmcache.compress_threshold'] as $d): ?>
        <tr><td><code><?= h($d) ?></code></td><td class="n"><?= h(ini_get($d) === false ? '—' : ini_get($d)) ?></td></tr>
        <?php endforeach ?>
      </table>
      <p class="muted">Read once at startup: change them in php.ini / conf.d and restart PHP-FPM.</p>
    </section>

    <section class="card">
      <h2>Flush cache</h2>
      <form class="flush" method="post" action="<?= h($self) ?>">
        <input type="hidden" name="action" value="flush">
        <input type="hidden" name="<?= h(CSRF_FIELD) ?>" value="<?= h($csrfToken) ?>">
        <button type="submit">Flush cache</button>
        <p class="muted">Drops every key of every namespace, for all workers of this pool, at once (O(1)).</p>
      </form>
    </section>

    <section class="card wide">
      <h2>All counters (shmcache_info())</h2>
      <table>
        <tr><th>key</th><th>value</th><th>per second</th><th>meaning</th></tr>
        <?php foreach ($info as $key => $value):
            [$meaning, $kind] = $described[$key] ?? ['', 'int']; ?>
        <tr>
          <td><code><?= h($key) ?></code></td>
          <td class="n"><?= h(format_value($kind, $value)) ?></td>
          <td class="n"><?= $kind === 'rate' && is_int($value) && $uptime > 0 ? h(num($value / $uptime, 2)) : '' ?></td>
          <td><?= h($meaning) ?></td>
        </tr>
        <?php endforeach ?>
        <tr>
          <td><code>uptime</code></td><td class="n"><?= h(duration($uptime)) ?></td><td></td>
          <td>time since the region was created (derived)</td>
        </tr>
      </table>
    </section>

  </div>
<?php endif ?>
  <footer>Generated <?= h(gmdate('Y-m-d H:i:s')) ?> UTC. Every worker of one PHP-FPM master shares this region;
    other pools and the CLI have their own.</footer>
</main>
</body>
</html>
