#!/usr/bin/env bash
# Two web servers of one WordPress site, and a private redis-server: what the tiered mode's
# WordPress test (scripts/test-tier-wordpress.sh) and benchmark (bench/tier.sh) share.
# Sourced after scripts/wp-stack.sh, whose stack is server A. Server B is a second PHP-FPM
# master (its own region) behind a second nginx, serving the same WordPress files and database.
#
# Settings (environment, read when sourced):
#   TIER_B_IP, TIER_B_PORT  server B's nginx address (default 127.0.0.31:8131)
#   TIER_REDIS_DIR          where the redis-server's socket, pid file and log live
#                           (default $WP_STACK_DIR-redis)
#
# Functions:
#   tier_redis_start / tier_redis_stop   redis-server on the unix socket $TIER_REDIS_SOCK (no
#                                        port, no persistence)
#   tier_ini                             the php -d settings that put a process on the tier
#   tier_b_fpm_start [PHP-FPM-ARGS...]   server B's FPM, from server A's pool settings (start A's
#                                        FPM first), with the extension and the arguments given
#   tier_b_fpm_stop
#   tier_b_start [PHP-FPM-ARGS...]       B's FPM and nginx; returns when B answers
#   tier_b_stop
#   tier_b_fpm_pids                      B's FPM workers
TIER_B_IP=${TIER_B_IP:-127.0.0.31}
TIER_B_PORT=${TIER_B_PORT:-8131}
TIER_B_URL="http://$TIER_B_IP:$TIER_B_PORT"
TIER_B_DIR="$WP_STACK_DIR/server-b"
TIER_REDIS_DIR=${TIER_REDIS_DIR:-$WP_STACK_DIR-redis}
TIER_REDIS_SOCK="$TIER_REDIS_DIR/redis.sock"

tier_ini() { echo "-d shmcache.redis=unix://$TIER_REDIS_SOCK -d shmcache.redis_prefix=wp:"; }

tier_redis_start() {
  apt_need redis-server redis-tools
  mkdir -p "$TIER_REDIS_DIR"
  _wps_kill_wait "$TIER_REDIS_DIR/redis.pid" redis-server redis-server 30
  rm -f "$TIER_REDIS_SOCK"
  redis-server --port 0 --unixsocket "$TIER_REDIS_SOCK" --unixsocketperm 770 --save '' --appendonly no \
    --daemonize yes --pidfile "$TIER_REDIS_DIR/redis.pid" --logfile "$TIER_REDIS_DIR/redis.log" --dir "$TIER_REDIS_DIR"
  local i
  for ((i = 0; i < 100; i++)); do
    redis-cli -s "$TIER_REDIS_SOCK" ping >/dev/null 2>&1 && return 0
    sleep 0.05
  done
  echo "tier-stack: redis-server did not come up (see $TIER_REDIS_DIR/redis.log)" >&2
  return 1
}

tier_redis_stop() { _wps_kill_wait "$TIER_REDIS_DIR/redis.pid" redis-server redis-server 30; }

tier_b_fpm_start() {
  mkdir -p "$TIER_B_DIR"
  sed -e "s#^pid = .*#pid = $TIER_B_DIR/php-fpm.pid#" -e "s#^error_log = .*#error_log = $TIER_B_DIR/php-fpm.log#" \
    -e "s#^listen = .*#listen = $TIER_B_DIR/php-fpm.sock#" "$WP_STACK_CONF/php-fpm.conf" >"$TIER_B_DIR/php-fpm.conf"
  rm -f "$TIER_B_DIR/php-fpm.sock"
  PHP_INI_SCAN_DIR="$WP_STACK_CONF/php-conf.d" "$WP_STACK_PHP_FPM" -R -c "$WP_STACK_PHP_FPM_INI" \
    -y "$TIER_B_DIR/php-fpm.conf" -D -d "extension=$WP_STACK_SO" "$@" || return 1
  fpm_wait tier_b_fpm_up && return 0
  echo "tier-stack: server B's PHP-FPM did not come up (see $TIER_B_DIR/php-fpm.log)" >&2
  return 1
}

tier_b_fpm_up() { _wps_pid_alive "$TIER_B_DIR/php-fpm.pid" php-fpm && [ -S "$TIER_B_DIR/php-fpm.sock" ]; }

tier_b_fpm_stop() { _wps_kill_wait "$TIER_B_DIR/php-fpm.pid" php-fpm "PHP-FPM of server B" 30; }

tier_b_fpm_pids() { pgrep -P "$(cat "$TIER_B_DIR/php-fpm.pid")" | tr '\n' ' '; }

tier_b_start() {
  tier_b_fpm_start "$@" || return 1
  # B's nginx hands WordPress the site's own host name (else it would redirect to A's address).
  sed -e "/HTTP_HOST/d" "$WP_STACK_CONF/fastcgi_params" >"$TIER_B_DIR/fastcgi_params"
  printf 'fastcgi_param  HTTP_HOST          %s;\n' "$WP_STACK_HOST" >>"$TIER_B_DIR/fastcgi_params"
  sed -e "s#listen $WP_STACK_IP:$WP_PORT;#listen $TIER_B_IP:$TIER_B_PORT;#" -e "s#^pid .*#pid $TIER_B_DIR/nginx.pid;#" \
    -e "s#$WP_STACK_FPM_SOCKET#$TIER_B_DIR/php-fpm.sock#g" -e "s#$WP_STACK_CONF/fastcgi_params#$TIER_B_DIR/fastcgi_params#g" \
    -e "s#$WP_STACK_LOGS/nginx-#$TIER_B_DIR/nginx-#g" "$WP_STACK_CONF/nginx.conf" >"$TIER_B_DIR/nginx.conf"
  _wps_kill_wait "$TIER_B_DIR/nginx.pid" nginx "nginx of server B" 30
  nginx -p "$WP_STACK_DIR/nginx/" -e "$TIER_B_DIR/nginx-error.log" -c "$TIER_B_DIR/nginx.conf" || return 1
  local i
  for ((i = 0; i < 100; i++)); do
    curl -s -o /dev/null "$TIER_B_URL/" && return 0
    sleep 0.1
  done
  echo "tier-stack: server B does not answer at $TIER_B_URL" >&2
  return 1
}

tier_b_stop() {
  _wps_kill_wait "$TIER_B_DIR/nginx.pid" nginx "nginx of server B" 30
  tier_b_fpm_stop
}
