#!/usr/bin/env bash
# The object-cache drop-in on a multisite network (Debian's WordPress 6.1, a main site and a
# second site at /second/), installed from scratch on first use by scripts/wp-stack.sh with
# WP_STACK_MULTISITE=1, in its own directory, address and port:
#   MS_STACK_DIR (default target/wp-stack-multisite), MS_STACK_IP (127.0.0.8), MS_PORT (8098).
#
# Multisite starts the object cache twice (wp-settings.php, then ms-settings.php). When the drop-in
# falls back to a per-request cache it must still come through the second start: each fallback
# cause is checked through nginx + PHP-FPM and from a command-line script loading wp-load.php:
#   - SHMCACHE_DISABLE in the site's config,
#   - PHP without the extension,
#   - the CLI with the extension loaded but no region (shmcache.enable_cli=0).
# Each must give the same pages as without a drop-in, no PHP error, and transients that outlive
# the request (kept in the database, as without a drop-in). With shared memory the pages are the
# same too, and the drop-in reports an external cache.
#
# Then the page cache on the network: each site's pages are cached apart, and a purge stays within
# its site. An edit of a post on one site purges that post's page and its archives there, a
# whole-site change (the tagline) purges every page of that site; the other site's pages stay
# cached. Each change is made from a command-line script (relayed to the web server), on the main
# site and, through switch_to_blog(), on the second site as network tools do.
# Prints PASS/FAIL per check and ends with "N passed, N failed".
here=$(cd "$(dirname "$0")/.." && pwd)
export WP_STACK_MULTISITE=1
export WP_STACK_DIR=${MS_STACK_DIR:-$here/target/wp-stack-multisite}
export WP_STACK_IP=${MS_STACK_IP:-127.0.0.8}
export WP_PORT=${MS_PORT:-8098}
source "$here/scripts/wp-stack.sh"

WORK=$(mktemp -d)
PC_RESTORE=
cleanup() {
  set +e
  [ -z "$PC_RESTORE" ] || wp_stack_eval "$PC_RESTORE" >/dev/null 2>&1
  wp_stack_pagecache off >/dev/null 2>&1
  wp_stack_disable off
  wp_stack_stop >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

build_release
wp_stack_disable off
wp_stack_pagecache off
WP_STACK_SHMCACHE=1 wp_stack_start

PAGES=(/ /second/ /feed/ /second/feed/)

# fetch NAME PATH: body to $WORK/NAME.body, status to .status, response headers to .headers
fetch() {
  local name=$1 path=$2
  curl -sS --max-time 60 -H 'X-WP-Stack-Stats: 1' -D "$WORK/$name.headers" -o "$WORK/$name.body" \
    -w '%{http_code}' "$WP_STACK_URL$path" >"$WORK/$name.status" || echo 000 >"$WORK/$name.status"
}
page_name() { echo "$1" | tr -c 'a-zA-Z0-9\n' '_'; }
header_of() { tr -d '\r' <"$WORK/$1.headers" | sed -n "s/^$2: //Ip" | tail -n 1; }

log_mark() {
  fpm_log_start=$(stat -c %s "$WP_STACK_FPM_LOG" 2>/dev/null || echo 0)
  debug_log_start=$(stat -c %s "$WP_STACK_DEBUG_LOG" 2>/dev/null || echo 0)
}
# (Core 6.1's own ms-functions.php is deprecated code for PHP 8.2 when it is compiled: not ours.)
clean_logs() {
  local new
  new=$({
    tail -c +"$((fpm_log_start + 1))" "$WP_STACK_FPM_LOG" 2>/dev/null | grep -E 'PHP (Warning|Notice|Deprecated|Fatal|Parse)' || true
    tail -c +"$((debug_log_start + 1))" "$WP_STACK_DEBUG_LOG" 2>/dev/null | grep -E 'PHP ' || true
  } | grep -vE "PHP Deprecated: .* in $WP_PATH/wp-includes/ms-functions\.php on line" || true)
  [ -z "$new" ] || { echo "$new" | head -n 20; return 1; }
}

# pages_like_baseline PHASE: every page HTTP 200 and byte-identical to the page without a drop-in
pages_like_baseline() {
  local phase=$1 p n ok=0
  for p in "${PAGES[@]}"; do
    n=$(page_name "$p")
    fetch "$phase$n" "$p"
    if [ "$(cat "$WORK/$phase$n.status")" != 200 ]; then
      echo "  $p: HTTP $(cat "$WORK/$phase$n.status")"
      head -c 300 "$WORK/$phase$n.body"
      echo
      ok=1
    elif ! cmp -s "$WORK/base$n.body" "$WORK/$phase$n.body"; then
      echo "  $p differs from the page without a drop-in"
      diff <(tr '>' '\n' <"$WORK/base$n.body") <(tr '>' '\n' <"$WORK/$phase$n.body") | head -n 10 || true
      ok=1
    fi
  done
  return $ok
}

# web_reports PHASE CLASS EXT: the drop-in's class served the page, wp_using_ext_object_cache() as given
web_reports() {
  local n class ext
  n=$(page_name /second/)
  class=$(header_of "$1$n" X-WP-Cache-Class)
  ext=$(header_of "$1$n" X-WP-Ext-Cache)
  echo "  cache class $class, external cache reported: $ext"
  [ "$class" = "$2" ] && [ "$ext" = "$3" ]
}

# transient_survives PATH: a transient set in one request is read by the next one
transient_survives() {
  local value="t$RANDOM$RANDOM" stored got
  stored=$(curl -sS -D - -o /dev/null -H "X-WP-Stack-Transient-Set: shmcache_ms=$value" "$WP_STACK_URL$1" |
    tr -d '\r' | sed -n 's/^X-WP-Stack-Transient-Stored: //p')
  got=$(curl -sS -D - -o /dev/null -H "X-WP-Stack-Transient-Get: shmcache_ms" "$WP_STACK_URL$1" |
    tr -d '\r' | sed -n 's/^X-WP-Stack-Transient-Value: //p')
  echo "  $1: stored=$stored, next request read '$got'"
  [ "$stored" = 1 ] && [ "$got" = "$value" ]
}

# The CLI's own ini files without any shmcache one (an `install.sh` would load the extension for
# every php run): each check says itself whether the extension is loaded.
CLI_CONFD="$WORK/cli-conf.d"
mkdir -p "$CLI_CONFD"
for f in /etc/php/8.2/cli/conf.d/*.ini; do
  [ -e "$f" ] || continue
  grep -qi shmcache "$f" || ln -s "$(readlink -f "$f")" "$CLI_CONFD/$(basename "$f")"
done

# cli_check LABEL EXPECT_DROPIN_PERSISTENT PHP-ARGS...: the CLI script loads WordPress, reads the
# second site through switch_to_blog(), and (on the fallback) a transient it sets is read by a
# second process.
cli_check() {
  local label=$1 persistent=$2 value="c$RANDOM$RANDOM" out1 out2
  shift 2
  out1=$(PHP_INI_SCAN_DIR="$CLI_CONFD" WP_STACK_HOST="$WP_STACK_HOST" php "$@" "$ROOT/wordpress/stack/cli-cache-check.php" set shmcache_cli "$value" 2>&1) || true
  out2=$(PHP_INI_SCAN_DIR="$CLI_CONFD" WP_STACK_HOST="$WP_STACK_HOST" php "$@" "$ROOT/wordpress/stack/cli-cache-check.php" get shmcache_cli 2>&1) || true
  echo "  $out1"
  echo "  $out2"
  printf '%s\n%s\n' "$out1" "$out2" | php -r '
    [$persistent, $value] = [$argv[1] === "1", $argv[2]];
    $lines = array_map(fn ($l) => json_decode($l, true), explode("\n", trim(stream_get_contents(STDIN))));
    foreach ($lines as $i => $r) {
      if (!is_array($r) || $r["dropin"] !== true || $r["persistent"] !== $persistent || $r["multisite"] !== true
          || $r["ext_cache"] !== $persistent || ($r["second_name"] ?? null) !== "Second Site"
          || $r["sites"] !== ["/", "/second/"]) {
        exit(1);
      }
    }
    // A CLI region is private to its process: only the database carries a transient to the next one.
    exit($lines[0]["transient"] === true && ($persistent || $lines[1]["transient"] === $value) ? 0 : 1);' "$persistent" "$value"
}

# ------------------------------------------------------------------------------- baseline
log "multisite pages without the drop-in (baseline)"
wp_stack_dropin off
for p in "${PAGES[@]}"; do fetch "base$(page_name "$p")" "$p"; done
base_ok() {
  local p
  for p in "${PAGES[@]}"; do
    [ "$(cat "$WORK/base$(page_name "$p").status")" = 200 ] || { echo "  $p: HTTP $(cat "$WORK/base$(page_name "$p").status")"; return 1; }
  done
  grep -q 'Post 1 of site' "$WORK/base$(page_name /second/).body"
}
check "multisite: both sites answer without the drop-in" base_ok

# ------------------------------------------------------------------------------- shared memory
log "drop-in on, FPM with the extension"
wp_stack_dropin on
wp_stack_flush >/dev/null
log_mark
check "multisite, shared memory: pages as without a drop-in (cold)" pages_like_baseline cold
check "multisite, shared memory: pages as without a drop-in (warm)" pages_like_baseline warm
check "multisite, shared memory: the drop-in serves and reports an external cache" web_reports warm WP_Object_Cache 1
check "multisite, shared memory: no PHP errors in the logs" clean_logs

# ------------------------------------------------------------------------------- SHMCACHE_DISABLE
log "fallback: SHMCACHE_DISABLE"
wp_stack_disable on
log_mark
check "multisite, SHMCACHE_DISABLE: pages as without a drop-in" pages_like_baseline disabled
check "multisite, SHMCACHE_DISABLE: the drop-in serves, no external cache reported after bootstrap" web_reports disabled WP_Object_Cache 0
check "multisite, SHMCACHE_DISABLE: a transient outlives its request (main site)" transient_survives /
check "multisite, SHMCACHE_DISABLE: a transient outlives its request (second site)" transient_survives /second/
check "multisite, SHMCACHE_DISABLE, CLI with the extension: WordPress loads, transients persist" \
  cli_check disable 0 -d extension="$SO" -d shmcache.enable_cli=1
check "multisite, SHMCACHE_DISABLE: no PHP errors in the logs" clean_logs
wp_stack_disable off

# ------------------------------------------------------------------------------- no extension
log "fallback: PHP-FPM without the extension"
WP_STACK_SHMCACHE=0 wp_stack_start
log_mark
check "multisite, no extension: pages as without a drop-in" pages_like_baseline noext
check "multisite, no extension: the drop-in serves, no external cache reported after bootstrap" web_reports noext WP_Object_Cache 0
check "multisite, no extension: a transient outlives its request" transient_survives /second/
check "multisite, no extension, CLI: WordPress loads, transients persist" cli_check noext 0
check "multisite, no extension: no PHP errors in the logs" clean_logs

# ------------------------------------------------------------------------------- CLI, no region
log "fallback: CLI with the extension but no region (shmcache.enable_cli=0)"
log_mark
check "multisite, CLI without a region: WordPress loads, transients persist" \
  cli_check noregion 0 -d extension="$SO" -d shmcache.enable_cli=0
check "multisite, CLI with a region: the drop-in is persistent and reports an external cache" \
  cli_check region 1 -d extension="$SO" -d shmcache.enable_cli=1
check "multisite, CLI: no PHP errors in the debug log" clean_logs

# ------------------------------------------------------------------------------- page cache
log "page cache: purges stay within their site"
WP_STACK_SHMCACHE=1 wp_stack_start
wp_stack_dropin on
wp_stack_pagecache on # also empties the FPM cache
log_mark
PC_TOKEN="ms$RANDOM$RANDOM"
# site_eval PATH PHP: PHP in the CLI with the site at PATH loaded as a request for PATH would load
# it (not through switch_to_blog(), whose links keep the main site's permalink front).
site_eval() {
  WP_STACK_HOST="$WP_STACK_HOST" php -d extension="$SO" -d shmcache.enable_cli=1 \
    -r '$_SERVER["REQUEST_URI"] = $argv[1]; require $argv[2]; eval($argv[3]);' "$1" "$WP_STACK_BOOTSTRAP" "$2"
}
# For each site: its second post (edited), its first post (unrelated to that edit), its home
# and feed, the category and year archive of the edited post; the titles and taglines to restore.
PC_URLS=$(for site_path in / /second/; do site_eval "$site_path" '
  $posts = get_posts(["numberposts" => 2, "orderby" => "ID", "order" => "ASC", "s" => "of site"]);
  $edited = $posts[1];
  echo get_current_blog_id(), " ", $edited->ID, " ";
  foreach ([get_permalink($posts[0]), get_permalink($edited), home_url("/"), get_feed_link(), get_category_link(get_the_category($edited->ID)[0]),
    get_year_link(gmdate("Y", strtotime($edited->post_date)))] as $u) {
    echo wp_make_link_relative($u), " ";
  }
  echo base64_encode($edited->post_title), " ", base64_encode(get_option("blogdescription")), "\n";'; done)
declare -A PC_BLOG PC_POST PC_PATHS
PC_RESTORE=
n=0
while read -r blog post other edited home feed cat year title tagline; do
  n=$((n + 1))
  PC_BLOG[$n]=$blog PC_POST[$n]=$post
  PC_PATHS[$n]="other=$other edited=$edited home=$home feed=$feed cat=$cat year=$year"
  PC_RESTORE+="switch_to_blog($blog); wp_update_post(['ID' => $post, 'post_title' => base64_decode('$title')]); update_option('blogdescription', base64_decode('$tagline')); restore_current_blog(); "
done <<<"$PC_URLS"

# pc_fetch_all PHASE: every page of both sites, to $WORK/PHASE-SITE-NAME
pc_fetch_all() {
  local site pair
  for site in 1 2; do
    for pair in ${PC_PATHS[$site]}; do fetch "$1-$site-${pair%%=*}" "${pair#*=}"; done
  done
}
# pc_expect PHASE SITE X-CACHE NAME...: those pages of that site answered 200 with that X-Cache
pc_expect() {
  local phase=$1 site=$2 want=$3 name got ok=0
  shift 3
  for name in "$@"; do
    got="$(cat "$WORK/$phase-$site-$name.status") $(header_of "$phase-$site-$name" X-Cache)"
    if [ "$got" != "200 $want" ]; then
      echo "  site $site $name (${PC_PATHS[$site]}): $got, expected 200 $want ($(header_of "$phase-$site-$name" X-Cache-Reason))"
      ok=1
    fi
  done
  return $ok
}
pc_has() { grep -qF -- "$3" "$WORK/$1-$2.body" || { echo "  $1-$2: body lacks '$3'"; return 1; }; }
ALL_PAGES=(other edited home feed cat year)
ARCHIVES=(edited home feed cat year)

pc_setup_ok() { [ "$n" = 2 ] && [ "${PC_BLOG[1]}" != "${PC_BLOG[2]}" ] || { echo "  sites read: $n"; return 1; }; }
check "multisite page cache: both sites' test pages found" pc_setup_ok
pc_fetch_all warm1
pc_fetch_all warm2
pc_warm() { pc_expect warm1 1 MISS "${ALL_PAGES[@]}" && pc_expect warm1 2 MISS "${ALL_PAGES[@]}" && pc_expect warm2 1 HIT "${ALL_PAGES[@]}" && pc_expect warm2 2 HIT "${ALL_PAGES[@]}"; }
check "multisite page cache: the pages of both sites are cached (MISS, then HIT)" pc_warm

# pc_change NAME PHP: PHP runs in the CLI (main site loaded), then every page is fetched again
pc_change() {
  wp_stack_eval "$2" || echo "  (the change failed)"
  pc_fetch_all "$1"
}

pc_change edit1 "wp_update_post(['ID' => ${PC_POST[1]}, 'post_title' => 'Site one edit $PC_TOKEN']);"
pc_edit_main() {
  pc_expect edit1 1 MISS "${ARCHIVES[@]}" && pc_has edit1 1-edited "Site one edit $PC_TOKEN" && pc_has edit1 1-home "Site one edit $PC_TOKEN" &&
    pc_expect edit1 1 HIT other && pc_expect edit1 2 HIT "${ALL_PAGES[@]}"
}
check "multisite page cache: a post edit on the main site purges its page, home, feed and archives there; the second site stays HIT" pc_edit_main

pc_change tag1 "update_option('blogdescription', 'Main tagline $PC_TOKEN');"
pc_site_main() { pc_expect tag1 1 MISS "${ALL_PAGES[@]}" && pc_has tag1 1-feed "Main tagline $PC_TOKEN" && pc_expect tag1 2 HIT "${ALL_PAGES[@]}"; }
check "multisite page cache: a whole-site purge of the main site (tagline) leaves the second site HIT" pc_site_main

pc_change edit2 "switch_to_blog(${PC_BLOG[2]}); wp_update_post(['ID' => ${PC_POST[2]}, 'post_title' => 'Site two edit $PC_TOKEN']); restore_current_blog();"
pc_edit_second() {
  pc_expect edit2 2 MISS "${ARCHIVES[@]}" && pc_has edit2 2-edited "Site two edit $PC_TOKEN" && pc_has edit2 2-home "Site two edit $PC_TOKEN" &&
    pc_expect edit2 2 HIT other && pc_expect edit2 1 HIT "${ALL_PAGES[@]}"
}
check "multisite page cache: a post edit on the second site (switch_to_blog) purges its pages there; the main site stays HIT" pc_edit_second

pc_change tag2 "switch_to_blog(${PC_BLOG[2]}); update_option('blogdescription', 'Second tagline $PC_TOKEN'); restore_current_blog();"
pc_site_second() { pc_expect tag2 2 MISS "${ALL_PAGES[@]}" && pc_has tag2 2-feed "Second tagline $PC_TOKEN" && pc_expect tag2 1 HIT "${ALL_PAGES[@]}"; }
check "multisite page cache: a whole-site purge of the second site (switch_to_blog) purges all of it and leaves the main site HIT" pc_site_second

# Both in one script: a whole-site change of the second site, a post edit on the main site.
pc_change both "switch_to_blog(${PC_BLOG[2]}); update_option('blogdescription', 'Both tagline $PC_TOKEN'); restore_current_blog(); wp_update_post(['ID' => ${PC_POST[1]}, 'post_title' => 'Both edit $PC_TOKEN']);"
pc_both() {
  pc_expect both 2 MISS "${ALL_PAGES[@]}" && pc_has both 2-feed "Both tagline $PC_TOKEN" &&
    pc_expect both 1 MISS "${ARCHIVES[@]}" && pc_has both 1-home "Both edit $PC_TOKEN" && pc_expect both 1 HIT other
}
check "multisite page cache: one script changing both sites purges each as its change asks (second: all, main: the post's pages)" pc_both
check "multisite page cache: no PHP errors in the logs" clean_logs

echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
