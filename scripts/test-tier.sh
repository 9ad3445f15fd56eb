#!/usr/bin/env bash
# Tiered mode (shmcache.redis) end to end: one redis-server of this script's own (a unix socket
# under target/) and two PHP-FPM masters standing for two web servers, each with its own
# anonymous region. Master A has pool "a"; master B has pools "b", "bslow", "bpend" and "bjit":
# the workers of bslow and bjit share B's region but wait TIER_SLOW_MS (1000) and TIER_JIT_MS
# (15) between reading Redis and filling the region (the test hook shmcache.test_hook_fill_delay),
# which widens the fill-after-invalidation race (bslow for the forced race, bjit for the checker);
# bpend's workers wait 3/5 of TIER_SLOW_MS before filling and then hold each fill pending in its
# slot, before its re-check, for TIER_SLOW_MS (shmcache.test_hook_fill_recheck_delay).
# Requests go to the pools' FastCGI sockets (tests/fpm/tier-client.php).
#
#  - a write on A is read by the next request on B, after B held a near copy;
#  - concurrent add() of one key over both servers: exactly one winner;
#  - a flush on A (everything, or one namespace) empties B;
#  - the race: a request on bslow reads the old value, A writes, b applies the invalidation,
#    then bslow fills: the next requests on B read the new value;
#  - the same race with the fill already in B's region, pending its re-check (bpend): a request
#    on b that starts after A's write never reads the pending old value;
#  - Redis SIGKILLed and restarted empty under load: no failed request, no stale value read
#    (misses of the lost data are expected), and B's near copy of the lost data is not served
#    afterwards;
#  - Redis failing in the middle of a request (its write times out): the rest of the request reads
#    nothing near;
#  - Redis slowed with DEBUG SLEEP: requests end within the timeouts; the failure is logged, not
#    raised as a warning (which frameworks turn into exceptions);
#  - pools of one master (C: "c" with the tier, "cplain" without it, one anonymous region): a
#    cplain request that began before c's first request marked the region writes into it; c
#    never serves that value (at its end cplain's request makes the tier start over), and later
#    cplain requests stay out;
#  - the randomized checker for TIER_CHECK_SECONDS (default 30; longer runs: set it) with 6
#    clients over a, b and bjit: 0 stale reads, 0 failed requests.
# Ends with "N passed, N failed". TIER_KEEP=1 keeps target/tier.<PID>.
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/lib/fpm.sh"
set +eu +o pipefail

apt_need php8.2-fpm php8.2-cli redis-server redis-tools procps
need_so

RUN="$ROOT/target/tier.$$"
mkdir -p "$RUN"
# What the pools' user must read (the script, the library), out of the checkout.
PUB=$(mktemp -d /tmp/shmcache-tier.XXXXXX)
fpm_publish "$PUB" "$ROOT/tests/fpm/tier.php"
export TIER_SCRIPT="$PUB/tier.php"
CLIENT="$ROOT/tests/fpm/tier-client.php"
REDIS_SOCK="$RUN/redis.sock"
SLOW_MS=${TIER_SLOW_MS:-1000}
JIT_MS=${TIER_JIT_MS:-15}
CHECK_SECONDS=${TIER_CHECK_SECONDS:-30}
MASTERS=()
REDIS_PID=""

start_redis() {
  rm -f "$REDIS_SOCK"
  redis-server --port 0 --unixsocket "$REDIS_SOCK" --unixsocketperm 777 --save "" --appendonly no \
    --enable-debug-command local --logfile "$RUN/redis.log" &
  REDIS_PID=$!
  for _ in $(seq 100); do [ -S "$REDIS_SOCK" ] && redis-cli -s "$REDIS_SOCK" ping >/dev/null 2>&1 && return 0; sleep 0.05; done
  echo "redis-server did not start" >&2
}
stop_redis() {
  [ -n "$REDIS_PID" ] || return 0
  kill -KILL "$REDIS_PID" 2>/dev/null
  wait "$REDIS_PID" 2>/dev/null
  REDIS_PID=""
}

# start_master NAME POOLS...: a php-fpm8.2 master; each pool
# "name:children:fill_delay_ms[:fill_recheck_delay_ms[:plain]]" (plain: without shmcache.redis).
start_master() {
  local name=$1
  shift
  {
    fpm_global "$RUN/$name.pid" "$RUN/$name.log"
    for pool in "$@"; do
      IFS=: read -r pname children delay recheck plain <<<"$pool"
      redis="php_admin_value[shmcache.redis] = unix://$REDIS_SOCK"
      [ -z "$plain" ] || redis="; no shmcache.redis"
      fpm_pool "$pname" www-data:www-data "$RUN/$pname.sock" "$children" "listen.mode = 0666" \
        "${FPM_WORKER_ERRORS[@]}" "$redis" \
        "php_admin_value[shmcache.redis_read_timeout] = 100" "php_admin_value[shmcache.redis_connect_timeout] = 50" \
        "php_admin_value[shmcache.test_hook_fill_delay] = $delay" \
        "php_admin_value[shmcache.test_hook_fill_recheck_delay] = ${recheck:-0}"
    done
  } >"$RUN/$name.conf"
  fpm_start "$RUN/$name.conf" "$RUN/$name.out" -d extension="$PUB/libshmcache.so" -d shmcache.keys_memory_size=1M \
    -d shmcache.values_memory_size=8M
  MASTERS+=("$FPM_MASTER")
  fpm_wait test -S "$RUN/${1%%:*}.sock" && return 0
  echo "php-fpm $name did not start" >&2
}

cleanup() {
  fpm_stop "${MASTERS[@]}"
  stop_redis
  if [ "${TIER_KEEP:-0}" = 1 ]; then echo "kept $RUN" >&2; else rm -rf "$RUN"; fi
  rm -rf "$PUB"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# req POOL QUERY: the request's result as JSON ("FAILED" when the request failed).
req() { php -n "$CLIENT" req "$RUN/$1.sock" "$2"; }
# field JSON NAME: one field of a result (true/false for booleans, "" when absent).
field() {
  php -n -r '$j = json_decode($argv[1], true); $v = is_array($j) ? ($j[$argv[2]] ?? null) : null;
    echo is_bool($v) ? ($v ? "true" : "false") : (is_array($v) ? json_encode($v) : (string) $v);' "$1" "$2"
}
# stale_reads POOL KEY VALUE: of 6 gets of KEY on POOL, how many did not read VALUE.
stale_reads() {
  local n=0
  for _ in 1 2 3 4 5 6; do [ "$(field "$(req "$1" "op=get&k=$2")" value)" = "$3" ] || n=$((n + 1)); done
  echo "$n"
}

start_redis
start_master A "a:3:0"
start_master B "b:3:0" "bslow:2:$SLOW_MS" "bpend:1:$((SLOW_MS * 3 / 5)):$SLOW_MS" "bjit:2:$JIT_MS"

# ------------------------------------------------------------------ write on A, read on B
req a "op=set&k=post&v=v1" >/dev/null
expect "B reads A's write" "$(field "$(req b 'op=get&k=post')" value)" "v1"
# Every worker of b now reads it (filling B's region once); then A writes again.
for _ in 1 2 3 4; do req b "op=get&k=post" >/dev/null; done
hits=$(field "$(req b 'op=get&k=post')" tier_near_hits)
check "B serves its near copy (near hits $hits)" test "${hits:-0}" -ge 1
req a "op=set&k=post&v=v2" >/dev/null
expect "every worker of B reads A's new value at its next request" "$(stale_reads b post v2)" "0"
req b "op=delete&k=post" >/dev/null
expect "a delete on B is seen on A" "$(field "$(req a 'op=get&k=post')" found)" "false"

# ------------------------------------------------------------------ add race across servers
expect "concurrent add() over both servers: one winner" \
  "$(php -n "$CLIENT" race 24 "lock$$" "$RUN/a.sock" "$RUN/b.sock")" "won 1 lost 23 failed 0"

# ------------------------------------------------------------------ flushes
req a "op=set&k=f1&v=x" >/dev/null
req a "op=nsset&ns=site&k=f2&v=y" >/dev/null
req b "op=get&k=f1" >/dev/null
req b "op=nsget&ns=site&k=f2" >/dev/null
req a "op=nsflush&ns=site" >/dev/null
expect "a namespace flush on A empties it on B" "$(field "$(req b 'op=nsget&ns=site&k=f2')" found)" "false"
expect "and leaves the rest" "$(field "$(req b 'op=get&k=f1')" value)" "x"
req a "op=flush" >/dev/null
expect "a full flush on A empties B" "$(field "$(req b 'op=get&k=f1')" found)" "false"

# ------------------------------------------------------------------ the fill race
req a "op=set&k=race&v=old" >/dev/null
php -n "$CLIENT" req "$RUN/bslow.sock" "op=get&k=race" >"$RUN/slow.json" &
slow=$!
sleep "$(php -n -r "echo $SLOW_MS / 5000;")"
req a "op=set&k=race&v=new" >/dev/null
# b applies the invalidation while the slow request has read "old" and not filled yet.
applied=$(field "$(req b 'op=get&k=race')" value)
wait "$slow"
expect "the slow request began before the write (reads old)" "$(field "$(cat "$RUN/slow.json")" value)" "old"
expect "its fill lost to the applied invalidation" "$(field "$(cat "$RUN/slow.json")" tier_stale_fills_dropped)" "1"
stale=$(( $(stale_reads b race new) + $(stale_reads bslow race new) ))
expect "requests on B after the write read the new value ($applied first)" "$stale" "0"

# ------------------------------------------------------------------ the race, fill pending
# bpend reads "old" from Redis, waits, and then holds its fill pending in B's region (before its
# re-check). Meanwhile A writes "new", and a request on b applies the invalidation and fills
# "new". A second request on b, started while bpend's fill of "old" sits in the region, must
# read "new": a fill is invisible until its re-check, which withdraws it here.
req a "op=set&k=pend&v=old" >/dev/null
php -n "$CLIENT" req "$RUN/bpend.sock" "op=get&k=pend" >"$RUN/pend.json" &
pend=$!
sleep "$(php -n -r "echo $SLOW_MS / 5000;")"
req a "op=set&k=pend&v=new" >/dev/null
first=$(field "$(req b 'op=get&k=pend')" value)
# Into bpend's pending window: it inserts at 3/5 of SLOW_MS and re-checks SLOW_MS later.
sleep "$(php -n -r "echo $SLOW_MS * 3 / 5000;")"
during=$(field "$(req b 'op=get&k=pend')" value)
wait "$pend"
expect "the pending request began before the write (reads old)" "$(field "$(cat "$RUN/pend.json")" value)" "old"
expect "a request on B after the write reads new ($first), and so does one while the old fill is pending" "$during" "new"
expect "the pending fill was withdrawn" "$(field "$(cat "$RUN/pend.json")" tier_stale_fills_dropped)" "1"
expect "requests on B afterwards read new" "$(stale_reads b pend new)" "0"

# ------------------------------------------------------------------ Redis killed, restarted empty
req a "op=set&k=lost&v=before" >/dev/null
for _ in 1 2 3 4; do req b "op=get&k=lost" >/dev/null; done
php -n "$CLIENT" check 4 3 "$RUN/restart.log" "$RUN/a.sock" "$RUN/b.sock" >"$RUN/restart.out" 2>&1 &
load=$!
sleep 1
stop_redis
down=$(req b "op=get&k=lost")
sleep 0.5
start_redis
wait "$load"
expect "with Redis down, B does not serve its near copy" "$(field "$down" found)" "false"
expect "its failure does not reach the error handler (no warning to turn into an exception)" "$(field "$down" warnings)" ""
logged=$(grep -c "shmcache: Redis at unix://$REDIS_SOCK failed" "$RUN/B.log")
check "it is in B's error log ($logged lines)" test "${logged:-0}" -ge 1
echo "under the restart: $(tail -n 1 "$RUN/restart.out")"
expect "no failed request while Redis was killed" "$(sed -n 's/.* failed \([0-9]*\) .*/\1/p' "$RUN/restart.out")" "0"
# Misses of what the restart lost are expected; an old value is never.
expect "no stale value read while Redis was killed and restarted" "$(sed -n 's/.* stale-values \([0-9]*\).*/\1/p' "$RUN/restart.out")" "0"
expect "after Redis came back empty, B does not serve the lost value" "$(field "$(req b 'op=get&k=lost')" found)" "false"
req a "op=set&k=lost&v=after" >/dev/null
expect "and reads A's new writes" "$(field "$(req b 'op=get&k=lost')" value)" "after"

# ------------------------------------------------------------------ Redis fails mid-request
# A request reads a near copy, then its write times out (Redis holds writes: CLIENT PAUSE WRITE):
# from then on it must not read the near copy, though it was trusted at its start.
req a "op=set&k=mid&v=near" >/dev/null
for _ in 1 2 3 4; do req b "op=get&k=mid" >/dev/null; done
mid=$(req b "op=midfail&k=mid")
expect "a request that read the near copy ($(field "$mid" before)) and whose write then failed ($(field "$mid" pause), set: $(field "$mid" ok))" \
  "$(field "$mid" before)/$(field "$mid" ok)" "near/false"
expect "reads nothing near for the rest of the request" "$(field "$mid" found)" "false"

# ------------------------------------------------------------------ Redis slowed
redis-cli -s "$REDIS_SOCK" DEBUG SLEEP 2 >/dev/null &
sleeper=$!
sleep 0.3
t0=$(date +%s%N)
slowreq=$(req b "op=get&k=lost")
t1=$(date +%s%N)
wait "$sleeper"
ms=$(( (t1 - t0) / 1000000 ))
check "a request while Redis sleeps ends within its timeouts (${ms} ms)" test "$ms" -lt 1000
expect "and misses instead of trusting its near copy" "$(field "$slowreq" found)" "false"
expect "the next request is served again" "$(field "$(req b 'op=get&k=lost')" value)" "after"

# ------------------------------------------------------------------ pools differing in shmcache.redis
# One master, one anonymous region: pool c with the tier, pool cplain without it (a
# misconfiguration). A cplain request that began before c's first request marked the region
# writes into it (its writes do not look at the mark); when it ends it makes the tier start over.
start_master C "c:1:0" "cplain:1:0:0:plain"
expect "cplain uses the unmarked region alone" "$(field "$(req cplain 'op=set&k=pools&v=plain')" ok)" "true"
php -n "$CLIENT" req "$RUN/cplain.sock" "op=sleepset&k=pools&v=stale&ms=1500" >"$RUN/pools.json" &
inflight=$!
sleep 0.5
expect "c's first request (it marks the region) does not read cplain's value" "$(field "$(req c 'op=get&k=pools')" found)" "false"
wait "$inflight"
expect "cplain's request that began before the mark wrote afterwards" "$(field "$(cat "$RUN/pools.json")" ok)" "true"
served=0
for _ in 1 2 3; do [ "$(field "$(req c 'op=get&k=pools')" found)" = false ] || served=$((served + 1)); done
expect "c never serves the value Redis never had" "$served" "0"
logged=$(grep -c "started using this region during a request of this process" "$RUN/C.log")
check "cplain logged why ($logged lines)" test "${logged:-0}" -ge 1
later=$(req cplain 'op=set&k=pools&v=later')
expect "a later cplain request stays out of the marked region" "$(field "$later" ok)" "false"
req c "op=set&k=pools&v=tiered" >/dev/null
expect "and c reads the tier's value" "$(field "$(req c 'op=get&k=pools')" value)" "tiered"

# ------------------------------------------------------------------ randomized checker
# First its analysis, on a log whose stale reads were found by hand: a value overwritten
# before the read was sent, a miss after a set, a value deleted before the read, a value
# nobody wrote (and reads that overlap the writes, which are not stale).
expect "the checker finds the stale reads of a known log" \
  "$(php -n "$CLIENT" analyze "$ROOT/tests/fpm/tier-check-fixture" 1 2>/dev/null)" "reads 8 stale 4 failed 0 writes 3 stale-values 3"
result=$(php -n "$CLIENT" check "$CHECK_SECONDS" 6 "$RUN/check.log" "$RUN/a.sock" "$RUN/b.sock" "$RUN/bjit.sock" 2>"$RUN/check.err")
echo "checker: $result"
head -n 5 "$RUN/check.err"
reads=$(echo "$result" | sed -n 's/^reads \([0-9]*\) .*/\1/p')
check "checker made reads ($reads)" test "${reads:-0}" -gt 100
expect "checker: stale reads" "$(echo "$result" | sed -n 's/.* stale \([0-9]*\) .*/\1/p')" "0"
expect "checker: failed requests" "$(echo "$result" | sed -n 's/.* failed \([0-9]*\) .*/\1/p')" "0"

echo "$passed passed, $failed failed"
