#!/usr/bin/env bash
# The WordPress drop-in against a real WordPress (Debian's 6.1 package) on a real stack started
# here: MariaDB + PHP-FPM (4 workers, shmcache in the master) + nginx (scripts/wp-stack.sh).
#   1. PHPUnit: every API function and semantic (wordpress/tests/ObjectCacheTest.php).
#   2. End to end: pages with the drop-in are HTTP 200 and byte-identical to pages without it,
#      queries per page drop (the numbers are printed), a value written through one worker is
#      read by another, no PHP errors in the logs, and without the extension the site still
#      works on a per-request cache.
#   3. Autoloaded options too large for the value ring (PHP-FPM with a 1M ring): the same pages,
#      never more queries than without the drop-in, no PHP warning, one log line.
# Prints PASS/FAIL per check and ends with "N passed, N failed".
source "$(dirname "$0")/wp-stack.sh"


WORK=$(mktemp -d)
trap 'wp_stack_stop >/dev/null 2>&1 || true; rm -rf "$WORK"' EXIT

build_release
WP_STACK_SHMCACHE=1 wp_stack_start

# ------------------------------------------------------------------------------------ PHPUnit
log "PHPUnit against the real site, drop-in on"
wp_stack_dropin on
# An 8M value ring (2 MB values at most): the tests of refused values need values the ring
# cannot take, and the database must still accept them as options (max_allowed_packet).
PHPUNIT_PHP_ARGS="-d shmcache.values_memory_size=8M" phpunit_counted "PHPUnit" "$WORK/phpunit.txt" -c "$ROOT/wordpress/tests/phpunit.xml"

# -------------------------------------------------------------------------------- end to end
single=$(wp_stack_eval 'echo wp_make_link_relative(get_permalink(get_posts(["numberposts" => 1, "orderby" => "ID", "order" => "ASC"])[0]));')
category=$(wp_stack_eval 'echo wp_make_link_relative(get_category_link(get_categories(["hide_empty" => true, "number" => 1])[0]));')
tag=$(wp_stack_eval 'echo wp_make_link_relative(get_tag_link(get_tags(["hide_empty" => true, "number" => 1])[0]));')
PAGES=(/ "$single" "$category" "$tag" /page/2/ "/?s=cache" /feed/)
echo "pages: ${PAGES[*]}"

# fetch NAME PATH: body to $WORK/NAME.body, status to .status, query count to .queries
fetch() {
  local name=$1 path=$2 headers="$WORK/$1.headers"
  curl -sS --max-time 60 -H 'X-WP-Stack-Stats: 1' -D "$headers" -o "$WORK/$name.body" \
    -w '%{http_code}' "$WP_STACK_URL$path" > "$WORK/$name.status" || echo 000 > "$WORK/$name.status"
  tr -d '\r' < "$headers" | sed -n 's/^[Xx]-[Ww][Pp]-[Qq]ueries: //p' > "$WORK/$name.queries"
}
page_name() { echo "$1" | tr -c 'a-zA-Z0-9\n' '_'; }

fpm_log_start=$(stat -c %s "$WP_STACK_FPM_LOG" 2>/dev/null || echo 0)
debug_log_start=$(stat -c %s "$WP_STACK_DEBUG_LOG" 2>/dev/null || echo 0)

log "pages without the drop-in (baseline)"
wp_stack_dropin off
for p in "${PAGES[@]}"; do fetch "base$(page_name "$p")" "$p"; done
for p in "${PAGES[@]}"; do fetch "base$(page_name "$p")" "$p"; done

log "pages with the drop-in: cold, then warm"
wp_stack_dropin on
wp_stack_flush >/dev/null
for p in "${PAGES[@]}"; do fetch "cold$(page_name "$p")" "$p"; done
for p in "${PAGES[@]}"; do fetch "warm$(page_name "$p")" "$p"; done

all_ok=true
same=true
printf '%-60s %8s %8s %8s\n' page base cold warm
for p in "${PAGES[@]}"; do
  n=$(page_name "$p")
  for phase in base cold warm; do
    [ "$(cat "$WORK/$phase$n.status")" = 200 ] || { echo "  $phase $p: HTTP $(cat "$WORK/$phase$n.status")"; all_ok=false; }
  done
  if ! cmp -s "$WORK/base$n.body" "$WORK/warm$n.body" || ! cmp -s "$WORK/base$n.body" "$WORK/cold$n.body"; then
    echo "  $p: body differs from the page without the drop-in:"
    diff <(tr '>' '\n' < "$WORK/base$n.body") <(tr '>' '\n' < "$WORK/warm$n.body") | head -n 10 || true
    same=false
  fi
  printf '%-60s %8s %8s %8s\n' "$p" "$(cat "$WORK/base$n.queries")" "$(cat "$WORK/cold$n.queries")" "$(cat "$WORK/warm$n.queries")"
done
check "every page is HTTP 200 with and without the drop-in" $all_ok
check "pages are byte-identical with and without the drop-in" $same

queries_drop() {
  local p n b w
  for p in "${PAGES[@]}"; do
    n=$(page_name "$p")
    b=$(cat "$WORK/base$n.queries")
    w=$(cat "$WORK/warm$n.queries")
    [ -n "$b" ] && [ -n "$w" ] || { echo "  no query count for $p"; return 1; }
    [ "$w" -lt "$b" ] || { echo "  $p: $w queries warm vs $b without the drop-in"; return 1; }
  done
}
check "database queries per page drop with a warm cache" queries_drop

log "concurrency: 56 requests, 8 at a time, over all pages"
concurrent_ok() {
  local urls="$WORK/urls" codes
  : > "$urls"
  for _ in 1 2 3 4 5 6 7 8; do for p in "${PAGES[@]}"; do echo "$WP_STACK_URL$p" >> "$urls"; done; done
  codes=$(xargs -P 8 -n 1 curl -s -o /dev/null --max-time 60 -w '%{http_code}\n' < "$urls" | sort | uniq -c)
  echo "$codes"
  [ "$(echo "$codes" | awk '$2 != 200 {bad += $1} END {print bad + 0}')" = 0 ]
}
check "concurrent requests are all HTTP 200" concurrent_ok
for p in "${PAGES[@]}"; do fetch "again$(page_name "$p")" "$p"; done
identical_after_load() {
  local p n
  for p in "${PAGES[@]}"; do
    n=$(page_name "$p")
    cmp -s "$WORK/base$n.body" "$WORK/again$n.body" || { echo "  $p differs after the concurrent load"; return 1; }
  done
}
check "pages are still identical after concurrent load" identical_after_load

cross_worker() {
  local value="v$RANDOM$RANDOM" setter getter got i
  setter=$(curl -sS -D - -o /dev/null -H "X-WP-Stack-Cache-Set: crossworker=$value" "$WP_STACK_URL/" |
    tr -d '\r' | sed -n 's/^X-WP-Stack-Cache-Pid: //p')
  for i in $(seq 1 40); do
    read -r getter got < <(curl -sS -D - -o /dev/null -H "X-WP-Stack-Cache-Get: crossworker" "$WP_STACK_URL/" |
      tr -d '\r' | awk -F': ' '/^X-WP-Stack-Cache-Pid/ {p = $2} /^X-WP-Stack-Cache-Value/ {v = $2} END {print p, v}')
    if [ -n "$getter" ] && [ "$getter" != "$setter" ]; then
      echo "  written by worker $setter, read by worker $getter: $got"
      [ "$got" = "$value" ]
      return
    fi
  done
  echo "  no other worker answered in 40 requests"
  return 1
}
check "a value written through one FPM worker is read by another" cross_worker

clean_logs() {
  local fpm_new debug_new
  fpm_new=$(tail -c +"$((fpm_log_start + 1))" "$WP_STACK_FPM_LOG" 2>/dev/null | grep -E 'PHP (Warning|Notice|Deprecated|Fatal|Parse)' || true)
  debug_new=$(tail -c +"$((debug_log_start + 1))" "$WP_STACK_DEBUG_LOG" 2>/dev/null | grep -E 'PHP ' || true)
  [ -z "$fpm_new$debug_new" ] || { echo "$fpm_new$debug_new" | head -n 20; return 1; }
}
check "no PHP errors, warnings, notices or deprecations in the FPM and debug logs" clean_logs

# ----------------------------------------------- alloptions too large for the value ring
log "alloptions too large for shared memory: PHP-FPM with a 1M value ring (values up to 256 KB)"
WP_STACK_FPM_ARGS="-d shmcache.values_memory_size=1M" wp_stack_start
wp_stack_eval 'add_option("shmcache_e2e_huge", base64_encode(random_bytes(300000)), "", "yes");'
fpm_log_start=$(stat -c %s "$WP_STACK_FPM_LOG" 2>/dev/null || echo 0)
debug_log_start=$(stat -c %s "$WP_STACK_DEBUG_LOG" 2>/dev/null || echo 0)
wp_stack_dropin off
for p in "${PAGES[@]}"; do fetch "hugebase$(page_name "$p")" "$p"; done
wp_stack_dropin on
wp_stack_flush >/dev/null
for p in "${PAGES[@]}"; do fetch "hugecold$(page_name "$p")" "$p"; done
for p in "${PAGES[@]}"; do fetch "hugewarm$(page_name "$p")" "$p"; done
huge_alloptions_ok() {
  local p n b w
  for p in "${PAGES[@]}"; do
    n=$(page_name "$p")
    [ "$(cat "$WORK/hugewarm$n.status")" = 200 ] || { echo "  $p: HTTP $(cat "$WORK/hugewarm$n.status")"; return 1; }
    cmp -s "$WORK/hugebase$n.body" "$WORK/hugewarm$n.body" || { echo "  $p differs from the page without the drop-in"; return 1; }
    b=$(cat "$WORK/hugebase$n.queries")
    w=$(cat "$WORK/hugewarm$n.queries")
    echo "  $p: $b queries without the drop-in, $(cat "$WORK/hugecold$n.queries") cold, $w warm"
    [ -n "$w" ] && [ -n "$b" ] && [ "$w" -le "$b" ] || return 1
  done
}
check "alloptions refused by shared memory: same pages, never more queries than without the drop-in" huge_alloptions_ok
check "alloptions refused by shared memory: no PHP errors in the logs" clean_logs
logged_once() {
  local n
  n=$(tail -c +"$((debug_log_start + 1))" "$WP_STACK_DEBUG_LOG" | grep -c 'options:alloptions not kept in shared memory' || true)
  echo "  $n log lines for options:alloptions over $((${#PAGES[@]} * 2)) pages"
  [ "$n" = 1 ]
}
check "the refused alloptions is logged once" logged_once
wp_stack_eval 'delete_option("shmcache_e2e_huge");'
WP_STACK_FPM_ARGS="" wp_stack_start >/dev/null

# ------------------------------------------------------------------- fallback: no extension
log "fallback: PHP-FPM without the extension, drop-in still in place"
fpm_log_start=$(stat -c %s "$WP_STACK_FPM_LOG" 2>/dev/null || echo 0)
debug_log_start=$(stat -c %s "$WP_STACK_DEBUG_LOG" 2>/dev/null || echo 0)
WP_STACK_SHMCACHE=0 wp_stack_start
for p in "${PAGES[@]}"; do fetch "noext$(page_name "$p")" "$p"; done
fallback_ok() {
  local p n
  for p in "${PAGES[@]}"; do
    n=$(page_name "$p")
    [ "$(cat "$WORK/noext$n.status")" = 200 ] || { echo "  $p: HTTP $(cat "$WORK/noext$n.status")"; return 1; }
    cmp -s "$WORK/base$n.body" "$WORK/noext$n.body" || { echo "  $p differs on the fallback"; return 1; }
    [ "$(cat "$WORK/noext$n.queries")" = "$(cat "$WORK/base$n.queries")" ] ||
      { echo "  $p: $(cat "$WORK/noext$n.queries") queries, $(cat "$WORK/base$n.queries") without a drop-in"; return 1; }
  done
}
check "without the extension the site works like core (same pages, same queries)" fallback_ok
check "no PHP errors in the logs on the fallback" clean_logs
WP_STACK_SHMCACHE=1 wp_stack_start >/dev/null

echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
