#!/usr/bin/env bash
# The demo: builds the extension, serves web/ with PHP's built-in server and 4 worker processes
# (PHP_CLI_SERVER_WORKERS=4) that share one shmcache region, shows from the terminal that
# different PIDs count on one shared counter, then keeps serving until Ctrl-C.
#
#   scripts/demo.sh                 serve on 127.0.0.1:8080 (PORT=9000 scripts/demo.sh for another)
#   DEMO_ONCE=1 scripts/demo.sh     run the curl check and exit: non-zero when sharing failed
#
# The cli-server SAPI gets a region with the default shmcache.enable=1 (enable_cli is only for
# the plain CLI); the workers are forked after startup, so they all map the same region.
source "$(dirname "$0")/common.sh"
build_release
apt_need curl

PORT=${PORT:-8080}
HOST=127.0.0.1
BASE="http://$HOST:$PORT"
WORKERS=4
REQUESTS=12
LOG=$(mktemp /tmp/shmcache-demo.XXXXXX.log)

if curl -s -o /dev/null --max-time 2 "$BASE/" 2>/dev/null; then
  echo "Something already answers on $BASE: stop it or choose another port (PORT=9000 $0)." >&2
  exit 1
fi

SERVER_PID=""
stop_server() {
  if [ -n "$SERVER_PID" ]; then
    # The server runs in its own process group (setsid): this stops the master and its workers.
    kill -- "-$SERVER_PID" 2>/dev/null || kill "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
  fi
}
trap stop_server EXIT
trap 'echo; log "stopping"; exit 0' INT TERM

log "starting PHP's built-in server: $WORKERS workers on $BASE (log: $LOG)"
# -n: no php.ini, so an installed shmcache.ini cannot load the extension a second time.
# setsid: the master and its workers get a process group of their own, stopped as a whole; the
# session leader writes its PID itself (setsid may fork, so $! is not always it).
PIDFILE="$LOG.pid"
PHP_CLI_SERVER_WORKERS=$WORKERS setsid bash -c 'echo $$ >"$0"; exec "$@"' "$PIDFILE" \
  php -n -d extension="$SO" -S "$HOST:$PORT" -t "$ROOT/web" >"$LOG" 2>&1 &
SERVER_PID=$!
for _ in $(seq 50); do [ -s "$PIDFILE" ] && break; sleep 0.02; done
SERVER_PID=$(cat "$PIDFILE" 2>/dev/null || echo "$SERVER_PID")
rm -f "$PIDFILE"

ready=0
for _ in $(seq 100); do
  if ! kill -0 "$SERVER_PID" 2>/dev/null; then
    break
  fi
  if [ "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/status.php?format=json" || true)" != 000 ]; then
    ready=1
    break
  fi
  sleep 0.1
done
if [ "$ready" != 1 ]; then
  echo "The server did not start:" >&2
  tail -n 20 "$LOG" >&2 || true
  exit 1
fi

cat <<EOF

  shmcache demo is running
    demo page    $BASE/demo.php
    status page  $BASE/status.php
    status JSON  $BASE/status.php?format=json

EOF

log "$REQUESTS requests with curl, 4 at a time: each shows its worker PID and the shared counter"
OUT=$(mktemp -d)
seq "$REQUESTS" | xargs -P 4 -I{} curl -s -o "$OUT/{}.txt" "$BASE/demo.php?format=text" || true
# In counter order: the PIDs interleave while the count goes up by one.
cat "$OUT"/*.txt 2>/dev/null | awk '{ split($2, a, "="); print a[2] "\t    " $0 }' | sort -n | cut -f2-
pids=$(sed -n 's/^pid=\([0-9]*\) .*/\1/p' "$OUT"/*.txt 2>/dev/null | sort -un | tr '\n' ' ' | sed 's/ $//')
npids=$(echo "$pids" | wc -w)
counters=$(sed -n 's/.* counter=\([0-9]*\) .*/\1/p' "$OUT"/*.txt 2>/dev/null | sort -n | tr '\n' ',' | sed 's/,$//')
counter=$(curl -s "$BASE/demo.php?format=text&peek=1" | sed -n 's/.* counter=\([0-9a-z]*\) .*/\1/p')
rm -rf "$OUT"

ok=1
echo
echo "  distinct worker PIDs: $npids ($pids)"
echo "  shared counter after $REQUESTS requests: ${counter:-?}"
if [ "$npids" -lt 2 ]; then
  echo "  FAIL: every request was served by one process, so sharing was not shown" >&2
  ok=0
fi
if [ "$counter" != "$REQUESTS" ] || [ "$counters" != "$(seq -s, 1 "$REQUESTS")" ]; then
  echo "  FAIL: the counter should have gone 1..$REQUESTS across the workers (got: $counters)" >&2
  ok=0
fi
if [ "$ok" = 1 ]; then
  echo "  OK: $npids processes incremented one shared counter to exactly $REQUESTS"
fi
echo

if [ "${DEMO_ONCE:-0}" = 1 ]; then
  [ "$ok" = 1 ] || { tail -n 20 "$LOG" >&2; exit 1; }
  rm -f "$LOG"
  exit 0
fi

log "serving $BASE until Ctrl-C (try: for i in \$(seq 8); do curl -s '$BASE/demo.php?format=text'; done)"
while kill -0 "$SERVER_PID" 2>/dev/null; do
  sleep 1
done
echo "The server stopped:" >&2
tail -n 20 "$LOG" >&2 || true
exit 1
