#!/usr/bin/env bash
# Named regions (shmcache.region) end to end, as root, with the real PHP-FPM, CLI and WordPress:
#
#  1. a php-fpm master of this script's own (php-fpm8.2, or SHMCACHE_PHP_VERSION's; config, pid and
#     sockets under target/), pools with php_admin_value[shmcache.region]: pool "a" runs as
#     www-data on one name with a 1M ring, pool "b" as nobody on another with a 2M ring, pool "c"
#     as nobody pointed at a's name by mistake, pool "anon" without a name (the old anonymous
#     region, as a control):
#       - each pool reports its own region, sizes and file (owner, mode 0600, length);
#       - c gets a warning in the log naming a's file and its owner, and no cache at all
#         (reads miss, writes fail), never some other region;
#       - a CLI run as www-data (runuser) with a's name shares a's cache both ways (set, read,
#         flush); a CLI of another user is denied with a message naming the file and owner;
#         a CLI without a name does not see FPM's entries (control);
#       - root: refuses to create a region in /dev/shm for nobody in particular; with
#         shmcache.region_user the file belongs to that user, who can use it;
#       - entries survive a graceful reload (SIGUSR2) and a full restart of the master, while
#         the anonymous pool's entry is gone after the reload (control);
#  2. WordPress (scripts/wp-stack.sh with WP_STACK_REGION): the CLI, loading wp-load.php like
#     WP-CLI, and FPM share the object cache and the page cache: wp_cache_flush(), options and
#     posts updated from the CLI, a page purge from the CLI, cron run from the CLI and through
#     wp-cron.php over HTTP; and the control: a CLI without the name leaves FPM stale.
#
# Region files are /dev/shm/shmcache.nrt<PID>-*, removed at the end. Prints PASS/FAIL lines and
# ends with "N passed, N failed". NAMED_KEEP=1 keeps target/named-regions.<PID>.
source "$(dirname "$0")/wp-stack.sh"
source "$(dirname "$0")/lib/fpm.sh"
set +eu +o pipefail

if [ "$(id -u)" -ne 0 ]; then
  echo "SKIP: test-named-regions.sh runs pools and CLI processes as other users: run it as root"
  echo "0 passed, 0 failed"
  exit 0
fi
apt_need "php$PHP_VER-fpm" "php$PHP_VER-cli" libfcgi-bin procps util-linux
need_so

TAG="nrt$$"
RUN="$ROOT/target/named-regions.$$"
mkdir -p "$RUN"
# What the pools' users must read (the script, the library), out of the checkout.
PUB=$(mktemp -d /tmp/shmcache-named.XXXXXX)
fpm_publish "$PUB" "$ROOT/tests/fpm/named.php"
MASTER=""
T0=$SECONDS

stop_master() {
  [ -n "$MASTER" ] || return 0
  fpm_stop "$MASTER"
  MASTER=""
}
cleanup() {
  stop_master
  [ "$(type -t wp_named_cleanup)" = function ] && wp_named_cleanup
  rm -f /dev/shm/shmcache."$TAG"-* /dev/shm/.shmcache."$TAG"-*
  if [ "${NAMED_KEEP:-0}" = 1 ]; then echo "kept $RUN" >&2; else rm -rf "$RUN"; fi
  rm -rf "$PUB"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# jget PATH: a field of the RESULT line on stdin (dots walk into arrays); true/false for booleans.
jget() {
  php -n -r '$l = stream_get_contents(STDIN); $p = strpos($l, "RESULT {");
    $j = $p === false ? null : json_decode(trim(strtok(substr($l, $p + 7), "\n")), true);
    foreach (explode(".", $argv[1]) as $k) { $j = is_array($j) ? ($j[$k] ?? null) : null; }
    echo is_bool($j) ? ($j ? "true" : "false") : (is_array($j) ? json_encode($j) : (string) $j);' "$1"
}

# fcgi POOL QUERY: the RESULT line of one request to that pool (empty when it failed).
fcgi() { fcgi_request "$RUN/$1.sock" "$PUB/named.php" "$2"; }

# cli USER INI-ARGS... -- OP-ARGS...: named.php in the CLI as USER; stdout and stderr together.
cli() {
  local user=$1 ini=()
  shift
  while [ $# -gt 0 ] && [ "$1" != -- ]; do ini+=(-d "$1"); shift; done
  shift
  runuser -u "$user" -- "php$PHP_VER" -n -d extension="$PUB/libshmcache.so" -d display_errors=stderr "${ini[@]}" \
    "$PUB/named.php" "$@" 2>&1
}


# ------------------------------------------------------------------------------ the master
A_PATH="/dev/shm/shmcache.$TAG-a"
B_PATH="/dev/shm/shmcache.$TAG-b"
{
  fpm_global "$RUN/fpm.pid" "$RUN/fpm.log"
  fpm_pool a www-data:www-data "$RUN/a.sock" 2 "${FPM_WORKER_ERRORS[@]}" "php_admin_value[shmcache.region] = $TAG-a" \
    "php_admin_value[shmcache.keys_memory_size] = 64K" "php_admin_value[shmcache.values_memory_size] = 1M"
  fpm_pool b nobody:nogroup "$RUN/b.sock" 1 "${FPM_WORKER_ERRORS[@]}" "php_admin_value[shmcache.region] = $TAG-b" \
    "php_admin_value[shmcache.keys_memory_size] = 64K" "php_admin_value[shmcache.values_memory_size] = 2M"
  # nobody, given a's name by mistake.
  fpm_pool c nobody:nogroup "$RUN/c.sock" 1 "${FPM_WORKER_ERRORS[@]}" "php_admin_value[shmcache.region] = $TAG-a"
  # No name: the master's anonymous region, as before named regions.
  fpm_pool anon www-data:www-data "$RUN/anon.sock" 1 "php_admin_flag[display_errors] = off"
} >"$RUN/fpm.conf"

start_master() {
  rm -f "$RUN"/*.sock
  fpm_start "$RUN/fpm.conf" "$RUN/fpm.out" -R -d extension="$PUB/libshmcache.so"
  MASTER=$FPM_MASTER
  wait_pools
}
pools_answer() {
  local p
  for p in a b c anon; do [ -S "$RUN/$p.sock" ] || return 1; done
  [ -n "$(fcgi anon op=info)" ]
}
wait_pools() {
  fpm_wait pools_answer && return 0
  echo "  php-fpm did not come up:"
  tail -n 20 "$RUN/fpm.out" "$RUN/fpm.log" 2>/dev/null
  return 1
}

log "php-fpm$PHP_VER master with pools a (www-data), b (nobody), c (nobody, a's name) and anon"
check "the php-fpm master starts" start_master

# ------------------------------------------------------------------------------ 1. pools
# a first: it must be a's user who creates a's file.
a_info=$(fcgi a op=info)
b_info=$(fcgi b op=info)
expect "pool a: its own named region at $A_PATH, created at its first request" \
  "$(jget info.region <<<"$a_info") $(jget info.region_path <<<"$a_info") $(jget info.region_opened <<<"$a_info") $(jget info.enabled <<<"$a_info")" \
  "$TAG-a $A_PATH created true"
expect "pool b: its own named region at $B_PATH" \
  "$(jget info.region_path <<<"$b_info") $(jget info.enabled <<<"$b_info")" "$B_PATH true"
expect "per-pool sizes: a reports values_memory_size 1M, b 2M (keys 64K each)" \
  "$(jget info.values_memory_size <<<"$a_info") $(jget info.values_memory_size <<<"$b_info") $(jget info.keys_memory_size <<<"$a_info") $(jget info.keys_memory_size <<<"$b_info")" \
  "1048576 2097152 65536 65536"
# Length = 4 KiB header + 256 KiB namespace table + key table rounded up to 4 KiB + ring
# (docs/configuration.md, "Memory actually used").
region_len() { echo $(((4096 + 262144 + $1 + 4095) / 4096 * 4096 + $2)); }
expect "the files: owner, mode 0600 and the length of each pool's sizes" \
  "$(stat -c '%U:%G %a %s' "$A_PATH") $(stat -c '%U:%G %a %s' "$B_PATH")" \
  "www-data:www-data 600 $(region_len 65536 1048576) nobody:nogroup 600 $(region_len 65536 2097152)"
# A second worker of pool a attaches to the file the first one created.
second_a_attaches() {
  local i line
  for i in 1 2 3 4 5 6; do
    line=$(fcgi a op=info)
    [ "$(jget info.region_opened <<<"$line")" = attached ] && return 0
  done
  echo "  never saw a worker that attached: $line"
  return 1
}
check "pool a's second worker attaches to the same file" second_a_attaches

A_VAL="a-$RANDOM$RANDOM"
B_VAL="b-$RANDOM$RANDOM"
fcgi a "op=set&key=k&value=$A_VAL" >/dev/null
fcgi b "op=set&key=k&value=$B_VAL" >/dev/null
expect "two users' pools on two names: the same key holds each pool's own value" \
  "$(jget value <<<"$(fcgi a op=get\&key=k)") $(jget value <<<"$(fcgi b op=get\&key=k)")" "$A_VAL $B_VAL"

b_sets_before=$(jget info.sets <<<"$(fcgi b op=info)")
c_get=$(fcgi c op=get\&key=k)
c_set=$(fcgi c "op=set&key=c-key&value=1")
expect "pool c (nobody, a's name): no cache — enabled=false, reads miss, writes fail" \
  "$(jget info.enabled <<<"$c_get") $(jget found <<<"$c_get") $(jget ok <<<"$c_set")" "false false false"
expect "pool c uses no other region: it names a's path, b's counters did not move" \
  "$(jget info.region_path <<<"$c_get") $(jget info.sets <<<"$(fcgi b op=info)")" "$A_PATH $b_sets_before"
c_error=$(jget info.region_error <<<"$c_get")
echo "  region_error: $c_error"
c_warned() {
  local line
  line=$(grep -a "$A_PATH" "$RUN/fpm.log" | grep -a 'Warning' | head -n 1)
  echo "  log: $line"
  [[ "$line" == *"user www-data"* && "$line" == *"cache is disabled"* ]] && [[ "$c_error" == *"$A_PATH"*"www-data"* ]]
}
check "pool c: a warning in the FPM log names a's file, its owner www-data, and says the cache is disabled" c_warned

# ------------------------------------------------------------------------------ the CLI
CLI_VAL="cli-$RANDOM$RANDOM"
cli_a=(shmcache.region="$TAG-a")
out=$(cli www-data "${cli_a[@]}" -- op=get key=k)
expect "CLI as www-data with a's name reads what pool a stored (attached, no enable_cli)" \
  "$(jget value <<<"$out") $(jget info.region_opened <<<"$out")" "$A_VAL attached"
cli www-data "${cli_a[@]}" -- op=set key=from-cli value="$CLI_VAL" >/dev/null
expect "pool a reads what the CLI stored" "$(jget value <<<"$(fcgi a op=get\&key=from-cli)")" "$CLI_VAL"
cli www-data "${cli_a[@]}" -- op=flush >/dev/null
expect "a flush in the CLI empties what pool a sees" \
  "$(jget found <<<"$(fcgi a op=get\&key=k)") $(jget found <<<"$(fcgi a op=get\&key=from-cli)")" "false false"
fcgi a "op=set&key=k2&value=$A_VAL" >/dev/null
before=$(jget value <<<"$(cli www-data "${cli_a[@]}" -- op=get key=k2)")
fcgi a op=flush >/dev/null
after=$(jget found <<<"$(cli www-data "${cli_a[@]}" -- op=get key=k2)")
expect "a flush in pool a empties what the CLI sees" "$before $after" "$A_VAL false"

fcgi a "op=set&key=k3&value=$A_VAL" >/dev/null
out=$(cli www-data shmcache.enable_cli=1 -- op=get key=k3)
expect "control: a CLI without the name (enable_cli, private region) does not see it" \
  "$(jget found <<<"$out") $(jget info.region_opened <<<"$out")" "false anonymous"

out=$(cli nobody "${cli_a[@]}" -- op=get key=k3)
nobody_denied() {
  echo "  $(grep -a -m1 'Warning' <<<"$out")"
  [ "$(jget found <<<"$out") $(jget info.enabled <<<"$out")" = "false false" ] &&
    grep -a 'Warning' <<<"$out" | grep -a "$A_PATH" | grep -a 'user www-data' | grep -q 'cache is disabled'
}
check "a CLI of another user (nobody) is denied: the warning names the file and its owner, reads miss" nobody_denied

R_PATH="/dev/shm/shmcache.$TAG-r"
out=$(cli root shmcache.region="$TAG-r" -- op=set key=r value=1)
root_refuses() {
  echo "  $(grep -a -m1 'Warning' <<<"$out" | cut -c1-220)…"
  [ ! -e "$R_PATH" ] && [ "$(jget ok <<<"$out")" = false ] && grep -a 'Warning' <<<"$out" | grep -a "$R_PATH" | grep -q 'shmcache.region_user'
}
check "root does not create a region in /dev/shm for nobody in particular (names shmcache.region_user)" root_refuses
out=$(cli root shmcache.region="$TAG-r" shmcache.region_user=www-data -- op=set key=r value=from-root)
root_for_user() {
  [ "$(jget ok <<<"$out")" = true ] || { echo "  $out"; return 1; }
  [ "$(stat -c '%U %a' "$R_PATH")" = "www-data 600" ] || { echo "  $(stat -c '%U %a' "$R_PATH")"; return 1; }
  [ "$(jget value <<<"$(cli www-data shmcache.region="$TAG-r" -- op=get key=r)")" = from-root ]
}
check "root with shmcache.region_user=www-data: the file is www-data's (0600) and www-data reads root's entry" root_for_user

# ------------------------------------------------------------------------------ reload, restart
RELOAD_VAL="r-$RANDOM$RANDOM"
fcgi a "op=set&key=reload&value=$RELOAD_VAL" >/dev/null
fcgi b "op=set&key=reload&value=$RELOAD_VAL" >/dev/null
fcgi anon "op=set&key=reload&value=$RELOAD_VAL" >/dev/null
anon_before=$(jget value <<<"$(fcgi anon op=get\&key=reload)")
ready_before=$(grep -c 'ready to handle connections' "$RUN/fpm.log")
kill -USR2 "$MASTER"
reloaded() {
  for _ in $(seq 100); do
    [ "$(grep -c 'ready to handle connections' "$RUN/fpm.log")" -gt "$ready_before" ] && wait_pools && return 0
    sleep 0.1
  done
  return 1
}
check "graceful reload (SIGUSR2): the master re-executes and serves again" reloaded
a_line=$(fcgi a op=get\&key=reload)
expect "after the reload: pools a and b still have their entries, a's worker attached to the file" \
  "$(jget value <<<"$a_line") $(jget value <<<"$(fcgi b op=get\&key=reload)") $(jget info.region_opened <<<"$a_line")" \
  "$RELOAD_VAL $RELOAD_VAL attached"
expect "control: the anonymous pool had the entry before the reload and has lost it" \
  "$anon_before $(jget found <<<"$(fcgi anon op=get\&key=reload)")" "$RELOAD_VAL false"

stop_master
gone=$(pgrep -f "$RUN/fpm.conf" | wc -l)
check "full restart: the master and its workers are stopped, then a new master starts" \
  bash -c "[ $gone -eq 0 ] && [ -e '$A_PATH' ]"
start_master >/dev/null || echo "  the master did not start again"
expect "after the restart: pools a and b still have their entries" \
  "$(jget value <<<"$(fcgi a op=get\&key=reload)") $(jget value <<<"$(fcgi b op=get\&key=reload)")" "$RELOAD_VAL $RELOAD_VAL"
stop_master
echo "  (FPM and CLI part: $((SECONDS - T0)) s)"

# ------------------------------------------------------------------------------ install.sh
# On a scratch copy of /etc/php/$PHP_VER with a second pool: a region per pool (named after it, owned
# by its user), FPM accepts the result, a re-run adds nothing, --uninstall restores the files.
install_sets_up_regions() {
  local conf="$RUN/etc-php" out
  [ -d "/etc/php/$PHP_VER/fpm/pool.d" ] || { echo "  no /etc/php/$PHP_VER/fpm/pool.d"; return 1; }
  cp -a "/etc/php/$PHP_VER" "$conf"
  printf '[site-b]\nuser = nobody\ngroup = nogroup\nlisten = %s\npm = static\npm.max_children = 1\n' "$RUN/site-b.sock" >"$conf/fpm/pool.d/site-b.conf"
  cp -a "$conf/fpm/pool.d" "$RUN/pool.d.before"
  out=$(PHP_CONF_DIR="$conf" EXT_DIR="$RUN/ext" bash "$ROOT/scripts/install.sh" 2>&1) || { echo "$out" | tail; return 1; }
  echo "$out" | sed -n '/^Named regions/,/^$/p' | sed 's/^/  /'
  grep -q '^php_admin_value\[shmcache.region\] = site-b ' "$conf/fpm/pool.d/site-b.conf" &&
    grep -q '^php_admin_value\[shmcache.region_user\] = nobody ' "$conf/fpm/pool.d/site-b.conf" || { echo "  site-b.conf lacks its region"; return 1; }
  # www (Debian's pool, when present) gets its own, and with two pools the CLI gets no default.
  if [ -e "$conf/fpm/pool.d/www.conf" ]; then
    grep -q '^php_admin_value\[shmcache.region\] = www ' "$conf/fpm/pool.d/www.conf" || { echo "  www.conf lacks its region"; return 1; }
    [ ! -e "$conf/cli/conf.d/30-shmcache-region.ini" ] || { echo "  a CLI region was chosen among two pools"; return 1; }
    echo "$out" | grep -q 'sudo -u nobody php -d shmcache.region=site-b' || { echo "  no CLI command printed for site-b"; return 1; }
  fi
  printf '[global]\nerror_log = %s/fpm-t.log\ninclude = %s/fpm/pool.d/*.conf\n' "$RUN" "$conf" >"$RUN/fpm-t.conf"
  "php-fpm$PHP_VER" -n -tt -y "$RUN/fpm-t.conf" 2>&1 | grep -q 'php_admin_value\[shmcache.region\] = site-b' || { echo "  php-fpm -tt does not show site-b's region"; return 1; }
  PHP_CONF_DIR="$conf" EXT_DIR="$RUN/ext" bash "$ROOT/scripts/install.sh" >/dev/null 2>&1
  [ "$(grep -c 'shmcache.region' "$conf/fpm/pool.d/site-b.conf")" = 2 ] || { echo "  a re-run added lines again"; return 1; }
  PHP_CONF_DIR="$conf" EXT_DIR="$RUN/ext" bash "$ROOT/scripts/install.sh" --uninstall >/dev/null 2>&1
  diff -r "$RUN/pool.d.before" "$conf/fpm/pool.d" >/dev/null || { echo "  --uninstall left the pool files changed"; return 1; }
}
check "install.sh (scratch /etc/php copy): a region per pool for its user, FPM accepts it, re-run adds nothing, --uninstall restores" install_sets_up_regions

# ------------------------------------------------------------------------------ 2. WordPress
WP_REGION="$TAG-wp"
WP_REGION_PATH="/dev/shm/shmcache.$WP_REGION"
wp_was_running=0
wp_stack_status >/dev/null 2>&1 && wp_was_running=1
wp_initial_dropin=$(wp_stack_dropin status)
wp_initial_pagecache=$(wp_stack_pagecache status)
CRON_LOG="$RUN/cron-runs.log"
MU_TEST="$WP_STACK_CONTENT/mu-plugins/shmcache-named-regions-test.php"
wp_named_cleanup() {
  rm -f "$MU_TEST"
  [ -n "${restore_php:-}" ] && wp_stack_mariadb_running && wp_eval "$restore_php" >/dev/null 2>&1
  WP_STACK_REGION=""
  wp_stack_dropin "$wp_initial_dropin"
  if [ "$wp_initial_pagecache" = on ]; then wp_stack_pagecache on >/dev/null 2>&1; else wp_stack_pagecache off; fi
  if [ "$wp_was_running" = 1 ]; then
    wp_stack_start >/dev/null 2>&1 && wp_stack_flush >/dev/null 2>&1
  else
    wp_stack_stop >/dev/null 2>&1
  fi
}
# wp_eval PHP: wp-load.php in the CLI with the stack's region (WP_STACK_REGION), as WP-CLI would.
wp_eval() { wp_stack_eval "$1" 2>&1; }
# wp_eval_private PHP: the same CLI without the name: its own private region (the old situation).
wp_eval_private() { WP_STACK_REGION="" wp_stack_eval "$1" 2>&1; }
# fpm_cache_get KEY: the object cache's value of KEY (group wp-stack) in an FPM worker, or MISS.
fpm_cache_get() {
  curl -sS --max-time 30 -D - -o /dev/null -H "X-WP-Stack-Cache-Get: $1" "$WP_STACK_URL/?named=$RANDOM$RANDOM" |
    tr -d '\r' | sed -n 's/^X-WP-Stack-Cache-Value: //Ip'
}
fpm_cache_set() {
  curl -sS --max-time 30 -o /dev/null -H "X-WP-Stack-Cache-Set: $1=$2" "$WP_STACK_URL/?named=$RANDOM$RANDOM"
}
# page URL: body in $RUN/page.body, headers in $RUN/page.headers.
page() { curl -sS --max-time 30 -D "$RUN/page.headers" -o "$RUN/page.body" "$1"; }
page_header() { tr -d '\r' <"$RUN/page.headers" | sed -n "s/^$1: //Ip" | tail -n 1; }

log "WordPress: the stack's pool and the CLI on region $WP_REGION"
WP_STACK_REGION=$WP_REGION
T1=$SECONDS
if ! wp_stack_start >"$RUN/wp-start.log" 2>&1; then
  tail -n 30 "$RUN/wp-start.log"
  check "the WordPress stack starts with WP_STACK_REGION" false
else
  wp_stack_pagecache off
  wp_stack_dropin on
  probe=$(wp_stack_probe)
  expect "the stack's FPM pool opened $WP_REGION_PATH (php_admin_value from WP_STACK_REGION)" \
    "$(php -n -r '$j = json_decode(stream_get_contents(STDIN), true); echo $j["shmcache_info"]["region_path"] ?? "";' <<<"$probe")" "$WP_REGION_PATH"
  expect "the CLI (wp-load.php) attaches to the same file and the drop-in uses it" \
    "$(wp_eval 'echo shmcache_info()["region_path"], " ", shmcache_info()["region_opened"], " ", (int) $GLOBALS["wp_object_cache"]->persistent;')" \
    "$WP_REGION_PATH attached 1"

  # ---- the object cache
  v1="fpm-$RANDOM$RANDOM"
  fpm_cache_set named-k "$v1"
  expect "the CLI reads what FPM stored (wp_cache_get)" "$(wp_eval 'echo wp_cache_get("named-k", "wp-stack");')" "$v1"
  v2="cli-$RANDOM$RANDOM"
  wp_eval "wp_cache_set('named-k2', '$v2', 'wp-stack');" >/dev/null
  expect "the next FPM request reads what the CLI stored (wp_cache_set)" "$(fpm_cache_get named-k2)" "$v2"
  wp_eval 'wp_cache_flush();' >/dev/null
  expect "wp_cache_flush() from the CLI empties what the next FPM request sees" \
    "$(fpm_cache_get named-k) $(fpm_cache_get named-k2)" "MISS MISS"
  v3="fpm-$RANDOM$RANDOM"
  fpm_cache_set named-k3 "$v3"
  wp_eval_private 'wp_cache_flush();' >/dev/null
  expect "control: wp_cache_flush() from a CLI without the name leaves FPM's entry" "$(fpm_cache_get named-k3)" "$v3"

  # ---- options and posts
  old_name=$(wp_eval 'echo get_option("blogname");')
  post_id=$(wp_eval 'echo get_posts(["numberposts" => 1, "orderby" => "ID", "order" => "ASC"])[0]->ID;')
  old_title=$(wp_eval "echo get_post($post_id)->post_title;")
  post_url=$(wp_eval "echo get_permalink($post_id);")
  restore_php="update_option('blogname', $(php -n -r 'var_export($argv[1]);' "$old_name")); wp_update_post(['ID' => $post_id, 'post_title' => $(php -n -r 'var_export($argv[1]);' "$old_title")]);"
  page "$WP_STACK_URL/" && page "$post_url" # FPM caches alloptions and the post
  name="Named $RANDOM$RANDOM"
  wp_eval "update_option('blogname', '$name');" >/dev/null
  page "$WP_STACK_URL/?named=$RANDOM"
  expect "an option updated from the CLI is fresh in the next FPM request (blogname in <title>)" \
    "$(grep -c "<title>[^<]*$name" "$RUN/page.body")" 1
  title="Named post $RANDOM$RANDOM"
  wp_eval "wp_update_post(['ID' => $post_id, 'post_title' => '$title']);" >/dev/null
  page "$post_url"
  expect "a post updated from the CLI is fresh in the next FPM request" "$(grep -c "$title" "$RUN/page.body" | tr -d ' ' | sed 's/^[1-9][0-9]*$/found/')" found

  # ---- the page cache: the CLI's purge reaches FPM's memory directly (the HTTP relay is off)
  wp_stack_pagecache on
  page "$post_url" && page "$post_url"
  hit_before=$(page_header X-Cache)
  title2="Named page $RANDOM$RANDOM"
  wp_eval "add_filter('shmcache_page_cache_relay', '__return_false'); wp_update_post(['ID' => $post_id, 'post_title' => '$title2']);" >/dev/null
  page "$post_url"
  expect "page cache: a HIT before, and after a post edit from the CLI (no relay) the page has the new title" \
    "$hit_before $(page_header X-Cache) $(grep -c "$title2" "$RUN/page.body" | sed 's/^[1-9][0-9]*$/found/')" "HIT MISS found"
  page "$post_url"
  title3="Named control $RANDOM$RANDOM"
  wp_eval_private "add_filter('shmcache_page_cache_relay', '__return_false'); wp_update_post(['ID' => $post_id, 'post_title' => '$title3']);" >/dev/null
  page "$post_url"
  expect "control: the same edit from a CLI without the name leaves the stale page (HIT, old title)" \
    "$(page_header X-Cache) $(grep -c "$title3" "$RUN/page.body")" "HIT 0"
  wp_stack_pagecache off
  wp_stack_flush >/dev/null

  # ---- cron: an event run from the CLI, one scheduled there and run by wp-cron.php over HTTP
  cat >"$MU_TEST" <<EOF
<?php
// scripts/test-named-regions.sh: records each run of its cron events (removed by the test).
add_action('shmcache_named_test_event', static function (\$tag) {
    file_put_contents('$CRON_LOG', \$tag . ' ' . PHP_SAPI . "\n", FILE_APPEND | LOCK_EX);
});
EOF
  # cron_round EVAL-FUNCTION TAG: schedules TAG-a (due) from the CLI, lets FPM cache the cron
  # option, runs the due event from the CLI as WP-CLI's `wp cron event run --due-now` does and
  # schedules TAG-b there, then requests wp-cron.php; prints the runs of each event.
  cron_round() {
    local ev=$1 tag=$2
    "$ev" "wp_schedule_single_event(time() - 60, 'shmcache_named_test_event', ['$tag-a']);" >/dev/null
    page "$WP_STACK_URL/?named=$RANDOM"
    "$ev" "foreach (_get_cron_array() as \$ts => \$hooks) {
        if (\$ts > time()) { continue; }
        foreach (\$hooks['shmcache_named_test_event'] ?? [] as \$event) {
          wp_unschedule_event(\$ts, 'shmcache_named_test_event', \$event['args']);
          do_action_ref_array('shmcache_named_test_event', \$event['args']);
        }
      }
      wp_schedule_single_event(time() - 30, 'shmcache_named_test_event', ['$tag-b']);" >/dev/null
    curl -sS --max-time 60 -o /dev/null "$WP_STACK_URL/wp-cron.php"
    # wp-cron.php answers before it runs the events (fastcgi_finish_request): wait for them.
    for _ in $(seq 100); do
      wp_stack_mysql -N -e "SELECT option_value FROM wp_options WHERE option_name = 'cron'" | grep -q "$tag-" || break
      sleep 0.1
    done
    sleep 0.3
    printf '%s-a:%s %s-b:%s left:%s\n' "$tag" "$(grep "^$tag-a " "$CRON_LOG" | cut -d' ' -f2 | paste -sd+)" \
      "$tag" "$(grep "^$tag-b " "$CRON_LOG" | cut -d' ' -f2 | paste -sd+)" \
      "$(wp_stack_mysql -N -e "SELECT option_value FROM wp_options WHERE option_name = 'cron'" | grep -o "$tag-[ab]" | paste -sd+)"
  }
  touch "$CRON_LOG"
  t="c$RANDOM"
  expect "cron: an event run from the CLI runs once there; one scheduled there runs once in wp-cron.php over HTTP; none left" \
    "$(cron_round wp_eval "$t")" "$t-a:cli $t-b:fpm-fcgi left:"
  wp_stack_flush >/dev/null
  t="x$RANDOM"
  control=$(cron_round wp_eval_private "$t")
  echo "  control without the name: $control"
  check "control: cron from a CLI without the name runs an event twice or loses one" \
    test "$control" != "$t-a:cli $t-b:fpm-fcgi left:"
  wp_stack_flush >/dev/null
  rm -f "$MU_TEST"

  # ---- the plugin's Tools → shmcache and Site Health, rendered with the CLI's named region
  wp_eval "require_once '$ROOT/wordpress/shmcache-plugin/shmcache.php';
    wp_set_current_user(get_users(['role' => 'administrator', 'number' => 1, 'fields' => 'ID'])[0]);
    ob_start(); shmcache_plugin_render_admin_page(); file_put_contents('$RUN/tools.html', ob_get_clean());
    \$r = shmcache_plugin_site_health_test(); file_put_contents('$RUN/health.html', \$r['label'] . \"\\n\" . \$r['description']);" >/dev/null
  plugin_shows_region() {
    grep -q 'data-region-kind="named"' "$RUN/tools.html" &&
      grep -q "data-region=\"path\" data-value=\"$WP_REGION_PATH\"" "$RUN/tools.html" &&
      grep -q 'data-region="opened" data-value="attached"' "$RUN/tools.html" || { echo "  Tools → shmcache lacks the named region"; return 1; }
    ! grep -q 'does not share this cache\|private cache' "$RUN/tools.html" "$RUN/health.html" || { echo "  still warns about an anonymous region"; return 1; }
    grep -qF "Named region &quot;$WP_REGION&quot;: The cache is the file $WP_REGION_PATH" "$RUN/health.html" ||
      { echo "  Site Health: $(cut -c1-300 "$RUN/health.html")"; return 1; }
  }
  check "plugin: Tools → shmcache and Site Health show the named region (name, path, attached), no warning" plugin_shows_region
  echo "  (WordPress part: $((SECONDS - T1)) s, stack start included)"
fi

echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
