#!/usr/bin/env bash
# Tiered mode under WordPress: two web servers of one site, one MariaDB, one redis-server.
# Server A is the harness stack (scripts/wp-stack.sh: nginx 127.0.0.21:8121, PHP-FPM, MariaDB,
# WordPress with the object-cache drop-in); server B is a second PHP-FPM master (its own region)
# behind a second nginx (127.0.0.31:8131) serving the same WordPress and database. Both have
# shmcache.redis pointing at this script's redis-server; so has the CLI that edits (WP-CLI's way
# in: wp-load.php in the PHP CLI, with its own region).
#
#  - a post read on both servers (cached near on both), then retitled from the CLI: the next
#    page on every worker of B and of A shows the new title;
#  - the site renamed from the CLI (an autoloaded option): B's pages show the new name;
#  - the object cache served B's pages from its near copy (near hits); Redis round trips per
#    warm page are printed (a figure, not a check);
#  - Tools → shmcache shows the tier's counters.
#
# Ends with "N passed, N failed". Stops what it started (the stack's services too).
export WP_STACK_IP=${WP_STACK_IP:-127.0.0.21}
export WP_PORT=${WP_PORT:-8121}
B_IP=${TIER_B_IP:-127.0.0.31}
B_PORT=${TIER_B_PORT:-8131}
source "$(dirname "$0")/common.sh"
export WP_STACK_DIR=${WP_STACK_DIR:-$ROOT/target/wp-stack-tier}
REDIS_DIR="$WP_STACK_DIR-redis"
mkdir -p "$REDIS_DIR"
REDIS_SOCK="$REDIS_DIR/redis.sock"
TIER_INI="-d shmcache.redis=unix://$REDIS_SOCK -d shmcache.redis_prefix=wp:"
export WP_STACK_FPM_ARGS="$TIER_INI"
export WP_FPM_WORKERS=3
source "$ROOT/scripts/wp-stack.sh"
set +eu +o pipefail

apt_need redis-server redis-tools curl
build_release >/dev/null

B_DIR="$WP_STACK_DIR/server-b"
REDIS_PID=""
cleanup() {
  [ -f "$B_DIR/nginx.pid" ] && kill "$(cat "$B_DIR/nginx.pid")" 2>/dev/null
  [ -f "$B_DIR/php-fpm.pid" ] && kill "$(cat "$B_DIR/php-fpm.pid")" 2>/dev/null
  wp_stack_stop >/dev/null 2>&1
  [ -n "$REDIS_PID" ] && kill "$REDIS_PID" 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT TERM

rm -f "$REDIS_SOCK"
redis-server --port 0 --unixsocket "$REDIS_SOCK" --unixsocketperm 770 --save "" --appendonly no \
  --logfile "$REDIS_DIR/redis.log" &
REDIS_PID=$!
for _ in $(seq 100); do redis-cli -s "$REDIS_SOCK" ping >/dev/null 2>&1 && break; sleep 0.05; done

if ! wp_stack_start >/dev/null; then
  echo "FAIL: the WordPress stack did not start"
  echo "0 passed, 1 failed"
  exit 0
fi
wp_stack_dropin on >/dev/null

# ------------------------------------------------------------------ server B
mkdir -p "$B_DIR"
sed -e "s#^pid = .*#pid = $B_DIR/php-fpm.pid#" -e "s#^error_log = .*#error_log = $B_DIR/php-fpm.log#" \
  -e "s#^listen = .*#listen = $B_DIR/php-fpm.sock#" "$WP_STACK_CONF/php-fpm.conf" >"$B_DIR/php-fpm.conf"
# B's nginx hands WordPress the site's own host name (else it would redirect to A's address).
sed -e "/HTTP_HOST/d" "$WP_STACK_CONF/fastcgi_params" >"$B_DIR/fastcgi_params"
printf 'fastcgi_param  HTTP_HOST          %s;\n' "$WP_STACK_HOST" >>"$B_DIR/fastcgi_params"
sed -e "s#listen $WP_STACK_IP:$WP_PORT;#listen $B_IP:$B_PORT;#" -e "s#^pid .*#pid $B_DIR/nginx.pid;#" \
  -e "s#$WP_STACK_FPM_SOCKET#$B_DIR/php-fpm.sock#g" -e "s#$WP_STACK_CONF/fastcgi_params#$B_DIR/fastcgi_params#g" \
  -e "s#$WP_STACK_LOGS/nginx-#$B_DIR/nginx-#g" "$WP_STACK_CONF/nginx.conf" >"$B_DIR/nginx.conf"
# shellcheck disable=SC2086 # the tier settings are several -d arguments
PHP_INI_SCAN_DIR="$WP_STACK_CONF/php-conf.d" php-fpm8.2 -R -c "$WP_STACK_PHP_FPM_INI" -y "$B_DIR/php-fpm.conf" -D \
  -d "extension=$WP_STACK_SO" $TIER_INI
nginx -p "$WP_STACK_DIR/nginx/" -e "$B_DIR/nginx-error.log" -c "$B_DIR/nginx.conf"
for _ in $(seq 100); do curl -s -o /dev/null "http://$B_IP:$B_PORT/" && break; sleep 0.1; done

A="http://$WP_STACK_HOST"
B="http://$B_IP:$B_PORT"
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
echo "Redis round trips per warm single-post page on B: $(php -r "echo round(($after - $before) / 30, 2);")"
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
