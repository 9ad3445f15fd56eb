#!/usr/bin/env bash
# The shmcache WordPress plugin (wordpress/shmcache-plugin) end to end on the wp-stack harness
# (scripts/wp-stack.sh: nginx + PHP-FPM with shmcache + MariaDB + WordPress 6.1), driven like a
# browser with curl and a logged-in admin's cookies:
#   - activation from the Plugins screen next to another plugin's object-cache.php leaves that
#     file alone and shows a notice; deactivation leaves it too;
#   - activation without a drop-in copies shmcache's (a file, not a symlink) and retires what
#     shared memory held from before, so the next pages see the activation;
#   - Tools → shmcache answers 200 with the verdict, the counters, the drop-in's state and the
#     groups of this page load; a subscriber is refused;
#   - the "Flush this site" form is refused without a nonce and when logged out, and with the
#     nonce from the page flushes (a value set through an FPM worker is gone) and says so;
#   - a drop-in deleted behind the plugin's back: dashboard notice, verdict, Install button;
#   - Site Health runs the plugin's test; no PHP warning, notice or deprecation in the logs
#     (two kinds of WordPress core's own lines are counted apart, see CORE_NOISE);
#   - PHP-FPM restarted with a 128-slot key table: the verdict is critical and names
#     shmcache.keys_memory_size; then PHP-FPM is restarted as before;
#   - PHPUnit: wordpress/tests/PluginTest.php (counted test by test);
#   - deactivation removes the drop-in; scripts/build-plugin.sh ships the drop-in in the zip;
#   - every SHMCACHE_* constant of the drop-ins and the plugin is named in docs/object-cache.md or
#     docs/page-cache.md and in the plugin's readme.txt.
# PLUGIN_SCREENSHOT=/path/x.png also saves headless-chromium pictures of the admin screen
# (x-good.png, x-critical.png) when chromium is installed.
# Leaves the harness as it found it: the drop-in's state, the plugin's link in wp-content/plugins
# and whether it is active are restored, and the stack is stopped unless it was already running.
# Prints PASS/FAIL per check and ends with "N passed, N failed".
source "$(dirname "$0")/wp-stack.sh"


PLUGIN=shmcache/shmcache.php
PLUGIN_LINK="$WP_STACK_CONTENT/plugins/shmcache"
DROPIN="$WP_STACK_CONTENT/object-cache.php"
SUB_USER=shmcache-e2e-subscriber
WORK=$(mktemp -d)
was_running=0
wp_stack_status >/dev/null 2>&1 && was_running=1
initial_dropin=$(wp_stack_dropin status)

# CLI changes (plugin state, users) bypass FPM's cache: this keeps FPM in step afterwards.
deactivate_in_cli() {
  wp_stack_eval "require_once ABSPATH . 'wp-admin/includes/plugin.php';
    if (is_plugin_active('$PLUGIN')) { deactivate_plugins('$PLUGIN', true); }
    require_once ABSPATH . 'wp-admin/includes/user.php';
    \$u = get_user_by('login', '$SUB_USER'); if (\$u) { wp_delete_user(\$u->ID); }" >/dev/null
}

initial_link=$(readlink "$PLUGIN_LINK" 2>/dev/null || true)
initial_active=0
cleanup() {
  set +e
  if wp_stack_mariadb_running; then deactivate_in_cli; fi
  rm -f "$PLUGIN_LINK"
  if [ "$initial_dropin" = on ]; then wp_stack_dropin on; else wp_stack_dropin off; fi
  if [ -n "$initial_link" ]; then
    ln -sfn "$initial_link" "$PLUGIN_LINK"
    # Active again as before, silently: the hooks would touch the drop-in just restored.
    [ "$initial_active" = 0 ] || ! wp_stack_mariadb_running ||
      wp_stack_eval "require_once ABSPATH . 'wp-admin/includes/plugin.php'; activate_plugin('$PLUGIN', '', false, true);" >/dev/null
  fi
  if wp_stack_fpm_running; then wp_stack_flush >/dev/null 2>&1; fi
  [ "$was_running" = 1 ] || wp_stack_stop >/dev/null 2>&1
  rm -rf "$WORK"
}
trap cleanup EXIT

WP_STACK_SHMCACHE=1 wp_stack_start
T0=$SECONDS
initial_active=$(wp_stack_eval "require_once ABSPATH . 'wp-admin/includes/plugin.php'; echo (int) is_plugin_active('$PLUGIN');")

# A clean slate: plugin inactive, no drop-in, a subscriber to be refused, FPM's cache emptied.
deactivate_in_cli
wp_stack_dropin off
ln -sfn "$ROOT/wordpress/shmcache-plugin" "$PLUGIN_LINK"
wp_stack_eval "wp_insert_user(['user_login' => '$SUB_USER', 'user_pass' => 'sub-pass', 'user_email' => 'sub@example.invalid', 'role' => 'subscriber']);" >/dev/null
wp_stack_flush >/dev/null

fpm_log_start=$(stat -c %s "$WP_STACK_FPM_LOG" 2>/dev/null || echo 0)
debug_log_start=$(stat -c %s "$WP_STACK_DEBUG_LOG" 2>/dev/null || echo 0)

# req NAME METHOD PATH [CURL-ARGS...]: body in $WORK/NAME.body, headers in $WORK/NAME.headers;
# prints the HTTP status. Uses the admin's cookie jar unless CURL-ARGS bring their own.
JAR="$WORK/admin.cookies"
req() {
  local name=$1 method=$2 path=$3
  shift 3
  # (GET is curl's default and --data makes a POST; -X for those only draws a warning)
  case "$method" in GET | POST) ;; *) set -- -X "$method" "$@" ;; esac
  curl -sS --max-time 60 -D "$WORK/$name.headers" -o "$WORK/$name.body" \
    -w '%{http_code}' "$@" "$WP_STACK_URL$path" || echo 000
}
header() { tr -d '\r' <"$WORK/$1.headers" | sed -n "s/^$2: //Ip" | tail -n 1; }

login() { # login USER PASSWORD JAR
  # The test cookie a GET of wp-login.php would set is sent directly: that GET makes WordPress
  # 6.1 log two PHP 8.2 deprecations of its own (wp_signon() with no credentials).
  local jar=$3 code
  printf '%s\tFALSE\t/\tFALSE\t0\twordpress_test_cookie\tWP%%20Cookie%%20check\n' "$WP_STACK_IP" >"$jar"
  code=$(curl -sS --max-time 60 -c "$jar" -b "$jar" -o /dev/null -w '%{http_code}' \
    --data-urlencode "log=$1" --data-urlencode "pwd=$2" --data-urlencode 'wp-submit=Log In' \
    --data-urlencode "redirect_to=$WP_STACK_URL/wp-admin/" --data-urlencode testcookie=1 \
    "$WP_STACK_URL/wp-login.php")
  [ "$code" = 302 ] && grep -q 'wordpress_logged_in_' "$jar"
}
check "log in as admin through wp-login.php" login admin admin "$JAR"

# plugin_link ACTION: the activate/deactivate link of the plugin on the Plugins screen.
plugin_link() {
  [ "$(req plugins GET /wp-admin/plugins.php -b "$JAR")" = 200 ] || return 1
  grep -o "href=\"plugins.php?action=$1&amp;plugin=shmcache%2Fshmcache.php[^\"]*\"" "$WORK/plugins.body" |
    head -n 1 | sed -e 's/^href="//' -e 's/"$//' -e 's/&amp;/\&/g'
}
# plugin_action ACTION: follows that link as the admin; true on WordPress's redirect back.
plugin_action() {
  local link code
  link=$(plugin_link "$1") && [ -n "$link" ] || { echo "  no $1 link for $PLUGIN on plugins.php"; return 1; }
  code=$(req "$1" GET "/wp-admin/$link" -b "$JAR")
  [ "$code" = 302 ] || { echo "  $1: HTTP $code"; return 1; }
  case "$(header "$1" Location)" in
    *plugins.php*error=true*) echo "  $1 failed: $(header "$1" Location)"; return 1 ;;
  esac
}

# ------------------------------------------------------------------ another plugin's drop-in
FOREIGN=$'<?php\n/**\n * Plugin Name: Foreign Test Cache\n * Not shmcache: the plugin must neither overwrite nor remove it.\n */\n'
printf '%s' "$FOREIGN" >"$DROPIN"
foreign_kept() { [ ! -L "$DROPIN" ] && [ "$(cat "$DROPIN")" = "$(printf '%s' "$FOREIGN")" ]; }
activate_next_to_foreign() {
  plugin_action activate || return 1
  foreign_kept || { echo "  the foreign object-cache.php was changed"; return 1; }
  [ "$(req plugins GET /wp-admin/plugins.php -b "$JAR")" = 200 ] &&
    grep -q 'shmcache-dropin-notice' "$WORK/plugins.body" &&
    grep -q 'did not install its object-cache drop-in' "$WORK/plugins.body" &&
    grep -q 'Foreign Test Cache' "$WORK/plugins.body" || { echo "  no notice on plugins.php"; return 1; }
}
check "activation next to another plugin's object-cache.php leaves it alone and shows a notice" activate_next_to_foreign
deactivate_keeps_foreign() { plugin_action deactivate && foreign_kept; }
check "deactivation leaves another plugin's object-cache.php alone" deactivate_keeps_foreign
rm -f "$DROPIN"

# ------------------------------------------------------------------ activation installs
# Shared memory first gets this site's pages from before the activation (drop-in on, plugin
# inactive): stale once the drop-in is gone and WordPress writes to the database alone.
wp_stack_dropin on
_wps_http / >/dev/null
wp_stack_dropin off
activation_installs() {
  plugin_action activate || return 1
  [ -f "$DROPIN" ] && [ ! -L "$DROPIN" ] || { echo "  $DROPIN is not a regular file"; ls -l "$DROPIN" 2>&1; return 1; }
  cmp -s "$DROPIN" "$ROOT/wordpress/object-cache.php" || { echo "  $DROPIN differs from wordpress/object-cache.php"; return 1; }
  [ "$(req plugins GET /wp-admin/plugins.php -b "$JAR")" = 200 ] || return 1
  ! grep -q 'shmcache-dropin-notice' "$WORK/plugins.body" || { echo "  a drop-in notice is still shown"; return 1; }
}
check "activation copies the drop-in into wp-content (a file, not a symlink)" activation_installs

# ------------------------------------------------------------------ Tools → shmcache
page_ok() {
  local code
  code=$(req page GET '/wp-admin/tools.php?page=shmcache' -b "$JAR")
  [ "$code" = 200 ] || { echo "  HTTP $code"; head -c 600 "$WORK/page.body"; echo; return 1; }
  local verdict
  verdict=$(grep -o 'data-shmcache-verdict="[a-z]*"' "$WORK/page.body" | head -n 1 | cut -d'"' -f2)
  echo "  verdict: $verdict — $(grep -o '<span class="shmcache-verdict-label">[^<]*' "$WORK/page.body" | sed 's/.*>//')"
  case "$verdict" in good | recommended) ;; *) echo "  verdict '$verdict'"; return 1 ;; esac
  local c
  for c in hit_rate hits misses slot_usage ring_usage kicks recycles validation_failures expired flushes namespace_flushes uptime; do
    grep -q "data-counter=\"$c\" data-value=\"[0-9.]*\"" "$WORK/page.body" || { echo "  counter $c missing"; return 1; }
  done
  grep -q 'data-dropin="persistent" data-value="1"' "$WORK/page.body" || { echo "  the drop-in is not persistent here"; return 1; }
  grep -q 'Groups used by this page load' "$WORK/page.body" && grep -q 'data-group="options"' "$WORK/page.body" ||
    { echo "  no per-request groups"; return 1; }
  grep -q 'name="shmcache_flush_nonce"' "$WORK/page.body" || { echo "  no flush form"; return 1; }
}
check "Tools → shmcache: HTTP 200 with verdict, counters, a persistent drop-in and this page load's groups" page_ok
echo "  counters: $(grep -o 'data-counter="[a-z_]*" data-value="[0-9.]*"' "$WORK/page.body" | sed 's/data-counter="\([a-z_]*\)" data-value="\([0-9.]*\)"/\1=\2/' | tr '\n' ' ')"
# screenshot NAME SUFFIX: with PLUGIN_SCREENSHOT=FILE.png set, a headless chromium picture of
# the page fetched as NAME, in FILE-SUFFIX.png (the saved page with a <base> pointing at the
# site, so wp-admin's CSS loads without a login cookie).
screenshot() {
  [ -n "${PLUGIN_SCREENSHOT:-}" ] && command -v chromium >/dev/null || return 0
  local out="${PLUGIN_SCREENSHOT%.png}-$2.png"
  sed "s#<head>#<head><base href=\"$WP_STACK_URL/wp-admin/\">#" "$WORK/$1.body" >"$WORK/$1.html"
  if timeout 60 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1280,2400 \
    --screenshot="$out" "file://$WORK/$1.html" >/dev/null 2>&1; then
    echo "  screenshot: $out"
  else
    echo "  (no screenshot: chromium failed)"
  fi
}
screenshot page good
# The stack's default is the FPM master's anonymous region (WP_STACK_REGION names one instead).
region_shown() {
  if [ -z "$WP_STACK_REGION" ]; then
    grep -q 'data-region-kind="anonymous"' "$WORK/page.body" &&
      grep -q 'The command line does not share this cache' "$WORK/page.body" &&
      grep -q 'php_admin_value\[shmcache.region\]' "$WORK/page.body" || { echo "  no anonymous-region warning"; return 1; }
  else
    grep -q 'data-region-kind="named"' "$WORK/page.body" &&
      grep -q "data-region=\"name\" data-value=\"$WP_STACK_REGION\"" "$WORK/page.body" || { echo "  the region $WP_STACK_REGION is not shown"; return 1; }
  fi
}
check "Tools → shmcache shows the region; an anonymous one with a warning that the CLI cannot share it" region_shown
subscriber_refused() {
  local jar="$WORK/sub.cookies" code
  login "$SUB_USER" sub-pass "$jar" || { echo "  the subscriber cannot log in"; return 1; }
  code=$(req subpage GET '/wp-admin/tools.php?page=shmcache' -b "$jar")
  [ "$code" = 403 ] && ! grep -q 'data-counter' "$WORK/subpage.body" || { echo "  HTTP $code"; return 1; }
}
check "a subscriber is refused the admin screen (403, no counters)" subscriber_refused

# ------------------------------------------------------------------ Flush this site
# cache_value KEY: the value of KEY in group wp-stack as an FPM worker sees it (the harness's
# mu-plugin answers X-WP-Stack-Cache-Get), or MISS. Each request has a URL of its own, so that
# a page cache (advanced-cache.php) in front of WordPress never answers it.
cache_value() {
  curl -sS --max-time 60 -D - -o /dev/null -H "X-WP-Stack-Cache-Get: $1" "$WP_STACK_URL/?plugin-e2e=$RANDOM$RANDOM" |
    tr -d '\r' | sed -n 's/^X-WP-Stack-Cache-Value: //Ip'
}
value="v$RANDOM$RANDOM"
curl -sS --max-time 60 -o /dev/null -H "X-WP-Stack-Cache-Set: plugin-flush=$value" "$WP_STACK_URL/?plugin-e2e=$RANDOM$RANDOM"
nonce=$(grep -o 'name="shmcache_flush_nonce" value="[0-9a-f]*"' "$WORK/page.body" | head -n 1 | sed 's/.*value="//; s/"$//' || true)
flush_post() { # flush_post NAME [CURL-ARGS...]: POSTs the flush form; prints the status
  local name=$1
  shift
  req "$name" POST /wp-admin/admin-post.php --data action=shmcache_flush \
    --data-urlencode "_wp_http_referer=/wp-admin/tools.php?page=shmcache" "$@"
}
refused_without_nonce() {
  [ "$(cache_value plugin-flush)" = "$value" ] || { echo "  the value was not stored through FPM"; return 1; }
  local code
  code=$(flush_post nononce -b "$JAR")
  [ "$code" = 403 ] || { echo "  without a nonce: HTTP $code"; return 1; }
  code=$(flush_post badnonce -b "$JAR" --data shmcache_flush_nonce=0123456789)
  [ "$code" = 403 ] || { echo "  with a wrong nonce: HTTP $code"; return 1; }
  code=$(flush_post loggedout --data "shmcache_flush_nonce=$nonce")
  [ "$code" = 400 ] || { echo "  logged out: HTTP $code"; return 1; }
  [ "$(cache_value plugin-flush)" = "$value" ] || { echo "  the value is gone"; return 1; }
}
check "the flush form is refused without a nonce, with a wrong one and when logged out" refused_without_nonce
flushes_with_nonce() {
  [ -n "$nonce" ] || { echo "  no nonce on the page"; return 1; }
  local code location
  code=$(flush_post flush -b "$JAR" --data "shmcache_flush_nonce=$nonce")
  location=$(header flush Location)
  [ "$code" = 302 ] && [[ "$location" == *"page=shmcache"*"shmcache_flushed=shared"* ]] ||
    { echo "  HTTP $code, Location: $location"; return 1; }
  [ "$(cache_value plugin-flush)" = MISS ] || { echo "  the value survived the flush"; return 1; }
  [ "$(req flushed GET "${location#"$WP_STACK_URL"}" -b "$JAR")" = 200 ] &&
    grep -q 'notice-success inline shmcache-result' "$WORK/flushed.body" || { echo "  no success notice"; return 1; }
}
check "with the page's nonce the flush empties this site's cache and says so" flushes_with_nonce

# ------------------------------------------------------------------ Install button
# The drop-in deleted behind the plugin's back: the dashboard says so, the screen's verdict
# says so and offers the button, and the button (with its nonce) puts the drop-in back.
install_button() {
  rm -f "$DROPIN"
  [ "$(req dash GET /wp-admin/ -b "$JAR")" = 200 ] && grep -q 'shmcache-dropin-notice' "$WORK/dash.body" ||
    { echo "  no notice on the dashboard"; return 1; }
  [ "$(req missing GET '/wp-admin/tools.php?page=shmcache' -b "$JAR")" = 200 ] &&
    grep -q '<span class="shmcache-verdict-label">The object-cache drop-in is not installed</span>' "$WORK/missing.body" ||
    { echo "  no verdict about the missing drop-in"; return 1; }
  local inonce code location
  inonce=$(grep -o 'name="shmcache_install_nonce" value="[0-9a-f]*"' "$WORK/missing.body" | head -n 1 | sed 's/.*value="//; s/"$//' || true)
  [ -n "$inonce" ] || { echo "  no install button"; return 1; }
  code=$(req install POST /wp-admin/admin-post.php -b "$JAR" --data action=shmcache_install_dropin)
  [ "$code" = 403 ] && [ ! -e "$DROPIN" ] || { echo "  without a nonce: HTTP $code"; return 1; }
  code=$(req install POST /wp-admin/admin-post.php -b "$JAR" --data action=shmcache_install_dropin \
    --data "shmcache_install_nonce=$inonce" --data-urlencode "_wp_http_referer=/wp-admin/tools.php?page=shmcache")
  location=$(header install Location)
  [ "$code" = 302 ] && [[ "$location" == *"shmcache_dropin=installed"* ]] || { echo "  HTTP $code, Location: $location"; return 1; }
  [ -f "$DROPIN" ] && [ ! -L "$DROPIN" ] && cmp -s "$DROPIN" "$ROOT/wordpress/object-cache.php" || { echo "  not installed"; return 1; }
  [ "$(req installed GET "${location#"$WP_STACK_URL"}" -b "$JAR")" = 200 ] &&
    grep -q 'notice-success inline shmcache-result' "$WORK/installed.body" &&
    grep -q 'data-dropin="persistent" data-value="1"' "$WORK/installed.body" || { echo "  the screen does not show it installed"; return 1; }
}
check "a deleted drop-in: dashboard notice, verdict, and the Install button (nonce-checked) restores it" install_button

# ------------------------------------------------------------------ Site Health
site_health_page() {
  local code
  code=$(req health GET /wp-admin/site-health.php -b "$JAR")
  [ "$code" = 200 ] && grep -q '"test":"shmcache"' "$WORK/health.body" ||
    { echo "  HTTP $code, no shmcache result in the page's test results"; return 1; }
  echo "  $(grep -o '{"label":"[^"]*","status":"[a-z]*","badge":{"label":"[^"]*","color":"[a-z]*"},"description":"[^}]*"test":"shmcache"}' "$WORK/health.body" | cut -c1-160)…"
}
check "Site Health runs the shmcache test" site_health_page
site_health_cli() {
  local out
  out=$(wp_stack_eval '$r = shmcache_plugin_site_health_test();
    echo $r["status"], "|", $r["badge"]["color"], "|", $r["test"], "|", (int) ($r["label"] !== "" && $r["description"] !== "");') || return 1
  echo "  CLI: $out"
  [[ "$out" =~ ^(good\|blue|recommended\|orange|critical\|red)\|shmcache\|1$ ]]
}
check "the Site Health test returns status, badge, label and description" site_health_cli

# Two kinds of lines come from WordPress itself on every wp-admin visit here, with or without
# this plugin, and are counted but not failed:
#  - the harness has no internet, so wp-admin's update checks (core, plugins, themes) fail and
#    core reports each with an E_USER_WARNING naming WordPress.org;
#  - Debian's WordPress 6.1 bundles a Requests library whose ArrayAccess methods lack return
#    types: PHP 8.2 logs "Return type of Requests_..." deprecations when an HTTP request (Site
#    Health's loopback) loads those classes.
CORE_NOISE='could not establish a secure connection to WordPress\.org|PHP Deprecated: +Return type of Requests_[A-Za-z_]+::'
clean_logs() {
  local fpm_new debug_new noise
  fpm_new=$(tail -c +"$((fpm_log_start + 1))" "$WP_STACK_FPM_LOG" 2>/dev/null | grep -E 'PHP (Warning|Notice|Deprecated|Fatal|Parse)' || true)
  debug_new=$(tail -c +"$((debug_log_start + 1))" "$WP_STACK_DEBUG_LOG" 2>/dev/null | grep -E 'PHP ' || true)
  noise=$(printf '%s\n%s\n' "$fpm_new" "$debug_new" | grep -cE "$CORE_NOISE" || true)
  fpm_new=$(printf '%s' "$fpm_new" | grep -vE "$CORE_NOISE" || true)
  debug_new=$(printf '%s' "$debug_new" | grep -vE "$CORE_NOISE" || true)
  [ "$noise" = 0 ] || echo "  (ignored $noise lines of WordPress core's own: offline update checks, Requests deprecations)"
  [ -z "$fpm_new$debug_new" ] || { echo "$fpm_new$debug_new" | head -n 20; return 1; }
}
check "no PHP errors, warnings, notices or deprecations in the FPM and debug logs" clean_logs

# ------------------------------------------------------------------ a key table that is too small
# PHP-FPM restarted with 128 key slots (shmcache.keys_memory_size=1K): after a few pages the
# screen must say the key table is full and name the setting to raise; then back to normal.
small_key_table() {
  WP_STACK_FPM_ARGS="-d shmcache.keys_memory_size=1K" wp_stack_start >/dev/null 2>&1 || { echo "  FPM did not restart"; return 1; }
  local p
  for p in / /page/2/ /?s=cache /feed/ / /page/2/; do _wps_http "$p" >/dev/null || return 1; done
  local code
  code=$(req small GET '/wp-admin/tools.php?page=shmcache' -b "$JAR")
  [ "$code" = 200 ] || { echo "  HTTP $code"; return 1; }
  echo "  $(grep -o 'data-counter="\(kicks\|slot_usage\)" data-value="[0-9.]*"' "$WORK/small.body" | tr '\n' ' ')"
  grep -q 'data-shmcache-verdict="critical"' "$WORK/small.body" &&
    grep -q '<span class="shmcache-verdict-label">The key table is full</span>' "$WORK/small.body" &&
    grep -q 'shmcache.keys_memory_size=2K' "$WORK/small.body" ||
    { echo "  no critical key-table verdict:"; grep -o '<span class="shmcache-verdict-label">[^<]*' "$WORK/small.body"; return 1; }
}
check "with 128 key slots the screen says the key table is full: raise shmcache.keys_memory_size" small_key_table
screenshot small critical
wp_stack_start >/dev/null 2>&1 # FPM as before (the default sizes)

# ------------------------------------------------------------------ PHPUnit
log "PHPUnit: wordpress/tests/PluginTest.php"
phpunit_counted "PHPUnit PluginTest" "$WORK/phpunit.txt" -c "$ROOT/wordpress/tests/phpunit-plugin.xml"

# ------------------------------------------------------------------ deactivation, build
deactivation_removes() {
  plugin_action deactivate || return 1
  [ ! -e "$DROPIN" ] && [ ! -L "$DROPIN" ] || { echo "  $DROPIN is still there"; return 1; }
  [ "$(req home GET /)" = 200 ] || { echo "  the site does not answer without the drop-in"; return 1; }
}
check "deactivation removes shmcache's drop-in and the site still answers" deactivation_removes
check "no PHP errors in the logs after deactivation" clean_logs

build_ships_dropin() {
  local zip
  zip=$(PLUGIN_OUT="$WORK/build" bash "$ROOT/scripts/build-plugin.sh" 2>/dev/null | tail -n 1) || return 1
  [ -f "$zip" ] || { echo "  no zip"; return 1; }
  mkdir -p "$WORK/unzip"
  (cd "$WORK/unzip" && unzip -q "$zip") || return 1
  cmp -s "$WORK/unzip/shmcache/object-cache.php" "$ROOT/wordpress/object-cache.php" &&
    cmp -s "$WORK/unzip/shmcache/shmcache.php" "$ROOT/wordpress/shmcache-plugin/shmcache.php" ||
    { echo "  the zip lacks the plugin or its drop-in"; unzip -l "$zip"; return 1; }
}
check "scripts/build-plugin.sh ships the drop-in inside the plugin zip" build_ships_dropin

# Every constant the drop-ins and the plugin read or define (SHMCACHE_*, WP_CACHE_KEY_SALT) is
# named in the docs (object-cache.md or page-cache.md) and in the plugin's readme.
constants_documented() {
  local c missing=0
  for c in $(grep -ohE '\b(SHMCACHE_[A-Z_]+|WP_CACHE_KEY_SALT)\b' "$ROOT/wordpress/object-cache.php" "$ROOT/wordpress/advanced-cache.php" \
    "$ROOT"/wordpress/shmcache-plugin/*.php "$ROOT"/wordpress/shmcache-plugin/includes/*.php | sort -u); do
    grep -qw -- "$c" "$ROOT/docs/object-cache.md" "$ROOT/docs/page-cache.md" || { echo "  $c: not in docs/object-cache.md or docs/page-cache.md"; missing=1; }
    grep -qw -- "$c" "$ROOT/wordpress/shmcache-plugin/readme.txt" || { echo "  $c: not in the plugin's readme.txt"; missing=1; }
  done
  return $missing
}
check "every SHMCACHE_* constant of the drop-ins and the plugin is documented (docs and readme.txt)" constants_documented

echo "  ($((SECONDS - T0)) s after the stack was up)"
echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
