#!/usr/bin/env bash
# Fault test against a real PHP-FPM: a php-fpm$PHP_VER master of its own (8.2 unless
# SHMCACHE_PHP_VERSION says; pm=static, 4 workers, a unix socket in a temp dir) serving
# tests/fpm/worker.php, driven by cgi-fcgi.
#
#  1. write-heavy load (values of 10 B..500 KB that embed their key and an md5, objects whose
#     __sleep/__wakeup/__serialize/__unserialize are slow, incr on shared counters) while
#     hundreds of random workers are SIGKILLed;
#  2. requests that request_terminate_timeout ends inside __sleep, __serialize, __wakeup,
#     __unserialize and in the middle of set/get of 500 KB values;
#  3. requests that max_execution_time (or memory_limit) ends with a fatal error inside those
#     methods, or while the extension builds a value: those workers live on and must keep working
#     (in a pool of their own, [fatal], whose request_terminate_timeout is far beyond the CPU-time
#     limit: on a loaded machine a second of CPU can take many seconds of wall time, and the
#     [faults] pool's 3 s would end the request before its fatal error);
#  4. afterwards: every request succeeds, no wrong value, consistent shmcache_info(), an exact
#     incr count, no crashed worker in the logs;
#  5. a graceful reload (SIGUSR2) under load: the master lives, the cache comes back empty and
#     works, and each process maps the region exactly once.
#
# Run by scripts/test.sh; prints PASS/FAIL lines and figures, ends with "N passed, N failed".
# Knobs: FPM_KILLS (default 300), FPM_KEEP=1 keeps the temp dir.
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/lib/fpm.sh"
set +e +o pipefail
apt_need php$PHP_VER-fpm libfcgi-bin procps
need_so

KILLS=${FPM_KILLS:-300}
KEYS_MEM=$((1 << 20))
VALUES_MEM=$((32 << 20))
TERMINATE=3   # request_terminate_timeout (wall clock) of the [faults] pool
MAX_EXEC=1    # max_execution_time (CPU time on Linux)
# request_terminate_timeout of the [fatal] and [leak] pools, whose requests must end in a fatal
# error after MAX_EXEC seconds of CPU time: only a safety net, so that a request that never
# reaches its fatal error ends (and fails the checks) instead of spinning on. With 1 s of CPU
# and 120 s of wall time, a request reaches its fatal error unless it gets less than 1/120 of a
# core (at 3 s, a load average of 8-12 on 2 cores was enough to kill requests first).
FATAL_TERMINATE=120
FATAL_WAIT=$((FATAL_TERMINATE + 30))  # the client's timeout for those requests

TMP=$(mktemp -d /tmp/shmcache-fpm.XXXXXX)
fpm_publish "$TMP" "$ROOT/tests/fpm/worker.php"
SOCK="$TMP/fpm.sock"
MASTER=""
BG=()

cleanup() {
  local p
  for p in "${BG[@]}"; do kill "$p" 2>/dev/null; done
  [ -z "$MASTER" ] || fpm_stop "$MASTER"
  if [ "${FPM_KEEP:-0}" = 1 ]; then echo "kept $TMP" >&2; else rm -rf "$TMP"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

finish() {
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
  exit $?
}

# fcgi QUERY [TIMEOUT]: one request to the pool; prints the body's RESULT line (nothing when the
# request died). Returns 124 when the client had to be timed out (a hang).
# FCGI_SOCK sends it to another pool.
fcgi() { fcgi_request "${FCGI_SOCK:-$SOCK}" "$TMP/worker.php" "$@"; }
field() { # field NAME LINE
  local v=${2#* $1=}
  [ "$v" = "$2" ] && { echo ""; return; }
  echo "${v%% *}"
}
# workers [POOL]: the workers of the [faults] pool (or of POOL).
workers() { local p; for p in $(pgrep -P "$MASTER"); do grep -q "pool ${1:-faults}" "/proc/$p/cmdline" 2>/dev/null && echo "$p"; done | sort -n; }
# count_in PATTERN FILE: matching lines (0 when none or no file).
count_in() { local n; n=$(grep -c -- "$1" "$2" 2>/dev/null); echo "${n:-0}"; }
count_log() { count_in "$1" "$TMP/fpm.log"; }

# ---- the pool ----
run_as=""
root_flag=()
if [ "$(id -u)" -eq 0 ]; then
  run_as=root:root
  root_flag=(-R)
fi
limits=("php_value[max_execution_time] = $MAX_EXEC" "php_value[memory_limit] = 256M")
{
  fpm_global "$TMP/fpm.pid" "$TMP/fpm.log" "process_control_timeout = 5s"
  fpm_pool faults "$run_as" "$SOCK" 4 "request_terminate_timeout = ${TERMINATE}s" \
    "${FPM_WORKER_ERRORS[@]}" "php_admin_value[error_log] = $TMP/php.log" "${limits[@]}"
  # Phase 3's fatal errors: two workers (its requests come two at a time), the same region.
  fpm_pool fatal "$run_as" "$TMP/fatal.sock" 2 "request_terminate_timeout = ${FATAL_TERMINATE}s" \
    "${FPM_WORKER_ERRORS[@]}" "php_admin_value[error_log] = $TMP/php.log" "${limits[@]}"
  # One worker of its own, to measure what a fatal error inside unserialize() leaves behind.
  fpm_pool leak "$run_as" "$TMP/leak.sock" 1 "request_terminate_timeout = ${FATAL_TERMINATE}s" \
    "php_admin_value[error_log] = $TMP/php-leak.log" \
    "php_admin_flag[log_errors] = on" "php_admin_flag[display_errors] = off" "${limits[@]}"
} >"$TMP/fpm.conf"

ring_off=$(( (266240 + KEYS_MEM / 32 * 32 + 4095) / 4096 * 4096 ))
REGION_LEN=$((ring_off + VALUES_MEM))

log "starting php-fpm$PHP_VER (4 workers, request_terminate_timeout=${TERMINATE}s, max_execution_time=${MAX_EXEC}s)"
fpm_start "$TMP/fpm.conf" "$TMP/fpm.out" "${root_flag[@]}" -d extension="$TMP/libshmcache.so" \
  -d shmcache.keys_memory_size=$KEYS_MEM -d shmcache.values_memory_size=$VALUES_MEM
MASTER=$FPM_MASTER
answers_ping() { [ -S "$SOCK" ] && [[ $(fcgi "op=ping" 5) == "RESULT ok"* ]]; }
if ! fpm_wait answers_ping; then
  echo "FAIL: php-fpm did not start"; cat "$TMP/fpm.out" "$TMP/fpm.log" 2>/dev/null | tail -n 20
  failed=$((failed + 1))
  finish
fi
check "php-fpm master $MASTER is up with 4 workers" test "$(workers | wc -l)" -eq 4 -a "$(workers fatal | wc -l)" -eq 2

# ---- 1. load + SIGKILLs ----
# load_loop ID MAX: load requests until $TMP/stop exists (at most MAX); writes its figures.
load_loop() {
  local id=$1 max=$2 n=0 ok=0 died=0 wrong=0 hung=0 line w
  while [ ! -e "$TMP/stop" ] && [ "$n" -lt "$max" ]; do
    n=$((n + 1))
    line=$(fcgi "op=load&ops=40&slow=3000" 15)
    [ $? -eq 124 ] && hung=$((hung + 1))
    if [[ $line == "RESULT ok"* ]]; then
      ok=$((ok + 1))
      w=$(field wrong "$line")
      wrong=$((wrong + ${w:-0}))
      [ "${w:-0}" -gt 0 ] && echo "$line" >>"$TMP/wrong.log"
    else
      died=$((died + 1))
    fi
  done
  echo "$n $ok $died $wrong $hung" >"$TMP/load.$id"
}
# run_loads N MAX: starts N load loops in the background.
run_loads() {
  local i
  rm -f "$TMP/stop" "$TMP"/load.*
  LOADS=()
  for i in $(seq "$1"); do
    load_loop "$i" "$2" &
    LOADS+=($!)
    BG+=($!)
  done
}
# stop_loads: stops the loops; sets L_N L_OK L_DIED L_WRONG L_HUNG (sums).
stop_loads() {
  touch "$TMP/stop"
  wait "${LOADS[@]}"
  L_N=0 L_OK=0 L_DIED=0 L_WRONG=0 L_HUNG=0
  local f n ok died wrong hung
  for f in "$TMP"/load.*; do
    read -r n ok died wrong hung <"$f"
    L_N=$((L_N + n)); L_OK=$((L_OK + ok)); L_DIED=$((L_DIED + died)); L_WRONG=$((L_WRONG + wrong)); L_HUNG=$((L_HUNG + hung))
  done
}

log "phase 1: load from 4 clients while $KILLS random workers are SIGKILLed"
t0=$(date +%s)
run_loads 4 100000
sleep 1
kills=0
attempts=0
while [ "$kills" -lt "$KILLS" ] && [ "$attempts" -lt $((KILLS * 5)) ]; do
  attempts=$((attempts + 1))
  mapfile -t kids < <(workers)
  if [ "${#kids[@]}" -gt 0 ]; then
    victim=${kids[RANDOM % ${#kids[@]}]}
    kill -KILL "$victim" 2>/dev/null && kills=$((kills + 1))
  fi
  sleep "0.0$((RANDOM % 5 + 1))"
done
sleep 0.5
stop_loads
t1=$(date +%s)
echo "kills=$kills load_requests=$L_N served=$L_OK died=$L_DIED wrong_values=$L_WRONG hung=$L_HUNG seconds=$((t1 - t0))"
check "$kills workers SIGKILLed during the load" test "$kills" -eq "$KILLS"
check "load served $L_OK requests, $L_DIED cut by kills" test "$L_OK" -gt "$((KILLS / 2))"
check "no wrong value read during the kills (wrong=$L_WRONG)" test "$L_WRONG" -eq 0
check "no client hung during the kills" test "$L_HUNG" -eq 0
[ -s "$TMP/wrong.log" ] && head -n 5 "$TMP/wrong.log"
sig9=$(count_log "signal 9 (SIGKILL)")
echo "fpm saw $sig9 workers end on SIGKILL"

# ---- 2. request_terminate_timeout inside magic methods and large set/get ----
log "phase 2: requests ended by request_terminate_timeout (${TERMINATE}s), with load running"
timed_before=$(count_log "execution timed out")
run_loads 1 100000
term_ops=(term_sleep term_serialize term_wakeup term_unserialize term_big term_sleep term_serialize term_wakeup term_unserialize term_big term_big term_big)
pids=()
for op in "${term_ops[@]}"; do
  fcgi "op=$op" 20 >"$TMP/term.$op.$RANDOM" &
  pids+=($!)
  BG+=($!)
  [ "${#pids[@]}" -ge 3 ] && { wait "${pids[0]}"; pids=("${pids[@]:1}"); }
done
wait "${pids[@]}"
stop_loads
timed=$(( $(count_log "execution timed out") - timed_before ))
not_term=$(cat "$TMP"/term.* | grep -c 'RESULT' || true)
term_load=$(grep "execution timed out" "$TMP/fpm.log" | grep -c "op=load" || true)
echo "terminate requests=${#term_ops[@]} timed_out=$timed answered_instead=$not_term (load meanwhile: requests=$L_N served=$L_OK wrong=$L_WRONG)"
check "every slow request was ended by request_terminate_timeout ($timed of ${#term_ops[@]})" test "$timed" -ge "${#term_ops[@]}" -a "$not_term" -eq 0
check "no load request ever timed out (no hang inside shmcache)" test "$term_load" -eq 0
check "no wrong value read while requests were terminated" test "$L_WRONG" -eq 0 -a "$L_HUNG" -eq 0

# ---- 3. fatal errors (max_execution_time, memory_limit) inside PHP code called by shmcache ----
log "phase 3: fatal errors inside __sleep/__serialize/__wakeup and while building a value (pool [fatal])"
# These requests, and the load requests that follow on the same workers, go to the [fatal] pool
# (FCGI_SOCK); its workers share the region with the other pools.
before_workers=$(workers fatal | tr '\n' ' ')
terminated_before=$(grep "execution timed out" "$TMP/fpm.log" | grep -c "pool fatal")
fatal_before=$(count_in "Maximum execution time\|Allowed memory size" "$TMP/php.log")
bail_ops=(bail_sleep bail_serialize bail_wakeup bail_memory bail_sleep bail_serialize bail_memory bail_wakeup bail_memory_array bail_memory_array
  bail_wakeup_multi bail_wakeup_multi)
bail_answered=0
for ((i = 0; i < ${#bail_ops[@]}; i += 2)); do
  FCGI_SOCK="$TMP/fatal.sock" fcgi "op=${bail_ops[i]}" $FATAL_WAIT >"$TMP/bail.a" &
  a=$!
  FCGI_SOCK="$TMP/fatal.sock" fcgi "op=${bail_ops[i + 1]}" $FATAL_WAIT >"$TMP/bail.b"
  wait "$a"
  bail_answered=$((bail_answered + $(cat "$TMP/bail.a" "$TMP/bail.b" | grep -c RESULT)))
done
fatal=$(( $(count_in "Maximum execution time\|Allowed memory size" "$TMP/php.log") - fatal_before ))
terminated=$(( $(grep "execution timed out" "$TMP/fpm.log" | grep -c "pool fatal") - terminated_before ))
after_workers=$(workers fatal | tr '\n' ' ')
echo "fatal-error requests=${#bail_ops[@]} fatal_errors_logged=$fatal answered_instead=$bail_answered terminated_instead=$terminated workers_before=[$before_workers] after=[$after_workers]"
check "every fatal-error request ended in a PHP fatal error ($fatal of ${#bail_ops[@]})" test "$fatal" -eq "${#bail_ops[@]}" -a "$bail_answered" -eq 0 -a "$terminated" -eq 0
check "workers survived their fatal errors (same PIDs)" test -n "$before_workers" -a "$before_workers" = "$after_workers"
ok_after=0
for i in $(seq 12); do
  [[ $(FCGI_SOCK="$TMP/fatal.sock" fcgi "op=load&ops=30&slow=0" 30) == "RESULT ok wrong=0 "* ]] && ok_after=$((ok_after + 1))
done
check "those workers then serve load requests correctly ($ok_after of 12)" test "$ok_after" -eq 12
# Memory left behind by fatal errors inside user serialization code (one worker, pool [leak]):
# warm up with the normal request, then the same request ending in a fatal error, and compare
# how much the worker's RSS grows per request. A 4 MB value that the extension copied into its
# own memory and lost at each fatal error shows as ~4,000 KB per request.
rss() { FCGI_SOCK="$TMP/leak.sock" fcgi "op=rss" | sed -n 's/.*rss_kb=\([0-9]*\).*/\1/p'; }
leak_req() { local i; for i in $(seq "$2"); do FCGI_SOCK="$TMP/leak.sock" fcgi "op=$1&size=4000000" $FATAL_WAIT >/dev/null; done; }
LEAK_N=6
leak_check() { # leak_check CONTROL_OP BAIL_OP WHAT
  leak_req "$1" 10
  local r0 r1 r2
  r0=$(rss)
  leak_req "$1" $LEAK_N
  r1=$(rss)
  leak_req "$2" $LEAK_N
  r2=$(rss)
  local per_ok=$(( (${r1:-0} - ${r0:-0}) / LEAK_N )) per_fatal=$(( (${r2:-0} - ${r1:-0}) / LEAK_N ))
  echo "leak pool RSS (KB): warm=$r0, after $LEAK_N normal requests=$r1, after $LEAK_N fatal errors in $3=$r2"
  check "no memory lost per fatal error in $3 with a 4 MB value ($per_fatal KB per fatal error, $per_ok KB per normal request)" \
    test -n "$r2" -a "$per_fatal" -lt 2000
}
leak_check ctl_wakeup bail_wakeup "__wakeup during shmcache_get"
leak_check ctl_sleep_multi bail_sleep_multi "__sleep during shmcache_set_multi"
leak_check ctl_wakeup_multi bail_wakeup_multi "__wakeup during shmcache_get_multi"

# ---- 4. afterwards ----
log "phase 4: after the faults"
served=0
hung=0
for i in $(seq 40); do
  if ((i % 2)); then q="op=ping"; else q="op=load&ops=20&slow=0"; fi
  line=$(fcgi "$q" 10)
  [ $? -eq 124 ] && hung=$((hung + 1))
  [[ $line == "RESULT ok"* ]] && [ "$(field wrong "$line")" != "" -a "$(field wrong "$line")" != 0 ] && line="bad"
  [[ $line == "RESULT ok"* ]] && served=$((served + 1))
done
check "every new request succeeds ($served of 40, hung=$hung)" test "$served" -eq 40 -a "$hung" -eq 0
line=$(fcgi "op=verify" 20)
echo "verify: $line"
check "verification reads every key: wrong values = $(field wrong "$line"), hits = $(field hits "$line")" \
  test "$(field wrong "$line")" = 0 -a "$(field hits "$line")" -gt 0
line=$(fcgi "op=info" 20)
echo "info: $line"
check "shmcache_info() counters consistent (non-negative ints, slots_used <= slots_total)" test "${line%% bad=*}" = "RESULT ok"
N=40
M=250
[[ $(fcgi "op=set&key=exact&value=0") == "RESULT ok" ]]
incr_ok=0
incr_pids=()
for c in 1 2 3 4; do
  (
    k=0
    for i in $(seq $((N / 4))); do [[ $(fcgi "op=incr&key=exact&m=$M" 20) == "RESULT ok"* ]] && k=$((k + 1)); done
    echo "$k" >"$TMP/incr.$c"
  ) &
  incr_pids+=($!)
  BG+=($!)
done
wait "${incr_pids[@]}"
for c in 1 2 3 4; do incr_ok=$((incr_ok + $(cat "$TMP/incr.$c"))); done
line=$(fcgi "op=get&key=exact")
echo "exact incr: $N requests x $M incr, 4 concurrent clients: $line (requests ok: $incr_ok)"
check "exact incr: $N x $M = $((N * M))" test "$line" = "RESULT ok found=1 value=$((N * M))" -a "$incr_ok" -eq "$N"

# ---- 5. graceful reload (SIGUSR2) under load ----
log "phase 5: graceful reload (SIGUSR2) under load"
[[ $(fcgi "op=set&key=reload-key&value=4242") == "RESULT ok" ]]
check "a key set before the reload is readable" test "$(fcgi "op=get&key=reload-key")" = "RESULT ok found=1 value=4242"
old_workers=$(workers | tr '\n' ' ')
ready_before=$(count_log "ready to handle connections")
run_loads 3 100000
sleep 1
kill -USR2 "$MASTER"
reloaded=false
for _ in $(seq 200); do
  if [ "$(count_log "ready to handle connections")" -gt "$ready_before" ] && [ "$(workers | wc -l)" -eq 4 ]; then
    reloaded=true
    break
  fi
  sleep 0.1
done
sleep 1
stop_loads
echo "during reload: requests=$L_N served=$L_OK died=$L_DIED wrong=$L_WRONG hung=$L_HUNG"
new_workers=$(workers | tr '\n' ' ')
check "the master reloaded and is alive (pid $MASTER)" $reloaded
check "4 new workers after the reload" test "$(workers | wc -l)" -eq 4 -a -z "$(comm -12 <(tr ' ' '\n' <<<"$old_workers" | sort) <(tr ' ' '\n' <<<"$new_workers" | sort) | grep .)"
check "no wrong value and no hang during the reload" test "$L_WRONG" -eq 0 -a "$L_HUNG" -eq 0
check "the cache came back empty (key set before the reload is gone)" test "$(fcgi "op=get&key=reload-key")" = "RESULT ok found=0 value="
[[ $(fcgi "op=set&key=after-reload&value=77") == "RESULT ok" ]]
check "the cache works after the reload" test "$(fcgi "op=get&key=after-reload")" = "RESULT ok found=1 value=77"
line=$(fcgi "op=load&ops=40&slow=0")
check "load after the reload" test "$(field wrong "$line")" = 0
maps_ok=true
maps_report=""
for p in $MASTER $(workers); do
  n=0
  while read -r range _; do
    [ $(( 0x${range#*-} - 0x${range%-*} )) -eq "$REGION_LEN" ] && n=$((n + 1))
  done <"/proc/$p/maps"
  maps_report="$maps_report $p:$n"
  [ "$n" -eq 1 ] || maps_ok=false
done
echo "region mappings of $REGION_LEN bytes per process (pid:count):$maps_report"
check "each process maps the region exactly once after the reload (no leaked mapping)" $maps_ok

# ---- logs ----
crashes=$(grep -E "signal (4|6|7|8|11)|SIGSEGV|SIGABRT|SIGBUS|SIGFPE|SIGILL|core dumped" "$TMP/fpm.log" | wc -l)
panics=$(grep -ci "panicked\|RUST_BACKTRACE" "$TMP/fpm.log" "$TMP/php.log" 2>/dev/null | awk -F: '{ s += $NF } END { print s + 0 }')
unexpected=$(grep -E "PHP (Fatal|Warning|Notice|Deprecated)" "$TMP/php.log" 2>/dev/null | grep -v "Maximum execution time of $MAX_EXEC second\|Allowed memory size of" | wc -l)
echo "fpm log: sigkill=$(count_log "signal 9 (SIGKILL)") sigterm=$(count_log "signal 15 (SIGTERM)") timed_out=$(count_log "execution timed out") crashes=$crashes; php log: unexpected errors=$unexpected panics=$panics"
grep -E "PHP (Fatal|Warning|Notice|Deprecated)" "$TMP/php.log" 2>/dev/null | grep -v "Maximum execution time of $MAX_EXEC second\|Allowed memory size of" | head -n 5
grep -E "signal (4|6|7|8|11)|SIGSEGV|SIGABRT|SIGBUS|core dumped" "$TMP/fpm.log" | head -n 5
check "no worker crashed (no SIGSEGV/SIGABRT/SIGBUS in the fpm log)" test "$crashes" -eq 0
check "no panic, no unexpected PHP error or warning in the logs" test "$panics" -eq 0 -a "$unexpected" -eq 0
check "the master is still alive" kill -0 "$MASTER"

finish
