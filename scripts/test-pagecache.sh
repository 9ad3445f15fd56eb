#!/usr/bin/env bash
# The page cache (wordpress/advanced-cache.php + the purge hooks in
# wordpress/shmcache-plugin/includes/page-cache.php, loaded as a must-use plugin by
# `wp-stack.sh pagecache on`) on the real stack: MariaDB + PHP-FPM (4 workers, shmcache) + nginx,
# with the object-cache drop-in on.
#   1. PHPUnit: the rules as pure functions, the lease logic, the hooks (wordpress/tests/PageCacheTest.php).
#   2. End to end over HTTP: HIT after MISS with the same bytes, tracking parameters share the
#      entry, logged-in users bypass (and see the admin bar), edits through WordPress's functions
#      in the CLI (relayed to FPM) and through the REST API show at once, an approved comment
#      shows, a 404 is never cached, 304s for If-None-Match / If-Modified-Since, bypasses (POST,
#      search, login, REST), option changes purge, page cache off and FPM without the extension
#      serve the same pages without X-Cache, and the PHP logs stay clean.
#   3. Personal pages, with a test must-use plugin (wordpress/stack/pagecache-test-site.php) that
#      renders from the cookies of WooCommerce, EDD, WPML, Polylang and a currency switcher:
#      none of them is stored or shown to another visitor; analytics and consent cookies still
#      get cached pages; a renamed login cookie (LOGGED_IN_COOKIE in wp-config.php) bypasses; a
#      response with a CSP nonce is never replayed; a body compressed by ob_gzhandler is served
#      only to clients that accept gzip.
#   4. Targeted purges: editing a post purges its page and archives, not an unrelated page; a
#      view counter (post meta written on each view) purges nothing.
#   5. The mobile variant (SHMCACHE_PAGE_CACHE_MOBILE): phones and desktops get their own copy.
# Creates posts (and a comment) and deletes them at the end; removes the test plugin and the
# extra wp-config settings, leaves the page cache off and stops the stack. Prints PASS/FAIL per check and ends with "N passed, N failed".
source "$(dirname "$0")/wp-stack.sh"


WORK=$(mktemp -d)
TEST_SITE_PLUGIN="$WP_STACK_CONTENT/mu-plugins/shmcache-pagecache-test-site.php"
EXTRA_CONFIG="$WP_STACK_CONF/wp-config-extra.php"
POST_ID=
EXTRA_POST_IDS=
OLD_DESCRIPTION=
DONE=0
cleanup() {
  local rc=$?
  set +e
  if [ -n "$POST_ID" ]; then
    wp_stack_eval "foreach (get_comments(['post_id' => $POST_ID, 'status' => 'all', 'fields' => 'ids']) as \$c) { wp_delete_comment(\$c, true); } wp_delete_post($POST_ID, true);" >/dev/null 2>&1
  fi
  rm -f "$TEST_SITE_PLUGIN" "$EXTRA_CONFIG"
  for id in $EXTRA_POST_IDS; do
    [[ "$id" =~ ^[0-9]+$ ]] && wp_stack_eval "wp_delete_post($id, true);" >/dev/null 2>&1
  done
  if [ -n "$OLD_DESCRIPTION" ]; then
    wp_stack_eval "update_option('blogdescription', base64_decode('$OLD_DESCRIPTION'));" >/dev/null 2>&1
  fi
  wp_stack_pagecache off >/dev/null 2>&1
  wp_stack_stop >/dev/null 2>&1
  rm -rf "$WORK"
  if [ "$DONE" != 1 ]; then # a command outside the checks failed (set -e): still end with the counts
    echo "FAIL: the script stopped early (exit status $rc)"
    echo
    echo "$passed passed, $((failed + 1)) failed"
    exit 1
  fi
}
trap cleanup EXIT

WP_STACK_SHMCACHE=1 wp_stack_start
wp_stack_dropin on
wp_stack_pagecache on # also empties the FPM cache
# A stack started by an older wp-stack.sh has a config that does not read the extra settings.
grep -q wp-config-extra "$WP_STACK_CONF/wp-config-stack.php" || wp_stack_write_wp_config
ln -sfn "$ROOT/wordpress/stack/pagecache-test-site.php" "$TEST_SITE_PLUGIN"

fpm_log_start=$(stat -c %s "$WP_STACK_FPM_LOG" 2>/dev/null || echo 0)
debug_log_start=$(stat -c %s "$WP_STACK_DEBUG_LOG" 2>/dev/null || echo 0)

# ------------------------------------------------------------------------------------ PHPUnit
log "PHPUnit: wordpress/tests/PageCacheTest.php"
phpunit_counted "PHPUnit" "$WORK/phpunit.txt" -c "$ROOT/wordpress/tests/phpunit.xml" "$ROOT/wordpress/tests/PageCacheTest.php"

# ------------------------------------------------------------------------------- HTTP helpers
# get NAME PATH [CURL-ARGS...]: body to $WORK/NAME.body, headers (CR stripped) to .hdr, status to .status
get() {
  local name=$1 path=$2
  shift 2
  curl -sS --max-time 60 -D "$WORK/$name.rawh" -o "$WORK/$name.body" -w '%{http_code}' "$@" "$WP_STACK_URL$path" \
    >"$WORK/$name.status" 2>"$WORK/$name.err" || echo 000 >"$WORK/$name.status"
  tr -d '\r' <"$WORK/$name.rawh" >"$WORK/$name.hdr" 2>/dev/null || : >"$WORK/$name.hdr"
}
status_of() { cat "$WORK/$1.status"; }
header_of() { # header_of NAME HEADER: its value in the last response (case-insensitive), or ''
  awk -v h="$(echo "$2" | tr 'A-Z' 'a-z')" -F': ' 'tolower($1) == h { sub(/^[^:]*: /, ""); v = $0 } END { print v }' "$WORK/$1.hdr"
}
xcache() { header_of "$1" X-Cache; }
expect() { # expect NAME STATUS XCACHE: prints what differs
  local s x
  s=$(status_of "$1")
  x=$(xcache "$1")
  if [ "$s" != "$2" ] || [ "$x" != "$3" ]; then
    echo "  $1: HTTP $s, X-Cache '$x' (expected HTTP $2, X-Cache '$3'; reason: $(header_of "$1" X-Cache-Reason))"
    return 1
  fi
}
body_has() { grep -qF -- "$2" "$WORK/$1.body" || { echo "  $1: body lacks '$2'"; return 1; }; }
body_lacks() { ! grep -qF -- "$2" "$WORK/$1.body" || { echo "  $1: body has '$2'"; return 1; }; }
same_body() { cmp -s "$WORK/$1.body" "$WORK/$2.body" || { echo "  $1 and $2 differ:"; diff <(tr '>' '\n' <"$WORK/$1.body") <(tr '>' '\n' <"$WORK/$2.body") | head -n 6; return 1; }; }

TOKEN="pc$RANDOM$RANDOM"
POST_ID=$(wp_stack_eval "echo wp_insert_post(['post_title' => 'Page cache probe $TOKEN', 'post_content' => 'Body of $TOKEN.', 'post_status' => 'publish', 'post_author' => 1, 'comment_status' => 'open'], true);")
[[ "$POST_ID" =~ ^[0-9]+$ ]] || { echo "could not create the test post: $POST_ID"; POST_ID=; exit 1; }
POST=$(wp_stack_eval "echo wp_make_link_relative(get_permalink($POST_ID));")
echo "test post $POST_ID: $POST"

# ------------------------------------------------------------------------------- anonymous
get f1 /
get f2 /
anon_miss_hit() { expect f1 200 MISS && expect f2 200 HIT; }
check "anonymous: first request MISS, second HIT" anon_miss_hit
check "anonymous: the HIT body is byte-identical to the MISS" same_body f1 f2
hit_headers() {
  [ -n "$(header_of f2 Age)" ] || { echo "  no Age header"; return 1; }
  [ "$(header_of f2 Content-Type)" = "$(header_of f1 Content-Type)" ] || { echo "  Content-Type differs"; return 1; }
  [ -n "$(header_of f2 ETag)" ] && [ "$(header_of f2 ETag)" = "$(header_of f1 ETag)" ] || { echo "  ETag missing or differs"; return 1; }
  [ -n "$(header_of f2 Link)" ] || { echo "  Link header not replayed"; return 1; }
  ! grep -qi '^set-cookie' "$WORK/f2.hdr" || { echo "  a HIT sets a cookie"; return 1; }
}
check "HIT replays Content-Type, Link and ETag and adds Age" hit_headers
check "the front page lists the new post" body_has f2 "Page cache probe $TOKEN"

get t1 "/?utm_source=newsletter&utm_medium=email&fbclid=abc&gclid=def"
get t2 "/?foo=$TOKEN"
tracking() { expect t1 200 HIT && same_body f1 t1 && expect t2 200 MISS; }
check "tracking parameters share the entry (HIT), another parameter does not (MISS)" tracking

get head / -I
head_hit() {
  expect head 200 HIT || return 1
  [ "$(header_of head Content-Length)" = "$(stat -c %s "$WORK/f2.body")" ] || { echo "  Content-Length '$(header_of head Content-Length)'"; return 1; }
}
check "HEAD is answered from the cache (same Content-Length as the GET)" head_hit

# ------------------------------------------------------------------------------- logged in
JAR="$WORK/cookies.txt"
login() {
  # The test cookie is sent by hand: a GET of wp-login.php makes WordPress 6.1 call
  # wp_authenticate(null, null), whose PHP 8.2 deprecation notices would spoil the log check.
  local code
  code=$(curl -sS --max-time 60 -c "$JAR" -b "$JAR" -b 'wordpress_test_cookie=WP%20Cookie%20check' -o /dev/null -w '%{http_code}' \
    --data-urlencode log=admin --data-urlencode pwd=admin --data-urlencode 'wp-submit=Log In' \
    --data-urlencode testcookie=1 --data-urlencode "redirect_to=$WP_STACK_URL/wp-admin/" "$WP_STACK_URL/wp-login.php")
  [ "$code" = 302 ] && grep -q wordpress_logged_in_ "$JAR" || { echo "  login: HTTP $code, no logged-in cookie"; return 1; }
}
check "log in through wp-login.php (admin/admin)" login
get li1 / -b "$JAR"
get li2 "$POST" -b "$JAR"
get li3 "$POST" -b "$JAR"
logged_in() {
  expect li1 200 BYPASS && expect li2 200 BYPASS && expect li3 200 BYPASS &&
    body_has li1 'id="wpadminbar"' && body_has li3 'id="wpadminbar"'
}
check "logged in: never from the cache (BYPASS) and the admin bar is shown" logged_in
get f3 /
anon_after_login() { expect f3 200 HIT && body_lacks f3 'id="wpadminbar"' && same_body f1 f3; }
check "anonymous visitors still get the cached page without the admin bar" anon_after_login

# ---------------------------------------------------------------------------- edits purge
get p1 "$POST"
get p2 "$POST"
check "post page: MISS then HIT" eval 'expect p1 200 MISS && expect p2 200 HIT'

wp_stack_eval "wp_update_post(['ID' => $POST_ID, 'post_title' => 'CLI edit $TOKEN']);"
get p3 "$POST"
get p4 "$POST"
get f4 /
cli_edit() { body_has p3 "CLI edit $TOKEN" && expect p3 200 MISS && expect p4 200 HIT && body_has f4 "CLI edit $TOKEN"; }
check "edit with wp_update_post() in the CLI: the next anonymous request shows it (post and front page)" cli_edit

NONCE=$(curl -sS --max-time 60 -b "$JAR" "$WP_STACK_URL/wp-admin/admin-ajax.php?action=rest-nonce")
rest() { # rest NAME METHOD PATH JSON
  get "$1" "$3" -b "$JAR" -X "$2" -H "X-WP-Nonce: $NONCE" -H 'Content-Type: application/json' --data "$4"
}
rest r1 POST "/wp-json/wp/v2/posts/$POST_ID" "{\"title\": \"REST edit $TOKEN\"}"
get p5 "$POST"
get p6 "$POST"
rest_edit() {
  [ "$(status_of r1)" = 200 ] || { echo "  REST update: HTTP $(status_of r1): $(head -c 300 "$WORK/r1.body")"; return 1; }
  expect r1 200 BYPASS && body_has p5 "REST edit $TOKEN" && body_lacks p5 "CLI edit $TOKEN" && expect p6 200 HIT
}
check "edit through the REST API (cookie + nonce): the next anonymous request shows it" rest_edit

# ------------------------------------------------------------------------------- comments
get c0 "$POST"
get cpost /wp-comments-post.php --data-urlencode "comment_post_ID=$POST_ID" --data-urlencode author=Visitor \
  --data-urlencode "email=visitor-$TOKEN@example.com" --data-urlencode "comment=Comment $TOKEN here."
CID=$(wp_stack_eval "echo implode(',', get_comments(['post_id' => $POST_ID, 'search' => '$TOKEN', 'status' => 'hold', 'fields' => 'ids']));")
get c1 "$POST"
held() {
  [ "$(status_of cpost)" = 302 ] || { echo "  comment POST: HTTP $(status_of cpost)"; return 1; }
  [[ "$CID" =~ ^[0-9]+$ ]] || { echo "  no held comment found: '$CID'"; return 1; }
  expect c0 200 HIT && expect c1 200 HIT && body_lacks c1 "Comment $TOKEN here."
}
check "a comment awaiting moderation is not shown and purges nothing (still HIT)" held
rest r2 POST "/wp-json/wp/v2/comments/${CID:-0}" '{"status": "approved"}'
get c2 "$POST"
get c3 "$POST"
approved() {
  [ "$(status_of r2)" = 200 ] || { echo "  REST approve: HTTP $(status_of r2): $(head -c 300 "$WORK/r2.body")"; return 1; }
  body_has c2 "Comment $TOKEN here." && expect c2 200 MISS && expect c3 200 HIT
}
check "a newly approved comment appears on the post page at once" approved

# --------------------------------------------------------------------------------- options
OLD_DESCRIPTION=$(wp_stack_eval "echo base64_encode(get_option('blogdescription'));")
get o00 /
get o0 /
rest r3 POST /wp-json/wp/v2/settings "{\"description\": \"Tagline $TOKEN\"}"
get o1 /
option_purge() {
  [ "$(status_of r3)" = 200 ] || { echo "  REST settings: HTTP $(status_of r3)"; return 1; }
  expect o0 200 HIT && body_lacks o0 "Tagline $TOKEN" && expect o1 200 MISS && body_has o1 "Tagline $TOKEN"
}
check "an option change (tagline, through REST) purges the front page" option_purge

# ------------------------------------------------------------------------ not cached: 404s
get n1 "/no-such-page-$TOKEN/"
get n2 "/no-such-page-$TOKEN/"
not_found() {
  for n in n1 n2; do
    [ "$(status_of $n)" = 404 ] || { echo "  $n: HTTP $(status_of $n)"; return 1; }
    [ "$(xcache $n)" != HIT ] || { echo "  $n: X-Cache HIT"; return 1; }
  done
  [ "$(header_of n2 X-Cache-Reason)" = "status 404" ] || { echo "  reason '$(header_of n2 X-Cache-Reason)'"; return 1; }
}
check "a 404 is not cached: the second request is still a 404, not a HIT" not_found

# ------------------------------------------------------------------------ 304 Not Modified
get v0 /
get v1 /
ETAG=$(header_of v1 ETag)
LASTMOD=$(header_of v1 Last-Modified)
get v2 / -H "If-None-Match: $ETAG"
get v3 / -H "If-Modified-Since: $LASTMOD"
get v4 / -H 'If-None-Match: "something-else"'
get v5 / -H "If-Modified-Since: Thu, 01 Jan 2015 00:00:00 GMT"
conditional() {
  [ -n "$ETAG" ] && [ -n "$LASTMOD" ] || { echo "  no ETag / Last-Modified"; return 1; }
  expect v1 200 HIT && expect v2 304 HIT && expect v3 304 HIT && [ ! -s "$WORK/v2.body" ] && [ ! -s "$WORK/v3.body" ] &&
    expect v4 200 HIT && same_body v1 v4 && expect v5 200 HIT
}
check "If-None-Match / If-Modified-Since give 304 (and 200 when they do not match)" conditional

# ------------------------------------------------------------------------------ bypasses
get b1 / -X POST --data x=1
get b2 "/?s=lorem"
get b3 "/wp-login.php?action=lostpassword"
get b4 /wp-json/
get b5 "$POST?preview=true"
bypasses() {
  local n
  for n in b1 b2 b3 b4 b5; do
    [ "$(xcache $n)" = BYPASS ] || { echo "  $n: X-Cache '$(xcache $n)', HTTP $(status_of $n)"; return 1; }
  done
}
check "POST, search, wp-login.php, REST and previews bypass the cache" bypasses

# ------------------------------------------------------------------ purge what changed only
# An edit of a published post purges its page and its archives (home and its pagination, its
# tag, category, author and date archives, the feed), and leaves an unrelated page cached.
IDS=$(wp_stack_eval "
  \$p = wp_insert_post(['post_title' => 'Targeted $TOKEN', 'post_content' => 'Targeted body.', 'post_status' => 'publish', 'post_author' => 1, 'tags_input' => ['tag-$TOKEN']], true);
  \$q = wp_insert_post(['post_title' => 'Unrelated $TOKEN', 'post_type' => 'page', 'post_content' => 'Unrelated body.', 'post_status' => 'publish'], true);
  \$v = wp_insert_post(['post_title' => 'View counter $TOKEN', 'post_content' => 'Counted body.', 'post_status' => 'publish', 'post_author' => 1], true);
  echo implode(' ', [\$p, \$q, \$v]);")
read -r TARGET_ID UNRELATED_ID VIEWS_ID <<<"$IDS"
EXTRA_POST_IDS="$TARGET_ID $UNRELATED_ID $VIEWS_ID"
URLS=$(wp_stack_eval "
  \$p = get_post($TARGET_ID); \$t = strtotime(\$p->post_date);
  foreach ([get_permalink(\$p), get_term_link('tag-$TOKEN', 'post_tag'), get_category_link(get_the_category(\$p->ID)[0]),
    get_author_posts_url(\$p->post_author), get_year_link(gmdate('Y', \$t)), get_permalink($UNRELATED_ID), get_permalink($VIEWS_ID)] as \$u) {
    echo wp_make_link_relative(\$u), ' ';
  }")
read -r T_POST T_TAG T_CAT T_AUTHOR T_YEAR T_UNRELATED T_VIEWS <<<"$URLS"
declare -A TARGETS=([tpost]="$T_POST" [thome]=/ [tpage2]=/page/2/ [tfeed]=/feed/ [ttag]="$T_TAG" [tcat]="$T_CAT" [tauthor]="$T_AUTHOR" [tyear]="$T_YEAR")
for n in "${!TARGETS[@]}" tunrel; do
  path=${TARGETS[$n]:-$T_UNRELATED}
  get "$n-w1" "$path"
  get "$n-w2" "$path"
done
wp_stack_eval "wp_update_post(['ID' => $TARGET_ID, 'post_title' => 'Retitled $TOKEN']);"
for n in "${!TARGETS[@]}" tunrel; do
  get "$n-after" "${TARGETS[$n]:-$T_UNRELATED}"
done
targeted_purge() {
  local n
  [[ "$TARGET_ID" =~ ^[0-9]+$ ]] && [ -n "$T_UNRELATED" ] || { echo "  setup: ids '$IDS', urls '$URLS'"; return 1; }
  for n in "${!TARGETS[@]}" tunrel; do
    expect "$n-w2" 200 HIT || return 1
  done
  for n in "${!TARGETS[@]}"; do
    expect "$n-after" 200 MISS || return 1
  done
  body_has tpost-after "Retitled $TOKEN" && body_has thome-after "Retitled $TOKEN" && body_has ttag-after "Retitled $TOKEN" &&
    body_has tfeed-after "Retitled $TOKEN" && expect tunrel-after 200 HIT
}
check "editing a post purges its page, home + page 2, feed, tag, category, author and year archives; an unrelated page stays a HIT" targeted_purge

# A plugin that writes a public post meta on every view (a view counter) purges nothing.
get vc1 "$T_VIEWS"
get vc2 /
get vc3 "$T_UNRELATED"
get vc4 "$T_VIEWS"
VIEWS=$(wp_stack_eval "echo (int) get_post_meta($VIEWS_ID, 'views', true);")
view_counter() {
  [ "${VIEWS:-0}" -ge 1 ] || { echo "  the counter did not run (views '$VIEWS')"; return 1; }
  expect vc1 200 MISS && expect vc2 200 HIT && expect vc3 200 HIT && expect vc4 200 HIT
}
check "a view counter (public post meta written while a page renders) purges nothing: other pages and the post stay HITs" view_counter

# -------------------------------------------------------------- pages that depend on cookies
# Each cookie makes the test plugin render something personal, without any Set-Cookie (as
# WooCommerce's "recently viewed" widget does). Visitor A has the cookie, visitor B none,
# visitor C the same cookie with another value; each case uses a page nobody visited before.
personal_case() { # personal_case NAME COOKIE LABEL VALUE-A VALUE-C
  local n=$1 cookie=$2 label=$3 a=$4 c=$5 path="/?pc_case=$1-$TOKEN"
  get "$n-a" "$path" -b "$cookie=$a"
  get "$n-b1" "$path"
  get "$n-b2" "$path"
  get "$n-c" "$path" -b "_ga=GA1.2.1.2; $cookie=$c"
  # What another visitor sees first, then how the cache treated each request.
  body_lacks "$n-b1" "$a" && body_lacks "$n-b2" "$a" && body_lacks "$n-c" "$a" && body_has "$n-c" "$label$c" &&
    expect "$n-a" 200 BYPASS && body_has "$n-a" "$label$a" &&
    expect "$n-b1" 200 MISS && expect "$n-b2" 200 HIT && expect "$n-c" 200 BYPASS
}
check "WooCommerce recently viewed (cookie only, non-product page): never stored, never shown to another visitor" \
  personal_case wcrv woocommerce_recently_viewed 'recently viewed: ' "11|22|$TOKEN" "33|$TOKEN"
check "EDD edd_items_in_cart: never stored, never shown to another visitor" \
  personal_case edd edd_items_in_cart 'items in cart: ' "3$TOKEN" "7$TOKEN"
check "WPML wp-wpml_current_language: never stored, never shown to another visitor" \
  personal_case wpml wp-wpml_current_language 'language (WPML): ' "de$TOKEN" "fr$TOKEN"
check "Polylang pll_language: never stored, never shown to another visitor" \
  personal_case pll pll_language 'language (Polylang): ' "es$TOKEN" "it$TOKEN"
check "currency switcher woocs_current_currency: never stored, never shown to another visitor" \
  personal_case cur woocs_current_currency 'currency: ' "EUR$TOKEN" "GBP$TOKEN"

get hc1 "/?pc_case=harmless-$TOKEN" -b "_ga=GA1.2.111.222; _gid=GA1.2.333; cookieyes-consent=consent:yes; _hjSessionUser_123=abc"
get hc2 "/?pc_case=harmless-$TOKEN"
get hc3 "/?pc_case=harmless-$TOKEN" -b "_ga=GA1.2.999.888; _fbp=fb.1.2.3; wordpress_test_cookie=WP%20Cookie%20check"
harmless_cookies() { expect hc1 200 MISS && expect hc2 200 HIT && expect hc3 200 HIT && same_body hc1 hc3; }
check "analytics, consent and test cookies: the page is stored and served (MISS, HIT, HIT)" harmless_cookies

# ------------------------------------------------------------------- a renamed login cookie
cat >"$EXTRA_CONFIG" <<PHP
<?php
define('LOGGED_IN_COOKIE', 'member_$TOKEN');
define('SECURE_AUTH_COOKIE', 'member_secure_$TOKEN');
define('AUTH_COOKIE', 'member_auth_$TOKEN');
PHP
JAR2="$WORK/cookies-renamed.txt"
renamed_login() {
  local code
  code=$(curl -sS --max-time 60 -c "$JAR2" -b "$JAR2" -b 'wordpress_test_cookie=WP%20Cookie%20check' -o /dev/null -w '%{http_code}' \
    --data-urlencode log=admin --data-urlencode pwd=admin --data-urlencode 'wp-submit=Log In' \
    --data-urlencode testcookie=1 --data-urlencode "redirect_to=$WP_STACK_URL/wp-admin/" "$WP_STACK_URL/wp-login.php")
  if [ "$code" != 302 ] || ! grep -q "member_$TOKEN" "$JAR2" || grep -q wordpress_logged_in_ "$JAR2"; then
    echo "  login: HTTP $code, cookies: $(awk 'NF >= 7 { print $6 }' "$JAR2" | tr '\n' ' ')"
    return 1
  fi
  get rn0 /
  get rn1 / -b "$JAR2"
  get rn2 "$POST" -b "$JAR2"
  expect rn0 200 HIT && expect rn1 200 BYPASS && expect rn2 200 BYPASS &&
    body_has rn1 'id="wpadminbar"' && body_has rn2 'id="wpadminbar"' || return 1
  [ "$(header_of rn1 X-Cache-Reason)" = "cookie LOGGED_IN_COOKIE" ] || { echo "  reason '$(header_of rn1 X-Cache-Reason)'"; return 1; }
}
check "a login cookie renamed in wp-config.php (LOGGED_IN_COOKIE) bypasses, and the admin bar shows" renamed_login
rm -f "$EXTRA_CONFIG"

# ---------------------------------------------------------- per-response headers and bytes
get csp1 "/?pc_probe=csp"
get csp2 "/?pc_probe=csp"
csp_nonce() {
  local n1 n2
  n1=$(header_of csp1 Content-Security-Policy | sed -n "s/.*'nonce-\([0-9a-f]*\)'.*/\1/p")
  n2=$(header_of csp2 Content-Security-Policy | sed -n "s/.*'nonce-\([0-9a-f]*\)'.*/\1/p")
  [ -n "$n1" ] && [ -n "$n2" ] || { echo "  no nonce in the CSP headers"; return 1; }
  expect csp1 200 MISS && expect csp2 200 MISS || return 1
  [ "$n1" != "$n2" ] && body_has csp2 "nonce=\"$n2\"" && body_lacks csp2 "$n1" || { echo "  nonces $n1 / $n2"; return 1; }
  [ "$(header_of csp2 X-Cache-Reason)" = "nonce in Content-Security-Policy" ] || { echo "  reason '$(header_of csp2 X-Cache-Reason)'"; return 1; }
}
check "a Content-Security-Policy nonce is never replayed: each visitor gets a fresh one (MISS, MISS)" csp_nonce

get gz1 "/?pc_probe=gzip" -H 'Accept-Encoding: gzip'
get gz2 "/?pc_probe=gzip" -H 'Accept-Encoding: gzip'
get gz3 "/?pc_probe=gzip"
gunzip_to() { gzip -dc <"$WORK/$1.body" >"$WORK/$2.body" 2>/dev/null || { echo "  $1 is not gzip data"; return 1; }; }
gzip_body() {
  expect gz1 200 MISS && [ "$(header_of gz1 Content-Encoding)" = gzip ] || { echo "  gz1 Content-Encoding '$(header_of gz1 Content-Encoding)'"; return 1; }
  expect gz2 200 HIT && [ "$(header_of gz2 Content-Encoding)" = gzip ] || { echo "  gz2 Content-Encoding '$(header_of gz2 Content-Encoding)'"; return 1; }
  header_of gz2 Vary | grep -qi accept-encoding || { echo "  gz2 has no Vary: Accept-Encoding"; return 1; }
  gunzip_to gz1 gz1d && gunzip_to gz2 gz2d && same_body gz1d gz2d && body_has gz2d '</html>' || return 1
  [ -z "$(header_of gz3 Content-Encoding)" ] && [ "$(xcache gz3)" != HIT ] && body_has gz3 '</html>' ||
    { echo "  a client without gzip got X-Cache '$(xcache gz3)', Content-Encoding '$(header_of gz3 Content-Encoding)'"; return 1; }
}
check "a body compressed by ob_gzhandler is replayed with Content-Encoding to gzip clients only" gzip_body

# ------------------------------------------------------------------------- mobile variant
IPHONE='Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1'
DESKTOP='Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36'
# Default: one copy for every device (the phone gets the desktop page).
get md1 "/?pc_probe=device&pc_case=shared-$TOKEN" -A "$DESKTOP"
get md2 "/?pc_probe=device&pc_case=shared-$TOKEN" -A "$IPHONE"
one_copy() { expect md1 200 MISS && expect md2 200 HIT && body_has md2 'device: desktop'; }
check "without SHMCACHE_PAGE_CACHE_MOBILE every device shares one copy" one_copy
printf "<?php\ndefine('SHMCACHE_PAGE_CACHE_MOBILE', true);\n" >"$EXTRA_CONFIG"
get mv1 "/?pc_probe=device&pc_case=variant-$TOKEN" -A "$DESKTOP"
get mv2 "/?pc_probe=device&pc_case=variant-$TOKEN" -A "$IPHONE"
get mv3 "/?pc_probe=device&pc_case=variant-$TOKEN" -A "$IPHONE"
get mv4 "/?pc_probe=device&pc_case=variant-$TOKEN" -A "$DESKTOP"
get mv5 "/?pc_probe=device&pc_case=variant-$TOKEN" -H 'Sec-CH-UA-Mobile: ?1' -A "$DESKTOP"
rm -f "$EXTRA_CONFIG"
mobile_variant() {
  expect mv1 200 MISS && body_has mv1 'device: desktop' &&
    expect mv2 200 MISS && body_has mv2 'device: mobile' &&
    expect mv3 200 HIT && body_has mv3 'device: mobile' &&
    expect mv4 200 HIT && body_has mv4 'device: desktop' &&
    expect mv5 200 HIT && body_has mv5 'device: desktop' # WordPress 6.1 ignores Sec-CH-UA-Mobile
}
check "with SHMCACHE_PAGE_CACHE_MOBILE phones and desktops get their own copy" mobile_variant

# ----------------------------------------------------------------------- page cache off
get on1 /
wp_stack_pagecache off
get off1 /
get off2 "$POST"
cache_off() {
  [ "$(status_of off1)" = 200 ] && [ "$(status_of off2)" = 200 ] || { echo "  HTTP $(status_of off1) / $(status_of off2)"; return 1; }
  ! grep -qi '^x-cache' "$WORK/off1.hdr" "$WORK/off2.hdr" || { echo "  X-Cache header with the page cache off"; return 1; }
  expect on1 200 HIT && same_body on1 off1 && body_has off2 "REST edit $TOKEN"
}
check "page cache off: no X-Cache header, same pages (the cached copy was byte-identical)" cache_off

log "fallback: PHP-FPM without the extension, page cache on"
WP_STACK_SHMCACHE=0 wp_stack_start
wp_stack_pagecache on
get x1 /
get x2 /
get x3 "$POST"
no_extension() {
  for n in x1 x2 x3; do
    [ "$(status_of $n)" = 200 ] || { echo "  $n: HTTP $(status_of $n)"; return 1; }
  done
  ! grep -qi '^x-cache' "$WORK/x1.hdr" "$WORK/x2.hdr" "$WORK/x3.hdr" || { echo "  X-Cache header without the extension"; return 1; }
  same_body off1 x2
}
check "without the extension WordPress runs normally (no page cache, same pages)" no_extension
WP_STACK_SHMCACHE=1 wp_stack_start >/dev/null

clean_logs() {
  local fpm_new debug_new
  fpm_new=$(tail -c +"$((fpm_log_start + 1))" "$WP_STACK_FPM_LOG" 2>/dev/null | grep -E 'PHP (Warning|Notice|Deprecated|Fatal|Parse)' || true)
  debug_new=$(tail -c +"$((debug_log_start + 1))" "$WP_STACK_DEBUG_LOG" 2>/dev/null | grep -E 'PHP ' || true)
  [ -z "$fpm_new$debug_new" ] || { echo "$fpm_new$debug_new" | head -n 20; return 1; }
}
check "no PHP errors, warnings, notices or deprecations in the FPM and debug logs" clean_logs

DONE=1
echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
