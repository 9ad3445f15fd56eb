# The PHP-FPM test harness: the scripts that run php-fpm masters of their own (each test's pools,
# config, sockets and logs in its own directory, never the system's FPM) write, start, stop and
# query them with these. Sourced after scripts/common.sh ($SO, $PHP_VER).

# fpm_publish DIR [FILE...]: $SO as DIR/libshmcache.so and a copy of each FILE, DIR and all of
# them world-readable: the pools' users (www-data, nobody) must read them, and the checkout may be
# private to root. The .so is replaced by a rename, never rewritten in place: a running master
# maps the file it started with.
fpm_publish() {
  local dir=$1 f
  shift
  chmod 0755 "$dir"
  if ! cmp -s "$SO" "$dir/libshmcache.so"; then
    install -m 0644 "$SO" "$dir/libshmcache.so.tmp.$$"
    mv -f "$dir/libshmcache.so.tmp.$$" "$dir/libshmcache.so"
  fi
  for f in "$@"; do install -m 0644 "$f" "$dir/"; done
}

# fpm_global PIDFILE ERROR_LOG [LINE...]: a master's [global] section; each LINE follows as it
# is. (fpm_start's -F keeps a master in the foreground whatever daemonize says.)
fpm_global() {
  printf '[global]\npid = %s\nerror_log = %s\nlog_level = notice\n' "$1" "$2"
  shift 2
  [ $# -eq 0 ] || printf '%s\n' "$@"
}

# fpm_pool NAME USER:GROUP SOCKET CHILDREN [LINE...]: a pool section (USER:GROUP "" keeps the
# master's user; a master run as root needs -R for root:root). pm = static: every worker is up
# from the start, so a test knows how many there are and which requests can run at once. Each
# LINE follows as it is ("php_admin_value[shmcache.region] = a").
fpm_pool() {
  local name=$1 user=$2 sock=$3 children=$4
  shift 4
  printf '\n[%s]\n' "$name"
  [ -z "$user" ] || printf 'user = %s\ngroup = %s\n' "${user%%:*}" "${user#*:}"
  printf 'listen = %s\npm = static\npm.max_children = %s\n' "$sock" "$children"
  [ $# -eq 0 ] || printf '%s\n' "$@"
}

# Pool lines that send the workers' PHP errors and warnings (and whatever they write to stderr)
# to the master's error_log, where the tests look for them, never into a response.
FPM_WORKER_ERRORS=("catch_workers_output = yes" "decorate_workers_output = no"
  "php_admin_flag[display_errors] = off" "php_admin_flag[log_errors] = on")

# fpm_start CONF OUT [PHP-FPM-ARGS...]: a php-fpm$PHP_VER master on CONF (-n: no php.ini, the
# test's settings only), its output appended to OUT; sets FPM_MASTER to its PID. It runs in a
# process group of its own, which fpm_stop ends as a whole, workers included.
fpm_start() {
  local conf=$1 out=$2 pidfile="$1.master.pid"
  shift 2
  rm -f "$pidfile"
  # The session leader writes its own PID before it becomes the master: setsid may fork, so $!
  # is not always the master.
  setsid bash -c 'echo $$ >"$0"; exec "$@"' "$pidfile" \
    "php-fpm$PHP_VER" -n -F -y "$conf" "$@" >>"$out" 2>&1 &
  for _ in $(seq 50); do [ -s "$pidfile" ] && break; sleep 0.05; done
  FPM_MASTER=$(cat "$pidfile" 2>/dev/null || true)
}

# fpm_wait CMD...: true as soon as CMD is (tried every 0.1 s, for 10 s): a master takes a moment
# to create its sockets, and its workers to take requests.
fpm_wait() {
  local i
  for ((i = 0; i < 100; i++)); do
    "$@" && return 0
    sleep 0.1
  done
  return 1
}

# fpm_stop MASTER...: ends these masters and their workers: SIGTERM to each process group (a
# graceful stop), then SIGKILL to what is left after 5 s.
fpm_stop() {
  local m
  for m in "$@"; do kill -TERM -- "-$m" 2>/dev/null || true; done
  for m in "$@"; do
    for _ in $(seq 100); do kill -0 "$m" 2>/dev/null || break; sleep 0.05; done
    kill -KILL -- "-$m" 2>/dev/null || true
  done
}

# fcgi_request SOCKET SCRIPT QUERY [TIMEOUT]: a GET of SCRIPT?QUERY sent straight to a pool as a
# web server would (cgi-fcgi, libfcgi-bin); prints the first line of the body that starts with
# RESULT, nothing when the request died. Returns 124 when the client had to be timed out after
# TIMEOUT seconds (default 10; a hang), 0 otherwise.
fcgi_request() {
  local sock=$1 script=$2 q=$3 t=${4:-10} name out rc=0
  name=/${script##*/}
  out=$(timeout "$t" env -i SCRIPT_FILENAME="$script" SCRIPT_NAME="$name" REQUEST_URI="$name?$q" \
    DOCUMENT_URI="$name" QUERY_STRING="$q" REQUEST_METHOD=GET SERVER_NAME=localhost \
    SERVER_PROTOCOL=HTTP/1.1 GATEWAY_INTERFACE=CGI/1.1 \
    /usr/bin/cgi-fcgi -bind -connect "$sock" 2>/dev/null) || rc=$?
  grep -a '^RESULT' <<<"$out" | head -n 1 || true
  [ "$rc" -ne 124 ] || return 124
}
