#!/usr/bin/env bash
# Web test: web/status.php, web/demo.php and the flush's CSRF protection, against PHP's built-in
# server with 4 worker processes that must share one shmcache region. Run by scripts/test.sh
# (which builds the release first); prints PASS/FAIL per check and ends with "N passed, N failed".
source "$(dirname "$0")/common.sh"
apt_need curl
# The .so must be one PHP can load (a `cargo test --no-default-features` can leave a build
# without the PHP module in target/release); rebuild it if not.
need_so

WEB="$ROOT/web"
TMP=$(mktemp -d)
# Test a private copy, so a rebuild running meanwhile cannot swap the library under the servers.
cp "$SO" "$TMP/libshmcache.so"
SO="$TMP/libshmcache.so"
SERVERS=()
cleanup() {
  local p
  for p in "${SERVERS[@]}"; do
    kill -- "-$p" 2>/dev/null || kill "$p" 2>/dev/null || true
  done
  rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM


free_port() {
  php -n -r '$s = stream_socket_server("tcp://127.0.0.1:0"); $n = stream_socket_get_name($s, false); echo substr($n, strrpos($n, ":") + 1);'
}

# start_server LOG PHP-ARGS...: starts `php -S` (4 workers, own process group) on a free port;
# sets BASE. Returns non-zero if it does not answer.
start_server() {
  local log=$1 port pid attempt i code
  shift
  for attempt in 1 2 3; do
    port=$(free_port)
    # setsid gives the server (master + workers) a process group of its own, killed as a whole;
    # the session leader writes its own PID (setsid may fork, so $! is not always it).
    rm -f "$TMP/pid"
    PHP_CLI_SERVER_WORKERS=4 setsid bash -c 'echo $$ >"$0"; exec "$@"' "$TMP/pid" \
      php -n "$@" -S "127.0.0.1:$port" -t "$WEB" >"$log" 2>&1 &
    for i in $(seq 50); do [ -s "$TMP/pid" ] && break; sleep 0.02; done
    pid=$(cat "$TMP/pid" 2>/dev/null || echo "$!")
    SERVERS+=("$pid")
    for i in $(seq 100); do
      kill -0 "$pid" 2>/dev/null || break
      code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/status.php?format=json" || true)
      if [ "$code" != "000" ]; then
        BASE="http://127.0.0.1:$port"
        return 0
      fi
      sleep 0.1
    done
    kill -- "-$pid" 2>/dev/null || true
  done
  echo "could not start: php -n $* -S 127.0.0.1:PORT" >&2
  tail -n 20 "$log" >&2 || true
  return 1
}

# http_code OUTFILE CURL-ARGS...: prints the status code, body to OUTFILE.
http_code() {
  local out=$1
  shift
  curl -s -o "$out" -w '%{http_code}' "$@" || echo 000
}

# json FILE PHP-EXPR: evaluates PHP-EXPR with $d = the decoded JSON; exit 0 when it is truthy.
json() {
  php -n -r '
    $d = json_decode(file_get_contents($argv[1]), true);
    if (!is_array($d)) { fwrite(STDERR, "not JSON: " . substr((string)file_get_contents($argv[1]), 0, 200) . "\n"); exit(1); }
    exit(eval("return " . $argv[2] . ";") ? 0 : 1);' "$1" "$2"
}

peek_counter() { # prints the shared counter (or "null") without changing it
  curl -s "$BASE/demo.php?format=json&peek=1" >"$TMP/peek.json" || true
  php -n -r '$d = json_decode(file_get_contents($argv[1]), true); echo is_array($d) && array_key_exists("counter", $d) ? json_encode($d["counter"]) : "error";' "$TMP/peek.json"
}

KEYS="hits misses sets deletes kicks recycles expired validation_failures validation_failures_lapped
validation_failures_corrupt slots_total slots_used
keys_memory_size values_memory_size values_written_bytes values_used_bytes compressed_count
compress_threshold flushes namespace_flushes namespaces_used cas_retries max_value_size start_time
enabled version sapi max_key_length"

# ----------------------------------------------------------------------------------------------
log "built-in server with the extension (4 workers)"
if ! start_server "$TMP/server.log" -d extension="$SO"; then
  check "built-in server starts with -d extension=$SO" false
  echo "$passed passed, $failed failed"
  exit 1
fi
echo "server at $BASE"

t_status_page() {
  local code k missing=""
  code=$(http_code "$TMP/status.html" -c "$TMP/jar" "$BASE/status.php")
  [ "$code" = 200 ] || { echo "  HTTP $code" >&2; return 1; }
  for k in $KEYS; do
    grep -qF "<code>$k</code>" "$TMP/status.html" || missing="$missing $k"
  done
  [ -z "$missing" ] || { echo "  counters missing from the page:$missing" >&2; return 1; }
  grep -q 'hit rate' "$TMP/status.html" && grep -q 'uptime' "$TMP/status.html"
}
check "status.php returns 200 and lists every counter, hit rate and uptime" t_status_page

t_status_svg() {
  grep -q '<svg' "$TMP/status.html" && grep -q 'class="card verdict' "$TMP/status.html" \
    && ! grep -Eiq '(src|href)="(https?:)?//' "$TMP/status.html" \
    && ! grep -qi '<script' "$TMP/status.html"
}
check "status.php has inline SVG charts, a health verdict and no external resources" t_status_svg

t_status_json() {
  local code
  code=$(http_code "$TMP/info.json" "$BASE/status.php?format=json")
  [ "$code" = 200 ] || { echo "  HTTP $code" >&2; return 1; }
  json "$TMP/info.json" '$d["enabled"] === true && $d["sapi"] === "cli-server" && isset($d["slots_total"], $d["start_time"])'
}
check "status.php?format=json parses, enabled=true, sapi=cli-server" t_status_json

t_demo_requests() {
  seq 20 | xargs -P 4 -I{} curl -s -o "$TMP/demo-{}.json" "$BASE/demo.php?format=json" || true
  php -n -r '
    $pids = []; $counters = []; $hits = 0; $misses = 0;
    for ($i = 1; $i <= 20; $i++) {
      $d = json_decode((string)@file_get_contents($argv[1] . "/demo-$i.json"), true);
      if (!is_array($d)) { fwrite(STDERR, "  response $i is not JSON\n"); exit(1); }
      $pids[$d["pid"]] = true; $counters[] = $d["counter"];
      $d["expensive"]["hit"] ? $hits++ : $misses++;
    }
    sort($counters);
    file_put_contents($argv[1] . "/pids", count($pids) . " " . implode(",", array_keys($pids)));
    file_put_contents($argv[1] . "/counters", implode(",", $counters));
    file_put_contents($argv[1] . "/expensive", "$hits $misses\n");' "$TMP"
}
check "20 requests to demo.php answer in JSON" t_demo_requests

t_distinct_pids() {
  local n
  n=$(cut -d' ' -f1 "$TMP/pids" 2>/dev/null || echo 0)
  echo "  PIDs: $(cut -d' ' -f2 "$TMP/pids" 2>/dev/null)"
  [ "${n:-0}" -ge 2 ]
}
check "the 20 demo requests came from at least 2 distinct worker PIDs" t_distinct_pids

t_counter_sequence() {
  [ "$(cat "$TMP/counters" 2>/dev/null)" = "$(seq -s, 1 20)" ] \
    || { echo "  got: $(cat "$TMP/counters" 2>/dev/null)" >&2; return 1; }
}
check "the 20 responses got counter values exactly 1..20 (atomic shmcache_incr)" t_counter_sequence

t_counter_20() {
  local c
  c=$(peek_counter)
  [ "$c" = 20 ] || { echo "  shared counter is $c" >&2; return 1; }
}
check "the shared counter is exactly 20 afterwards" t_counter_20

t_expensive() {
  local hits misses
  read -r hits misses <"$TMP/expensive" || return 1
  echo "  expensive value: $misses miss(es), $hits hit(s)"
  [ "$hits" -ge 1 ] && [ "$misses" -ge 1 ]
}
check "demo's computed value is computed on a miss and then served from the cache" t_expensive

t_demo_html() {
  local code
  code=$(http_code "$TMP/demo.html" "$BASE/demo.php")
  [ "$code" = 200 ] && grep -q 'href="status.php"' "$TMP/demo.html" && grep -q 'PID' "$TMP/demo.html" \
    && [ "$(peek_counter)" = 21 ]
}
check "demo.php HTML shows the PID, links to status.php and counts the request" t_demo_html

# --- flush: CSRF -------------------------------------------------------------------------------
t_flush_no_token() {
  local code
  code=$(http_code "$TMP/r1" -X POST -d action=flush "$BASE/status.php")
  [ "$code" = 403 ] || { echo "  HTTP $code" >&2; return 1; }
}
check "flush POST without cookie or token is rejected with 403" t_flush_no_token

t_flush_wrong_token() {
  local code
  code=$(http_code "$TMP/r2" -b "$TMP/jar" -X POST -d action=flush -d csrf_token=0123456789abcdef "$BASE/status.php")
  [ "$code" = 403 ] || { echo "  HTTP $code" >&2; return 1; }
  code=$(http_code "$TMP/r3" -b "$TMP/jar" -X POST -d action=flush "$BASE/status.php")
  [ "$code" = 403 ] || { echo "  HTTP $code (cookie, no field)" >&2; return 1; }
}
check "flush POST with the cookie but a wrong or missing token field is rejected with 403" t_flush_wrong_token

token() { sed -n 's/.*name="csrf_token" value="\([0-9a-f]*\)".*/\1/p' "$TMP/status.html" | head -n 1; }

t_flush_foreign_origin() {
  local code tok
  tok=$(token)
  [ -n "$tok" ] || { echo "  no token in the page" >&2; return 1; }
  code=$(http_code "$TMP/r4" -b "$TMP/jar" -H 'Origin: http://evil.example' -X POST \
    -d action=flush -d "csrf_token=$tok" "$BASE/status.php")
  [ "$code" = 403 ] || { echo "  HTTP $code (Origin)" >&2; return 1; }
  code=$(http_code "$TMP/r5" -b "$TMP/jar" -H 'Referer: http://evil.example/page' -X POST \
    -d action=flush -d "csrf_token=$tok" "$BASE/status.php")
  [ "$code" = 403 ] || { echo "  HTTP $code (Referer)" >&2; return 1; }
}
check "flush POST with a valid token but a foreign Origin/Referer is rejected with 403" t_flush_foreign_origin

t_counter_survives() {
  local c
  c=$(peek_counter)
  [ "$c" = 21 ] || { echo "  shared counter is $c" >&2; return 1; }
}
check "the counter survived the rejected flushes" t_counter_survives

t_flush_ok() {
  local code tok
  tok=$(token)
  code=$(curl -s -o "$TMP/r6" -D "$TMP/r6.headers" -w '%{http_code}' -b "$TMP/jar" -H "Origin: $BASE" \
    -X POST -d action=flush -d "csrf_token=$tok" "$BASE/status.php" || echo 000)
  [ "$code" = 303 ] || { echo "  HTTP $code" >&2; return 1; }
  grep -qi '^location: .*flushed=1' "$TMP/r6.headers" || { echo "  no redirect to ?flushed=1" >&2; return 1; }
  code=$(http_code "$TMP/flushed.html" -b "$TMP/jar" "$BASE/status.php?flushed=1")
  [ "$code" = 200 ] && grep -q 'Cache flushed' "$TMP/flushed.html"
}
check "flush POST with the cookie's token succeeds (303, then 'Cache flushed')" t_flush_ok

t_counter_gone() {
  local c
  c=$(peek_counter)
  [ "$c" = null ] || { echo "  shared counter is $c" >&2; return 1; }
  curl -s "$BASE/status.php?format=json" >"$TMP/info2.json"
  json "$TMP/info2.json" '$d["flushes"] === 1'
}
check "after the flush the counter is gone and flushes=1" t_counter_gone

# --- without the extension / disabled / password ----------------------------------------------
log "built-in server without the extension"
t_no_extension() {
  local code
  start_server "$TMP/server-noext.log" || return 1
  code=$(http_code "$TMP/noext.html" "$BASE/status.php")
  [ "$code" = 503 ] && grep -q 'not loaded' "$TMP/noext.html" || { echo "  HTML: HTTP $code" >&2; return 1; }
  code=$(http_code "$TMP/noext.json" "$BASE/status.php?format=json")
  [ "$code" = 503 ] && json "$TMP/noext.json" '$d["enabled"] === false'
}
check "without the extension status.php says it is not loaded (503, JSON enabled=false)" t_no_extension

log "built-in server with shmcache.enable=0"
t_disabled() {
  local code
  start_server "$TMP/server-off.log" -d extension="$SO" -d shmcache.enable=0 || return 1
  code=$(http_code "$TMP/off.html" "$BASE/status.php")
  [ "$code" = 200 ] && grep -q 'loaded but disabled' "$TMP/off.html" && grep -q 'shmcache.enable is off' "$TMP/off.html" \
    || { echo "  HTML: HTTP $code" >&2; return 1; }
  code=$(http_code "$TMP/off.json" "$BASE/status.php?format=json")
  [ "$code" = 200 ] && json "$TMP/off.json" '$d["enabled"] === false'
}
check "with shmcache.enable=0 status.php explains it is disabled (JSON enabled=false)" t_disabled

log "built-in server with SHMCACHE_STATUS_PASSWORD"
t_password() {
  local a b c
  SHMCACHE_STATUS_PASSWORD=s3cret start_server "$TMP/server-auth.log" -d extension="$SO" || return 1
  a=$(http_code "$TMP/a1" "$BASE/status.php")
  b=$(http_code "$TMP/a2" -u admin:wrong "$BASE/status.php?format=json")
  c=$(http_code "$TMP/a3" -u admin:s3cret "$BASE/status.php")
  echo "  no credentials: $a, wrong password: $b, right password: $c"
  [ "$a" = 401 ] && [ "$b" = 401 ] && [ "$c" = 200 ]
}
check "with SHMCACHE_STATUS_PASSWORD set, basic auth is required" t_password

if [ "$failed" -gt 0 ]; then
  echo "--- server log (tail) ---"
  tail -n 30 "$TMP/server.log" || true
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
