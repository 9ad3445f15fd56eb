#!/usr/bin/env bash
# Tiered mode under WordPress: two web servers of one site, one MariaDB, one redis-server.
# Server A is the harness stack (scripts/wp-stack.sh: nginx 127.0.0.21:8121, PHP-FPM, MariaDB,
# WordPress with the object-cache drop-in); server B is a second PHP-FPM master (its own region)
# behind a second nginx (127.0.0.31:8131) serving the same WordPress and database. Both have
# shmcache.redis pointing at this script's redis-server; so has the CLI that edits (WP-CLI's way
# in: wp-load.php in the PHP CLI, with its own region). scripts/tier-stack.sh builds server B
# (TIER_B_IP, TIER_B_PORT) and the redis-server.
#
#  - a post read on both servers (cached near on both), then retitled from the CLI: the next
#    page on every worker of B and of A shows the new title;
#  - the site renamed from the CLI (an autoloaded option): B's pages show the new name;
#  - the object cache served B's pages from its near copy (near hits), at most 2 Redis round
#    trips per warm page (Redis' own count of the tier's scripts);
#  - the page cache on both servers: a page B serves from its copy is purged there when the post
#    is edited from the CLI;
#  - Tools → shmcache shows the tier's counters;
#  - neither server's FPM loads phpredis unless asked (bench/tier.sh relies on it).
#
# Ends with "N passed, N failed". Stops what it started (the stack's services too).
export WP_STACK_IP=${WP_STACK_IP:-127.0.0.21}
export WP_PORT=${WP_PORT:-8121}
source "$(dirname "$0")/common.sh"
export WP_STACK_DIR=${WP_STACK_DIR:-$ROOT/target/wp-stack-tier}
export WP_FPM_WORKERS=3
source "$ROOT/scripts/wp-stack.sh"
source "$ROOT/scripts/tier-stack.sh"
TIER_INI=$(tier_ini)
REDIS_SOCK=$TIER_REDIS_SOCK
export WP_STACK_FPM_ARGS="$TIER_INI"
set +eu +o pipefail

apt_need curl
build_release >/dev/null

cleanup() {
  tier_b_stop >/dev/null 2>&1
  wp_stack_stop >/dev/null 2>&1
  tier_redis_stop >/dev/null 2>&1
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if ! tier_redis_start || ! wp_stack_start >/dev/null; then
  echo "FAIL: redis-server or the WordPress stack did not start"
  echo "0 passed, 1 failed"
  exit 0
fi
wp_stack_dropin on >/dev/null

# shellcheck disable=SC2086 # the tier settings are several -d arguments
if ! tier_b_start $TIER_INI >/dev/null; then
  echo "FAIL: server B did not start"
  echo "0 passed, 1 failed"
  exit 0
fi

A="http://$WP_STACK_HOST"
B=$TIER_B_URL

# The stack's FPMs load phpredis (and APCu) only when a benchmark mode asks for it with -d, even
# where Debian's php8.2-redis enabled it in the system's conf.d (bench/tier.sh compares the tier
# with Redis Object Cache on these servers: the other modes must not carry phpredis).
redis_ext() { curl -s "$1/__wp-stack/probe.php" | php -r 'echo json_encode(json_decode(stream_get_contents(STDIN), true)["redis_loaded"] ?? null);'; }
check "neither server's FPM loads phpredis unasked (A: $(redis_ext "$A"), B: $(redis_ext "$B"))" \
  test "$(redis_ext "$A") $(redis_ext "$B")" = "false false"
# cli 'PHP': code run with the site loaded, through the tier like a WP-CLI command.
cli() {
  # shellcheck disable=SC2086
  WP_STACK_HOST="$WP_STACK_HOST" php -d extension="$SO" -d shmcache.enable_cli=1 $TIER_INI \
    -r 'require $argv[1]; eval($argv[2]);' "$WP_STACK_BOOTSTRAP" "$1" 2>&1
}
title_on() { curl -s "$1$2" | grep -o '<title>[^<]*' | head -n 1 | sed 's/<title>//'; }

post_id=$(cli '$p = get_posts(["numberposts" => 1, "orderby" => "ID", "order" => "ASC"]); echo $p[0]->ID;')
path=$(cli "echo wp_make_link_relative(get_permalink($post_id));")
check "a post to work on ($post_id at $path)" test -n "$post_id"
old=$(title_on "$A" "$path")
for _ in 1 2 3 4 5 6; do title_on "$A" "$path" >/dev/null; title_on "$B" "$path" >/dev/null; done
check "both servers show it ($old)" test "$(title_on "$B" "$path")" = "$old"

new="Retitled across servers $$"
cli "wp_update_post(['ID' => $post_id, 'post_title' => '$new']);" >/dev/null
stale=0
for _ in 1 2 3 4 5 6; do
  case "$(title_on "$B" "$path")" in "$new"*) ;; *) stale=$((stale + 1)) ;; esac
  case "$(title_on "$A" "$path")" in "$new"*) ;; *) stale=$((stale + 1)) ;; esac
done
check "after the edit, every page on A and B has the new title (stale pages: $stale)" test "$stale" -eq 0

# Redis calls per warm page on B (a figure, not a check): every call of the tier is one script.
calls() { redis-cli -s "$REDIS_SOCK" info commandstats | sed -n 's/^cmdstat_evalsha:calls=\([0-9]*\).*/\1/p'; }
for _ in 1 2 3 4 5 6; do title_on "$B" "$path" >/dev/null; done
before=$(calls)
for _ in $(seq 30); do title_on "$B" "$path" >/dev/null; done
after=$(calls)
per_page=$(php -r "echo round(($after - $before) / 30, 2);")
# The issue's bound: a warm page costs one round trip (the sync); 2 leaves room for a rare
# near miss (a worker's first page after another's write).
check "Redis round trips per warm single-post page on B: $per_page (at most 2)" php -r "exit($after - $before <= 60 ? 0 : 1);"
probe_b=$(curl -s "$B/__wp-stack/probe.php")
hits=$(echo "$probe_b" | php -r '$j = json_decode(stream_get_contents(STDIN), true); echo $j["shmcache_info"]["tier_near_hits"] ?? 0;')
trips=$(echo "$probe_b" | php -r '$j = json_decode(stream_get_contents(STDIN), true); echo $j["shmcache_info"]["tier_round_trips"] ?? 0;')
echo "B's probe worker: tier_near_hits=$hits tier_round_trips=$trips"
check "B's object cache served from its near copy" test "${hits:-0}" -gt 0

# The site's name lives in the autoloaded options (one cached array): renamed from the CLI,
# every page's title on B changes.
cli "update_option('blogname', 'Tier Site $$');" >/dev/null
stale=0
for _ in 1 2 3 4 5 6; do
  case "$(title_on "$B" "$path")" in *"Tier Site $$") ;; *) stale=$((stale + 1)) ;; esac
done
check "a renamed site shows its new name on every worker of B (stale pages: $stale)" test "$stale" -eq 0
cli "update_option('blogname', 'shmcache WP Stack');" >/dev/null

# The page cache on both servers (same files: advanced-cache.php and its purge hooks): a page
# stored on B (a HIT there) is purged there too when the post is edited from the CLI, through
# the tier (the CLI's purge of its pages reaches B's near copy as invalidations).
wp_stack_pagecache on >/dev/null
xcache_on() { curl -s -D - -o /dev/null "$1$2" | tr -d '\r' | sed -n 's/^X-Cache: //Ip'; }
for _ in 1 2 3 4; do xcache_on "$B" "$path" >/dev/null; done
cached=$(xcache_on "$B" "$path")
check "the page cache serves the post on B from its copy (X-Cache: $cached)" test "$cached" = HIT
paged="Paged across servers $$"
cli "wp_update_post(['ID' => $post_id, 'post_title' => '$paged']);" >/dev/null
stale=0
for _ in 1 2 3 4; do
  case "$(title_on "$B" "$path")" in "$paged"*) ;; *) stale=$((stale + 1)) ;; esac
done
check "after an edit from the CLI, B's page cache serves the new title (stale pages: $stale)" test "$stale" -eq 0
wp_stack_pagecache off >/dev/null

# Tools → shmcache (rendered in the CLI, which runs with the tier too) shows the tier's rows.
screen=$(cli "wp_set_current_user(1);
  if (!function_exists('shmcache_plugin_render_admin_page')) { require_once '$ROOT/wordpress/shmcache-plugin/shmcache.php'; }
  require_once ABSPATH . 'wp-admin/includes/plugin.php';
  shmcache_plugin_render_admin_page();")
tier_rows=0
for row in tier_redis tier_near_hit_rate tier_round_trips tier_invalidations_applied tier_untrusted_requests; do
  case "$screen" in *"data-counter=\"$row\""*) tier_rows=$((tier_rows + 1)) ;; esac
done
check "Tools → shmcache shows the tier's counters ($tier_rows of 5 rows)" test "$tier_rows" -eq 5

echo "$passed passed, $failed failed"
