#!/usr/bin/env bash
# A real WordPress site (Debian's wordpress 6.1 package) for testing and benchmarking the
# shmcache object-cache drop-in: MariaDB + PHP-FPM (shmcache loaded in the FPM master) + nginx,
# all private to this checkout, under target/wp-stack/. Nothing is installed as a system service
# and the system's /var/lib/wordpress is not touched; the only file written outside the checkout
# is /etc/wordpress/config-127.0.0.1.php (a one-line loader for the harness's config).
#
#   bash scripts/wp-stack.sh start        install packages, start MariaDB, PHP-FPM and nginx, and
#                                         install the site + its content the first time (idempotent:
#                                         a running stack is left alone; an FPM started with other
#                                         settings, e.g. WP_STACK_SHMCACHE, is restarted)
#   bash scripts/wp-stack.sh stop         stop the three services (pid files), keep site and DB
#   bash scripts/wp-stack.sh restart      stop + start
#   bash scripts/wp-stack.sh status       which services are up (exit 1 when not all are)
#   bash scripts/wp-stack.sh url          the base URL, e.g. http://127.0.0.1:8089
#   bash scripts/wp-stack.sh env          shell exports: eval "$(bash scripts/wp-stack.sh env)"
#   bash scripts/wp-stack.sh dropin on|off|status
#                                         symlink wordpress/object-cache.php into the site's
#                                         content dir / remove it (takes effect on the next request)
#   bash scripts/wp-stack.sh pagecache on|off|status
#                                         page cache: symlink wordpress/advanced-cache.php into the
#                                         content dir, the purge hooks (wordpress/shmcache-plugin/
#                                         includes/page-cache.php) into mu-plugins, and turn WP_CACHE
#                                         on (flag file conf/pagecache-on, read by the generated
#                                         config); `on` also empties the FPM cache (when FPM has
#                                         the extension). Off by default.
#   bash scripts/wp-stack.sh disable on|off|status
#                                         define SHMCACHE_DISABLE in the site's config (flag file
#                                         conf/shmcache-disable): the drop-in falls back to a
#                                         per-request cache
#   bash scripts/wp-stack.sh flush        empty the shared cache: shmcache_flush() in an FPM worker
#   bash scripts/wp-stack.sh restart-fpm  restart PHP-FPM only (new region = empty cache, fresh
#                                         opcache; picks up a rebuilt .so and WP_STACK_SHMCACHE)
#   bash scripts/wp-stack.sh probe        JSON from an FPM worker: pid, shmcache loaded, shmcache_info()
#   bash scripts/wp-stack.sh eval 'PHP'   run PHP code in the CLI with the site loaded
#   bash scripts/wp-stack.sh mysql [...]  MariaDB client on the site's database
#   bash scripts/wp-stack.sh reset        stop and delete target/wp-stack (the next start reinstalls)
#
# Settings (environment):
#   WP_PORT            nginx port on 127.0.0.1 (default 8089)
#   WP_FPM_WORKERS     PHP-FPM workers, pm=static (default 4)
#   WP_STACK_SHMCACHE  1 (default): FPM master loads target/release/libshmcache.so; 0: without it
#   WP_STACK_FPM_ARGS  extra php-fpm arguments, e.g. "-d shmcache.values_memory_size=128M"
#   WP_STACK_DIR       where everything lives (default $ROOT/target/wp-stack)
#   WP_STACK_MULTISITE 1: a multisite network (subdirectories: the main site at /, a second site at
#                      /second/, three posts each) instead of the 300-post single site; give it
#                      its own WP_STACK_DIR (and IP/port when a single-site stack runs too)
#   WP_STACK_REGION    empty (default): the FPM master's anonymous region, which CLI scripts cannot
#                      reach; a name (or absolute path): the pool gets
#                      php_admin_value[shmcache.region] (and shmcache.region_user=root, the pool's
#                      user) and `eval` passes the same to the CLI, so both share one cache
#
# Sourcing it (`source scripts/wp-stack.sh`) defines the wp_stack_* functions (wp_stack_start,
# wp_stack_stop, wp_stack_status, wp_stack_env, wp_stack_dropin on|off, wp_stack_pagecache on|off,
# wp_stack_disable on|off, wp_stack_flush,
# wp_stack_restart_fpm, wp_stack_probe, wp_stack_eval, wp_stack_mysql, ...) and the WP_STACK_*
# variables, without running anything. Like every script here it sources common.sh, which turns
# on `set -euo pipefail`.
#
# Host name logic: Debian's /usr/share/wordpress/wp-config.php takes $_SERVER['HTTP_HOST'], drops
# the ":port" and loads /etc/wordpress/config-<host>.php. Requests to http://127.0.0.1:PORT carry
# "Host: 127.0.0.1:PORT", so the file is /etc/wordpress/config-127.0.0.1.php; CLI scripts must set
# $_SERVER['HTTP_HOST'] = "127.0.0.1:PORT" ($WP_STACK_HOST) before loading wp-load.php, which
# wordpress/tests/bootstrap-wp.php does. (A request for "localhost:PORT" would look for
# config-localhost.php and get Debian's 404: use 127.0.0.1.)

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
source "$(dirname "${BASH_SOURCE[0]}")/lib/fpm.sh"

# ------------------------------------------------------------------------------------- settings
WP_PORT=${WP_PORT:-8089}
WP_FPM_WORKERS=${WP_FPM_WORKERS:-4}
WP_STACK_SHMCACHE=${WP_STACK_SHMCACHE:-1}
WP_STACK_FPM_ARGS=${WP_STACK_FPM_ARGS:-}
WP_STACK_DIR=${WP_STACK_DIR:-$ROOT/target/wp-stack}
WP_STACK_MULTISITE=${WP_STACK_MULTISITE:-0}
WP_STACK_REGION=${WP_STACK_REGION:-}
WP_PATH=/usr/share/wordpress
# Loopback address of this stack: a second checkout (or a second helper) runs its own stack on
# another one, e.g. WP_STACK_IP=127.0.0.2 WP_PORT=8090, with its own /etc/wordpress config file.
WP_STACK_IP=${WP_STACK_IP:-127.0.0.1}
WP_STACK_HOST="$WP_STACK_IP:$WP_PORT"
# WP_STACK_PRODUCTION=1: WP_DEBUG and SAVEQUERIES off, as on a production site (benchmarks).
WP_STACK_DEBUG=$([ "${WP_STACK_PRODUCTION:-0}" = 1 ] && echo false || echo true)
WP_STACK_URL="http://$WP_STACK_HOST"
WP_STACK_CONTENT="$WP_STACK_DIR/wp-content"
WP_STACK_RUN="$WP_STACK_DIR/run"
WP_STACK_LOGS="$WP_STACK_DIR/logs"
WP_STACK_CONF="$WP_STACK_DIR/conf"
WP_STACK_STATE="$WP_STACK_DIR/state"
WP_STACK_DATADIR="$WP_STACK_DIR/mysql"
WP_STACK_MYSQL_SOCKET="$WP_STACK_RUN/mysqld.sock"
WP_STACK_FPM_SOCKET="$WP_STACK_RUN/php-fpm.sock"
WP_STACK_FPM_LOG="$WP_STACK_LOGS/php-fpm.log"
WP_STACK_DEBUG_LOG="$WP_STACK_LOGS/wp-debug.log"
WP_STACK_NGINX_ERROR_LOG="$WP_STACK_LOGS/nginx-error.log"
WP_STACK_NGINX_ACCESS_LOG="$WP_STACK_LOGS/nginx-access.log"
WP_STACK_MYSQL_LOG="$WP_STACK_LOGS/mariadb.log"
WP_STACK_BOOTSTRAP="$ROOT/wordpress/tests/bootstrap-wp.php"
WP_STACK_DROPIN_SRC="$ROOT/wordpress/object-cache.php"
WP_STACK_PAGECACHE_SRC="$ROOT/wordpress/advanced-cache.php"
WP_STACK_PAGECACHE_HOOKS_SRC="$ROOT/wordpress/shmcache-plugin/includes/page-cache.php"
WP_STACK_PAGECACHE_FLAG="$WP_STACK_CONF/pagecache-on"
WP_STACK_DISABLE_FLAG="$WP_STACK_CONF/shmcache-disable"
WP_STACK_MULTISITE_FLAG="$WP_STACK_CONF/multisite-on"
WP_STACK_SO="$WP_STACK_DIR/lib/libshmcache.so" # private copy of $SO that FPM loads
WP_STACK_ETC_CONFIG=/etc/wordpress/config-$WP_STACK_IP.php
WP_STACK_DB_NAME=wordpress
WP_STACK_DB_USER=wp
WP_STACK_DB_PASSWORD=wp
# The PHP it runs on: common.sh's PHP_VER (8.2, or SHMCACHE_PHP_VERSION's in another PHP's chroot).
WP_STACK_PHP_FPM=php-fpm$PHP_VER
WP_STACK_PHP_FPM_INI=/etc/php/$PHP_VER/fpm/php.ini
WP_STACK_PHP_FPM_CONFD=/etc/php/$PHP_VER/fpm/conf.d

# ------------------------------------------------------------------------------------- helpers
# _wps_running PID: true while PID exists and is not a zombie (the daemons are reparented to
# PID 1, which may reap them only a while after they exit).
_wps_running() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [ "${stat%% *}" != Z ]
}

# _wps_pid_alive PIDFILE COMM: true when the pid in PIDFILE is a live process named COMM*.
_wps_pid_alive() {
  local pid
  [ -s "$1" ] || return 1
  pid=$(tr -dc '0-9' <"$1")
  [ -n "$pid" ] && _wps_running "$pid" || return 1
  case "$(cat "/proc/$pid/comm" 2>/dev/null)" in "$2"*) return 0 ;; *) return 1 ;; esac
}

# _wps_kill_wait PIDFILE COMM NAME [SECONDS]: SIGTERM, wait, SIGKILL after SECONDS (default 30).
_wps_kill_wait() {
  local pidfile=$1 comm=$2 name=$3 secs=${4:-30} pid i
  if ! _wps_pid_alive "$pidfile" "$comm"; then
    rm -f "$pidfile"
    return 0
  fi
  pid=$(tr -dc '0-9' <"$pidfile")
  log "stopping $name (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < secs * 20; i++)); do
    _wps_running "$pid" || break
    sleep 0.05
  done
  if _wps_running "$pid"; then
    echo "wp-stack: $name (pid $pid) did not stop in ${secs}s: SIGKILL" >&2
    kill -KILL "$pid" 2>/dev/null || true
    sleep 0.2
  fi
  rm -f "$pidfile"
}

_wps_mysql_root() { mariadb --no-defaults --socket="$WP_STACK_MYSQL_SOCKET" -uroot "$@"; }

# _wps_http PATH [CURL-ARGS...]: body of GET $WP_STACK_URL$PATH (fails on HTTP errors).
_wps_http() {
  local path=$1
  shift
  curl -fsS --max-time 60 "$@" "$WP_STACK_URL$path"
}

_wps_tail() { # _wps_tail FILE...: last lines of logs, for failures
  local f
  for f in "$@"; do
    [ -s "$f" ] || continue
    echo "---- tail $f" >&2
    tail -n 30 "$f" >&2
  done
}

# ------------------------------------------------------------------------------------- packages
wp_stack_install_packages() {
  # Order matters: with nginx (an httpd) and php-fpm + the php metapackage already installed,
  # wordpress's "apache2 | httpd" and "libapache2-mod-php | php" are satisfied and apt does not
  # pull Apache in. Services are not started by the packages (policy-rc.d; see below).
  local made_policy=0
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
    chmod +x /usr/sbin/policy-rc.d
    made_policy=1
  fi
  apt_need nginx "php$PHP_VER-cli" "php$PHP_VER-fpm" "php$PHP_VER" php "php$PHP_VER-mysql" mariadb-server curl
  apt_need wordpress wordpress-theme-twentytwentythree
  # Debian 12's PHPUnit (9.6) runs the WordPress tests here; trixie's is 11, which WordPress's
  # test framework does not support (scripts/wp-core-cache-suite.sh brings a 9.6 into its chroot).
  [ "$PHP_VER" != 8.2 ] || apt_need phpunit
  [ "$made_policy" = 0 ] || rm -f /usr/sbin/policy-rc.d
}

# ------------------------------------------------------------------------------------- layout
wp_stack_layout() {
  mkdir -p "$WP_STACK_RUN" "$WP_STACK_LOGS" "$WP_STACK_CONF" "$WP_STACK_STATE" "$WP_STACK_DIR/lib" \
    "$WP_STACK_DIR/nginx" "$WP_STACK_CONTENT"/{themes,plugins,mu-plugins,uploads,upgrade,languages}
  # Default themes (Debian ships them in /usr/share/wordpress/wp-content/themes): symlinked.
  local t
  for t in "$WP_PATH"/wp-content/themes/*/; do
    [ -d "$t" ] || continue
    t=${t%/}
    [ -e "$WP_STACK_CONTENT/themes/$(basename "$t")" ] || ln -s "$t" "$WP_STACK_CONTENT/themes/$(basename "$t")"
  done
  if [ ! -e "$WP_STACK_CONTENT/themes/twentytwentythree/style.css" ]; then
    echo "wp-stack: theme twentytwentythree is missing (package wordpress-theme-twentytwentythree)" >&2
    return 1
  fi
  [ -e "$WP_STACK_CONTENT/index.php" ] || printf '<?php\n// Silence is golden.\n' >"$WP_STACK_CONTENT/index.php"
  ln -sfn "$ROOT/wordpress/stack/shmcache-test-harness.php" "$WP_STACK_CONTENT/mu-plugins/shmcache-test-harness.php"
  touch "$WP_STACK_DEBUG_LOG"
}

# ------------------------------------------------------------------------------------- configs
wp_stack_write_wp_config() {
  local salts="$WP_STACK_CONF/wp-salts.php"
  if [ ! -s "$salts" ]; then
    php -n -r '
      echo "<?php\n// Generated once by scripts/wp-stack.sh.\n";
      foreach (["AUTH_KEY","SECURE_AUTH_KEY","LOGGED_IN_KEY","NONCE_KEY","AUTH_SALT","SECURE_AUTH_SALT","LOGGED_IN_SALT","NONCE_SALT"] as $k) {
        echo "define(" . var_export($k, true) . ", " . var_export(bin2hex(random_bytes(32)), true) . ");\n";
      }' >"$salts.tmp"
    mv "$salts.tmp" "$salts"
  fi
  cat >"$WP_STACK_CONF/wp-config-stack.php.tmp" <<EOF
<?php
// The harness site's configuration, regenerated by scripts/wp-stack.sh at every start.
// Loaded by $WP_STACK_ETC_CONFIG, which Debian's wp-config.php picks for the host 127.0.0.1.
// WP_CACHE_KEY_SALT is deliberately left undefined: the object-cache drop-in derives one.
define('DB_NAME', '$WP_STACK_DB_NAME');
define('DB_USER', '$WP_STACK_DB_USER');
define('DB_PASSWORD', '$WP_STACK_DB_PASSWORD');
define('DB_HOST', 'localhost:$WP_STACK_MYSQL_SOCKET');
define('DB_CHARSET', 'utf8mb4');
define('DB_COLLATE', '');
\$table_prefix = 'wp_';
require __DIR__ . '/wp-salts.php';
define('WP_HOME', '$WP_STACK_URL');
define('WP_SITEURL', '$WP_STACK_URL');
define('WP_CONTENT_DIR', '$WP_STACK_CONTENT');
define('WP_CONTENT_URL', '$WP_STACK_URL/wp-content');
define('DISABLE_WP_CRON', true);
define('WP_DEBUG', $WP_STACK_DEBUG);
define('WP_DEBUG_LOG', '$WP_STACK_DEBUG_LOG');
define('WP_DEBUG_DISPLAY', false);
// Every query is recorded (query counts per request); a CLI script may define it false first.
// WP_STACK_PRODUCTION=1 (benchmarks) turns this and WP_DEBUG off.
if (!defined('SAVEQUERIES')) {
    define('SAVEQUERIES', $WP_STACK_DEBUG);
}
// No internet here: no update checks or other outgoing HTTP except to the site itself.
define('WP_HTTP_BLOCK_EXTERNAL', true);
define('AUTOMATIC_UPDATER_DISABLED', true);
// (WP_AUTO_UPDATE_CORE: Debian's wp-config.php sets it false after this file, unconditionally
// since Debian 13, where a definition here would be a warning.)
define('WP_ALLOW_MULTISITE', false);
// Settings a test adds for a while (scripts/test-pagecache.sh writes it and removes it).
if (is_file(__DIR__ . '/wp-config-extra.php')) {
    require __DIR__ . '/wp-config-extra.php';
}
// Page cache (wp-stack.sh pagecache on|off): WP_CACHE follows this flag file.
if (!defined('WP_CACHE') && is_file(__DIR__ . '/pagecache-on')) {
    define('WP_CACHE', true);
}
// wp-stack.sh disable on|off: the drop-in's SHMCACHE_DISABLE follows this flag file.
if (!defined('SHMCACHE_DISABLE') && is_file(__DIR__ . '/shmcache-disable')) {
    define('SHMCACHE_DISABLE', true);
}
// A multisite stack (WP_STACK_MULTISITE=1) turns this flag on once its network tables exist.
if (is_file(__DIR__ . '/multisite-on')) {
    define('MULTISITE', true);
    define('SUBDOMAIN_INSTALL', false);
    define('DOMAIN_CURRENT_SITE', '$WP_STACK_HOST');
    define('PATH_CURRENT_SITE', '/');
    define('SITE_ID_CURRENT_SITE', 1);
    define('BLOG_ID_CURRENT_SITE', 1);
}
EOF
  mv "$WP_STACK_CONF/wp-config-stack.php.tmp" "$WP_STACK_CONF/wp-config-stack.php"

  mkdir -p /etc/wordpress
  if [ -e "$WP_STACK_ETC_CONFIG" ] && ! grep -q 'shmcache wp-stack' "$WP_STACK_ETC_CONFIG"; then
    echo "wp-stack: $WP_STACK_ETC_CONFIG exists and was not written by wp-stack.sh; move it away" >&2
    return 1
  fi
  local want
  want=$(printf "<?php\n// shmcache wp-stack: written by %s/scripts/wp-stack.sh (any start rewrites it).\nrequire '%s';\n" \
    "$ROOT" "$WP_STACK_CONF/wp-config-stack.php")
  if [ "$(cat "$WP_STACK_ETC_CONFIG" 2>/dev/null)" != "$want" ]; then
    printf '%s\n' "$want" >"$WP_STACK_ETC_CONFIG.tmp"
    chmod 0644 "$WP_STACK_ETC_CONFIG.tmp"
    mv "$WP_STACK_ETC_CONFIG.tmp" "$WP_STACK_ETC_CONFIG"
  fi
  printf '%s\n' "$WP_STACK_HOST" >"$WP_STACK_CONF/host" # read by bootstrap-wp.php
}

wp_stack_write_fpm_config() {
  # The FPM master reads Debian's php.ini and a copy of its conf.d without any shmcache ini (an
  # `install.sh` one would load the extension a second time); the extension comes from -d.
  # Nor the other caches' extensions (phpredis, php-memcached and the igbinary and msgpack they
  # need, APCu): the benchmarks load them with -d for their own mode only, so that no other mode
  # carries them. (php-memcached's ini without igbinary's fails to load, a startup warning in
  # every log the tests check, on a machine that has Debian's php8.2-memcached.)
  local d="$WP_STACK_CONF/php-conf.d" f
  rm -rf "$d"
  mkdir -p "$d"
  for f in "$WP_STACK_PHP_FPM_CONFD"/*.ini; do
    [ -e "$f" ] || continue
    case "$(basename "$f")" in *-redis.ini | *-igbinary.ini | *-msgpack.ini | *-memcached.ini | *-apcu.ini) continue ;; esac
    grep -qi shmcache "$f" || ln -s "$(readlink -f "$f")" "$d/$(basename "$f")"
  done
  {
    echo "; Generated by scripts/wp-stack.sh."
    fpm_global "$WP_STACK_RUN/php-fpm.pid" "$WP_STACK_FPM_LOG" "daemonize = yes"
    fpm_pool wp root:root "$WP_STACK_FPM_SOCKET" "$WP_FPM_WORKERS"
    cat <<EOF
listen.mode = 0660
pm.status_path = /__wp-stack/fpm-status
ping.path = /__wp-stack/fpm-ping
request_terminate_timeout = 120s
catch_workers_output = yes
decorate_workers_output = yes
clear_env = yes
php_admin_value[error_reporting] = E_ALL
php_admin_flag[display_errors] = off
php_admin_flag[display_startup_errors] = off
php_admin_flag[log_errors] = on
; Not php_admin_value: WordPress's WP_DEBUG_LOG sets the same file with ini_set() anyway.
php_value[error_log] = $WP_STACK_DEBUG_LOG
php_admin_value[memory_limit] = 256M
; Edits of the drop-in are seen at once.
php_admin_value[opcache.revalidate_freq] = 0
EOF
  } >"$WP_STACK_CONF/php-fpm.conf"
  local setting
  while IFS= read -r setting; do
    printf 'php_admin_value[%s] = %s\n' "${setting%%=*}" "${setting#*=}" >>"$WP_STACK_CONF/php-fpm.conf"
  done < <(_wps_region_ini)
}

wp_stack_write_nginx_config() {
  mkdir -p "$WP_STACK_DIR/nginx"/{client_body,fastcgi,proxy,uwsgi,scgi}
  # Debian's /etc/nginx/fastcgi_params (since nginx 1.22.1-9+deb12u6) ends with
  # "fastcgi_param HTTP_HOST $host", which drops the port: WordPress then sees "127.0.0.1" and
  # redirects every page to http://127.0.0.1:PORT/ (a redirect loop). Our copy sends host:port.
  grep -v 'HTTP_HOST' /etc/nginx/fastcgi_params >"$WP_STACK_CONF/fastcgi_params"
  printf 'fastcgi_param  HTTP_HOST          $host:$server_port;\n' >>"$WP_STACK_CONF/fastcgi_params"
  cat >"$WP_STACK_CONF/nginx.conf" <<EOF
# Generated by scripts/wp-stack.sh.
user root root;
worker_processes 1;
pid $WP_STACK_RUN/nginx.pid;
error_log $WP_STACK_NGINX_ERROR_LOG warn;
events { worker_connections 1024; }
http {
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    log_format wpstack '\$remote_addr [\$time_local] "\$request" \$status \$body_bytes_sent '
                       'rt=\$request_time urt=\$upstream_response_time';
    access_log $WP_STACK_NGINX_ACCESS_LOG wpstack;
    client_body_temp_path $WP_STACK_DIR/nginx/client_body;
    fastcgi_temp_path $WP_STACK_DIR/nginx/fastcgi;
    proxy_temp_path $WP_STACK_DIR/nginx/proxy;
    uwsgi_temp_path $WP_STACK_DIR/nginx/uwsgi;
    scgi_temp_path $WP_STACK_DIR/nginx/scgi;
    sendfile on;
    keepalive_timeout 65;
    keepalive_requests 100000;
    server_tokens off;
    client_max_body_size 64m;
    # Whole WordPress pages fit in memory (no "buffered to a temporary file" warnings).
    fastcgi_buffer_size 64k;
    fastcgi_buffers 64 16k;
    fastcgi_read_timeout 120s;

    server {
        listen $WP_STACK_IP:$WP_PORT;
        server_name $WP_STACK_IP localhost;
        root $WP_PATH;
        index index.php;

        # The harness's own WP_CONTENT_DIR (themes symlinked from Debian's package).
        location ^~ /wp-content/ {
            alias $WP_STACK_CONTENT/;
            location ~ \.php\$ { return 403; }
        }
        # Harness probe (JSON from an FPM worker) and FPM status/ping.
        location = /__wp-stack/probe.php {
            include $WP_STACK_CONF/fastcgi_params;
            fastcgi_param SCRIPT_FILENAME $ROOT/wordpress/stack/probe.php;
            fastcgi_pass unix:$WP_STACK_FPM_SOCKET;
        }
        location ~ ^/__wp-stack/fpm-(status|ping)\$ {
            include $WP_STACK_CONF/fastcgi_params;
            fastcgi_param SCRIPT_NAME \$uri;
            fastcgi_param SCRIPT_FILENAME \$uri;
            fastcgi_pass unix:$WP_STACK_FPM_SOCKET;
        }
        # Pretty permalinks.
        location / {
            try_files \$uri \$uri/ /index.php?\$args;
        }
        location ~ \.php\$ {
            try_files \$uri =404;
            fastcgi_split_path_info ^(.+\.php)(/.+)\$;
            include $WP_STACK_CONF/fastcgi_params;
            fastcgi_param SCRIPT_FILENAME \$document_root\$fastcgi_script_name;
            fastcgi_param HTTP_PROXY "";
            fastcgi_pass unix:$WP_STACK_FPM_SOCKET;
        }
    }
}
EOF
}

# ------------------------------------------------------------------------------------- MariaDB
wp_stack_mariadb_running() { _wps_pid_alive "$WP_STACK_RUN/mysqld.pid" mariadbd; }

wp_stack_mariadb_start() {
  if wp_stack_mariadb_running; then return 0; fi
  if [ ! -d "$WP_STACK_DATADIR/mysql" ]; then
    log "initialising MariaDB datadir $WP_STACK_DATADIR"
    rm -rf "$WP_STACK_DATADIR" "$WP_STACK_STATE"/site-* "$WP_STACK_MULTISITE_FLAG"
    mkdir -p "$WP_STACK_DATADIR"
    mariadb-install-db --no-defaults --datadir="$WP_STACK_DATADIR" --user=root \
      --auth-root-authentication-method=socket --skip-test-db >"$WP_STACK_LOGS/mariadb-install.log" 2>&1 || {
      _wps_tail "$WP_STACK_LOGS/mariadb-install.log"
      return 1
    }
  fi
  log "starting MariaDB"
  rm -f "$WP_STACK_MYSQL_SOCKET"
  # innodb_flush_log_at_trx_commit=2: a test database, commits need not be durable.
  setsid mariadbd --no-defaults --user=root --datadir="$WP_STACK_DATADIR" \
    --socket="$WP_STACK_MYSQL_SOCKET" --pid-file="$WP_STACK_RUN/mysqld.pid" \
    --log-error="$WP_STACK_MYSQL_LOG" --skip-networking \
    --max-connections=100 --table-open-cache=1000 --open-files-limit=10000 \
    --innodb-buffer-pool-size=256M --innodb-flush-log-at-trx-commit=2 \
    --character-set-server=utf8mb4 --collation-server=utf8mb4_unicode_ci \
    </dev/null >>"$WP_STACK_MYSQL_LOG" 2>&1 &
  local i
  for ((i = 0; i < 300; i++)); do
    if [ -S "$WP_STACK_MYSQL_SOCKET" ] && _wps_mysql_root -e 'SELECT 1' >/dev/null 2>&1; then
      break
    fi
    sleep 0.1
  done
  if ! _wps_mysql_root -e 'SELECT 1' >/dev/null 2>&1; then
    echo "wp-stack: MariaDB did not come up" >&2
    _wps_tail "$WP_STACK_MYSQL_LOG"
    return 1
  fi
  _wps_mysql_root -e "CREATE DATABASE IF NOT EXISTS \`$WP_STACK_DB_NAME\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
    CREATE USER IF NOT EXISTS '$WP_STACK_DB_USER'@'localhost' IDENTIFIED BY '$WP_STACK_DB_PASSWORD';
    GRANT ALL PRIVILEGES ON \`$WP_STACK_DB_NAME\`.* TO '$WP_STACK_DB_USER'@'localhost';"
}

wp_stack_mariadb_stop() { _wps_kill_wait "$WP_STACK_RUN/mysqld.pid" mariadbd MariaDB 60; }

# ------------------------------------------------------------------------------------- PHP-FPM
wp_stack_fpm_running() { _wps_pid_alive "$WP_STACK_RUN/php-fpm.pid" php-fpm; }
_wps_fpm_up() { wp_stack_fpm_running && [ -S "$WP_STACK_FPM_SOCKET" ]; }

# What the running FPM was started with; a start with other settings restarts FPM.
_wps_fpm_signature() {
  local so_sum=none
  if [ "$WP_STACK_SHMCACHE" = 1 ] && [ -f "$SO" ]; then so_sum=$(sha1sum "$SO" | cut -c1-40); fi
  printf 'shmcache=%s workers=%s so=%s args=%s%s\n' "$WP_STACK_SHMCACHE" "$WP_FPM_WORKERS" "$so_sum" "$WP_STACK_FPM_ARGS" \
    "${WP_STACK_REGION:+ region=$WP_STACK_REGION}"
}

# The INI settings that put a process on the stack's named region (none without WP_STACK_REGION).
# The pool runs as root: region_user says whose file it is, as root never guesses in /dev/shm.
_wps_region_ini() {
  [ -n "$WP_STACK_REGION" ] || return 0
  printf '%s\n' "shmcache.region=$WP_STACK_REGION" "shmcache.region_user=root"
}

_wps_ensure_so() {
  need_so
  # A private copy: a rebuild cannot change the file under a running master.
  fpm_publish "$(dirname "$WP_STACK_SO")"
}

wp_stack_fpm_start() {
  local sig
  sig=$(_wps_fpm_signature)
  if wp_stack_fpm_running; then
    if [ "$(cat "$WP_STACK_RUN/php-fpm.sig" 2>/dev/null)" = "$sig" ]; then return 0; fi
    log "PHP-FPM runs with other settings ($(cat "$WP_STACK_RUN/php-fpm.sig" 2>/dev/null)): restarting it"
    wp_stack_fpm_stop
  fi
  local args=(-R -c "$WP_STACK_PHP_FPM_INI" -y "$WP_STACK_CONF/php-fpm.conf" -D)
  if [ "$WP_STACK_SHMCACHE" = 1 ]; then
    _wps_ensure_so
    args+=(-d "extension=$WP_STACK_SO")
  fi
  # shellcheck disable=SC2206 # word splitting of the extra arguments is intended
  [ -z "$WP_STACK_FPM_ARGS" ] || args+=($WP_STACK_FPM_ARGS)
  wp_stack_write_fpm_config
  log "starting PHP-FPM ($WP_FPM_WORKERS workers, shmcache=$WP_STACK_SHMCACHE)"
  rm -f "$WP_STACK_FPM_SOCKET"
  if ! PHP_INI_SCAN_DIR="$WP_STACK_CONF/php-conf.d" "$WP_STACK_PHP_FPM" "${args[@]}" >>"$WP_STACK_FPM_LOG" 2>&1; then
    echo "wp-stack: $WP_STACK_PHP_FPM ${args[*]} failed" >&2
    _wps_tail "$WP_STACK_FPM_LOG"
    return 1
  fi
  # -D returns as the master forks: its pid file and socket come a moment later.
  fpm_wait _wps_fpm_up || true
  if ! wp_stack_fpm_running; then
    echo "wp-stack: PHP-FPM did not come up" >&2
    _wps_tail "$WP_STACK_FPM_LOG"
    return 1
  fi
  printf '%s\n' "$sig" >"$WP_STACK_RUN/php-fpm.sig"
}

wp_stack_fpm_stop() {
  _wps_kill_wait "$WP_STACK_RUN/php-fpm.pid" php-fpm PHP-FPM 30
  rm -f "$WP_STACK_RUN/php-fpm.sig" "$WP_STACK_FPM_SOCKET"
}

# ------------------------------------------------------------------------------------- nginx
wp_stack_nginx_running() { _wps_pid_alive "$WP_STACK_RUN/nginx.pid" nginx; }

_wps_nginx() { nginx -p "$WP_STACK_DIR/nginx/" -e "$WP_STACK_NGINX_ERROR_LOG" -c "$WP_STACK_CONF/nginx.conf" "$@"; }

wp_stack_nginx_start() {
  if wp_stack_nginx_running; then return 0; fi
  wp_stack_write_nginx_config
  if ! _wps_nginx -t -q; then
    echo "wp-stack: nginx configuration test failed ($WP_STACK_CONF/nginx.conf)" >&2
    return 1
  fi
  log "starting nginx on $WP_STACK_IP:$WP_PORT"
  if ! _wps_nginx; then
    _wps_tail "$WP_STACK_NGINX_ERROR_LOG"
    echo "wp-stack: nginx did not start (is port $WP_PORT in use? set WP_PORT)" >&2
    return 1
  fi
  local i
  for ((i = 0; i < 50; i++)); do
    wp_stack_nginx_running && break
    sleep 0.1
  done
  wp_stack_nginx_running
}

wp_stack_nginx_stop() { _wps_kill_wait "$WP_STACK_RUN/nginx.pid" nginx nginx 30; }

# ------------------------------------------------------------------------------------- site
# wp_stack_php_cli ARGS...: the PHP CLI as the harness scripts use it (no shmcache).
wp_stack_php_cli() {
  WP_STACK_HOST="$WP_STACK_HOST" php -d memory_limit=1G "$@"
}

wp_stack_site_install() {
  if [ ! -e "$WP_STACK_STATE/site-installed" ]; then
    log "installing WordPress (admin/admin)"
    local t0=$SECONDS
    wp_stack_php_cli "$ROOT/wordpress/stack/install-site.php" install 2>&1 | tee "$WP_STACK_LOGS/install.log" >&2
    touch "$WP_STACK_STATE/site-installed"
    log "installed in $((SECONDS - t0))s"
  fi
  if [ "$WP_STACK_MULTISITE" = 1 ]; then
    if [ ! -e "$WP_STACK_MULTISITE_FLAG" ]; then
      log "turning the site into a network"
      wp_stack_php_cli "$ROOT/wordpress/stack/install-site.php" network 2>&1 | tee -a "$WP_STACK_LOGS/install.log" >&2
      touch "$WP_STACK_MULTISITE_FLAG"
    fi
    if [ ! -e "$WP_STACK_STATE/site-content" ]; then
      # (WordPress's "not installed" page exits with status 0: the last line says it worked.)
      wp_stack_php_cli "$ROOT/wordpress/stack/install-site.php" sites 2>&1 | tee -a "$WP_STACK_LOGS/install.log" >&2
      if ! tail -n 1 "$WP_STACK_LOGS/install.log" | grep -q '^install-site.php sites: done'; then
        echo "wp-stack: creating the network's sites failed (see $WP_STACK_LOGS/install.log)" >&2
        return 1
      fi
      touch "$WP_STACK_STATE/site-content"
    fi
    return 0
  fi
  if [ -e "$WP_STACK_MULTISITE_FLAG" ]; then
    echo "wp-stack: $WP_STACK_DIR holds a multisite network: use WP_STACK_MULTISITE=1 or another WP_STACK_DIR" >&2
    return 1
  fi
  if [ ! -e "$WP_STACK_STATE/site-content" ]; then
    log "generating content (300 posts, 5 pages, 1000 comments)"
    local t0=$SECONDS
    wp_stack_php_cli "$ROOT/wordpress/stack/install-site.php" content 2>&1 | tee -a "$WP_STACK_LOGS/install.log" >&2
    touch "$WP_STACK_STATE/site-content"
    log "content generated in $((SECONDS - t0))s"
  fi
}

# Checks that the site answers and that FPM workers have (or lack) the extension as asked.
wp_stack_verify() {
  local probe
  if ! probe=$(_wps_http /__wp-stack/probe.php); then
    echo "wp-stack: the probe $WP_STACK_URL/__wp-stack/probe.php does not answer" >&2
    _wps_tail "$WP_STACK_NGINX_ERROR_LOG" "$WP_STACK_FPM_LOG"
    return 1
  fi
  local loaded
  loaded=$(printf '%s' "$probe" | php -n -r '$j = json_decode(stream_get_contents(STDIN), true);
    echo ($j["shmcache_loaded"] ?? false) ? (($j["shmcache_info"]["enabled"] ?? false) ? "enabled" : "loaded") : "absent";')
  if [ "$WP_STACK_SHMCACHE" = 1 ] && [ "$loaded" != enabled ]; then
    echo "wp-stack: FPM workers report shmcache '$loaded', expected 'enabled':" >&2
    printf '%s\n' "$probe" >&2
    return 1
  fi
  if [ "$WP_STACK_SHMCACHE" != 1 ] && [ "$loaded" != absent ]; then
    echo "wp-stack: WP_STACK_SHMCACHE=0 but FPM workers have shmcache ($loaded)" >&2
    return 1
  fi
}

# ------------------------------------------------------------------------------------- commands
wp_stack_start() {
  if wp_stack_mariadb_running && wp_stack_fpm_running && wp_stack_nginx_running \
    && [ -e "$WP_STACK_STATE/site-content" ] \
    && [ "$(cat "$WP_STACK_RUN/php-fpm.sig" 2>/dev/null)" = "$(_wps_fpm_signature)" ]; then
    return 0 # already running as asked
  fi
  wp_stack_install_packages
  wp_stack_layout
  wp_stack_write_wp_config
  wp_stack_mariadb_start
  wp_stack_fpm_start
  wp_stack_nginx_start
  wp_stack_site_install
  wp_stack_verify
  log "WordPress is up at $WP_STACK_URL (shmcache in FPM: $WP_STACK_SHMCACHE, drop-in: $(wp_stack_dropin status))"
}

wp_stack_stop() {
  wp_stack_nginx_stop
  wp_stack_fpm_stop
  wp_stack_mariadb_stop
}

wp_stack_restart_fpm() {
  wp_stack_fpm_stop
  wp_stack_fpm_start
  wp_stack_verify
}

wp_stack_status() {
  local ok=0 s
  for s in mariadb fpm nginx; do
    if "wp_stack_${s}_running"; then
      local pidf
      case $s in mariadb) pidf=mysqld.pid ;; fpm) pidf=php-fpm.pid ;; nginx) pidf=nginx.pid ;; esac
      printf '%-8s up (pid %s)\n' "$s" "$(cat "$WP_STACK_RUN/$pidf")"
    else
      printf '%-8s down\n' "$s"
      ok=1
    fi
  done
  if wp_stack_fpm_running; then printf '%-8s %s\n' fpm-sig "$(cat "$WP_STACK_RUN/php-fpm.sig" 2>/dev/null)"; fi
  printf '%-8s %s\n' site "$([ -e "$WP_STACK_STATE/site-content" ] && echo installed || echo 'not installed')"
  printf '%-8s %s\n' dropin "$(wp_stack_dropin status)"
  printf '%-8s %s\n' pagecache "$(wp_stack_pagecache status)"
  printf '%-8s %s\n' url "$WP_STACK_URL"
  return $ok
}

wp_stack_url() { echo "$WP_STACK_URL"; }

wp_stack_env() {
  local v
  for v in WP_STACK_URL WP_STACK_HOST WP_PORT WP_STACK_DIR WP_STACK_CONTENT WP_STACK_MYSQL_SOCKET \
    WP_STACK_FPM_SOCKET WP_STACK_FPM_LOG WP_STACK_DEBUG_LOG WP_STACK_NGINX_ERROR_LOG \
    WP_STACK_NGINX_ACCESS_LOG WP_STACK_MYSQL_LOG WP_STACK_BOOTSTRAP WP_STACK_SO WP_PATH \
    WP_STACK_DB_NAME WP_STACK_DB_USER WP_STACK_DB_PASSWORD WP_STACK_REGION; do
    printf 'export %s=%q\n' "$v" "${!v}"
  done
}

# wp_stack_dropin on|off|status
wp_stack_dropin() {
  local target="$WP_STACK_CONTENT/object-cache.php"
  case "${1:-status}" in
    on)
      if [ ! -f "$WP_STACK_DROPIN_SRC" ]; then
        echo "wp-stack: $WP_STACK_DROPIN_SRC does not exist" >&2
        return 1
      fi
      mkdir -p "$WP_STACK_CONTENT"
      ln -sfn "$WP_STACK_DROPIN_SRC" "$target"
      ;;
    off) rm -f "$target" ;;
    status)
      if [ -L "$target" ] || [ -e "$target" ]; then echo on; else echo off; fi
      ;;
    *)
      echo "usage: wp-stack.sh dropin on|off|status" >&2
      return 2
      ;;
  esac
}

# wp_stack_pagecache on|off|status: the page cache drop-in (advanced-cache.php), its purge hooks
# as a must-use plugin, and WP_CACHE (flag file read by the generated wp-config-stack.php).
# `on` empties the FPM cache when FPM runs: pages stored before may predate changes made while
# the purge hooks were not loaded.
wp_stack_pagecache() {
  local target="$WP_STACK_CONTENT/advanced-cache.php" hooks="$WP_STACK_CONTENT/mu-plugins/shmcache-page-cache.php"
  case "${1:-status}" in
    on)
      local f
      for f in "$WP_STACK_PAGECACHE_SRC" "$WP_STACK_PAGECACHE_HOOKS_SRC"; do
        if [ ! -f "$f" ]; then
          echo "wp-stack: $f does not exist" >&2
          return 1
        fi
      done
      mkdir -p "$WP_STACK_CONTENT/mu-plugins" "$WP_STACK_CONF"
      # A config generated before this flag existed would ignore it.
      grep -q pagecache-on "$WP_STACK_CONF/wp-config-stack.php" 2>/dev/null || wp_stack_write_wp_config
      ln -sfn "$WP_STACK_PAGECACHE_SRC" "$target"
      ln -sfn "$WP_STACK_PAGECACHE_HOOKS_SRC" "$hooks"
      touch "$WP_STACK_PAGECACHE_FLAG"
      if wp_stack_fpm_running && wp_stack_nginx_running && grep -q '^shmcache=1 ' "$WP_STACK_RUN/php-fpm.sig" 2>/dev/null; then
        wp_stack_flush
      fi
      ;;
    off) rm -f "$WP_STACK_PAGECACHE_FLAG" "$target" "$hooks" ;;
    status)
      if [ -e "$WP_STACK_PAGECACHE_FLAG" ] && { [ -L "$target" ] || [ -e "$target" ]; }; then echo on; else echo off; fi
      ;;
    *)
      echo "usage: wp-stack.sh pagecache on|off|status" >&2
      return 2
      ;;
  esac
}

# wp_stack_disable on|off|status: SHMCACHE_DISABLE (flag file read by the generated config).
wp_stack_disable() {
  case "${1:-status}" in
    on) mkdir -p "$WP_STACK_CONF" && touch "$WP_STACK_DISABLE_FLAG" ;;
    off) rm -f "$WP_STACK_DISABLE_FLAG" ;;
    status) if [ -e "$WP_STACK_DISABLE_FLAG" ]; then echo on; else echo off; fi ;;
    *)
      echo "usage: wp-stack.sh disable on|off|status" >&2
      return 2
      ;;
  esac
}

# Empties the shared region: shmcache_flush() in one FPM worker (all workers share the region).
wp_stack_flush() {
  local out
  out=$(_wps_http '/__wp-stack/probe.php?action=flush') || return 1
  if ! printf '%s' "$out" | grep -q '"flushed": true'; then
    echo "wp-stack: flush failed: $out" >&2
    return 1
  fi
}

wp_stack_probe() { _wps_http "/__wp-stack/probe.php${1:+?$1}"; }

# wp_stack_eval 'PHP CODE': runs code in the CLI after loading the site (bootstrap-wp.php).
wp_stack_eval() {
  local so_args=() setting
  if [ "$WP_STACK_SHMCACHE" = 1 ] && [ -f "$SO" ] && ! "php$PHP_VER" -m 2>/dev/null | grep -x shmcache >/dev/null; then
    so_args=(-d "extension=$SO" -d shmcache.enable_cli=1)
  fi
  # With WP_STACK_REGION the CLI opens the pool's region (enable_cli is then not needed).
  while IFS= read -r setting; do so_args+=(-d "$setting"); done < <(_wps_region_ini)
  WP_STACK_HOST="$WP_STACK_HOST" "php$PHP_VER" "${so_args[@]}" -r 'require $argv[1]; eval($argv[2]);' "$WP_STACK_BOOTSTRAP" "$1"
}

wp_stack_mysql() { mariadb --no-defaults --socket="$WP_STACK_MYSQL_SOCKET" -u"$WP_STACK_DB_USER" -p"$WP_STACK_DB_PASSWORD" "$WP_STACK_DB_NAME" "$@"; }

wp_stack_reset() {
  wp_stack_stop
  log "deleting $WP_STACK_DIR"
  rm -rf "$WP_STACK_DIR"
}

# ------------------------------------------------------------------------------------- main
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  cmd=${1:-status}
  shift || true
  case "$cmd" in
    start) wp_stack_start ;;
    stop) wp_stack_stop ;;
    restart) wp_stack_stop && wp_stack_start ;;
    status) wp_stack_status ;;
    url) wp_stack_url ;;
    env) wp_stack_env ;;
    dropin) wp_stack_dropin "$@" ;;
    pagecache) wp_stack_pagecache "$@" ;;
    disable) wp_stack_disable "$@" ;;
    flush) wp_stack_flush ;;
    restart-fpm) wp_stack_restart_fpm ;;
    probe) wp_stack_probe "$@" ;;
    eval) wp_stack_eval "$@" ;;
    mysql) wp_stack_mysql "$@" ;;
    reset) wp_stack_reset ;;
    -h | --help | help) sed -n '2,/^$/p' "$0" | sed 's/^# \{0,1\}//' ;;
    *)
      echo "unknown command: $cmd (try: start stop restart status url env dropin pagecache disable flush restart-fpm probe eval mysql reset)" >&2
      exit 2
      ;;
  esac
fi
