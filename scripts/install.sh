#!/usr/bin/env bash
# Installs shmcache for PHP 8.2 (Debian/Ubuntu layout) and enables it for the CLI and PHP-FPM; for
# another PHP of that layout, name it: SHMCACHE_PHP_VERSION=8.4 (built against php-config8.4 in
# target/php8.4, installed under /etc/php/8.4).
# Running it again changes nothing that is already in place; --uninstall reverses it.
#
#   sudo scripts/install.sh              build (release), install the .so, write and enable the ini,
#                                        give each FPM pool a named region (and the CLI, with one pool)
#   sudo scripts/install.sh --uninstall  disable, remove the ini, the pools' region lines and the .so
#
# Overridable, e.g. to try it in a scratch directory:
#   PHP_CONF_DIR  (default /etc/php/8.2, 8.2 being the PHP version)  where mods-available/ and <sapi>/conf.d/ are
#   EXT_DIR       (default `php-config8.2 --extension-dir`)  where the .so goes
#   SHMCACHE_SO   a library built already, installed as it is (no build)
#   SHMCACHE_REGIONS=0  leave the pool files alone (every pool then shares the master's anonymous
#                       region, which the CLI cannot reach)
source "$(dirname "$0")/common.sh"

# PHP_VER: common.sh's, 8.2 unless SHMCACHE_PHP_VERSION says otherwise.
DEFAULT_CONF_DIR=/etc/php/$PHP_VER
PHP_CONF_DIR=${PHP_CONF_DIR:-$DEFAULT_CONF_DIR}
MOD=shmcache
LIB=libshmcache.so
PRIORITY=20
SAPIS=(cli fpm)
INI="$PHP_CONF_DIR/mods-available/$MOD.ini"

usage() {
  sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
}

mode=install
for arg in "$@"; do
  case "$arg" in
    --uninstall) mode=uninstall ;;
    -h | --help) usage; exit 0 ;;
    *) echo "unknown argument: $arg" >&2; usage >&2; exit 2 ;;
  esac
done

# Runs a command as root (through sudo when we are not root).
as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# phpenmod/phpdismod only know /etc/php: use them only for the real configuration directory.
use_phpenmod() {
  [ "$PHP_CONF_DIR" = "$DEFAULT_CONF_DIR" ] && command -v phpenmod >/dev/null && command -v phpdismod >/dev/null
}

php_config() {
  if command -v "php-config$PHP_VER" >/dev/null; then echo "php-config$PHP_VER"; else echo php-config; fi
}

extension_dir() {
  if [ -n "${EXT_DIR:-}" ]; then
    echo "$EXT_DIR"
    return
  fi
  local pc
  pc=$(php_config)
  if command -v "$pc" >/dev/null; then
    case "$("$pc" --version)" in
      "$PHP_VER".*) "$pc" --extension-dir; return ;;
      *) echo "$pc is for PHP $("$pc" --version), not $PHP_VER" >&2; exit 1 ;;
    esac
  fi
  # Uninstalling without php$PHP_VER-dev: PHP knows its own extension directory.
  "php$PHP_VER" -n -r 'echo PHP_EXTENSION_DIR;'
}

write_ini() { # prints the ini file this script installs
  cat <<EOF
; shmcache: one shared-memory cache for all PHP-FPM workers of a pool master.
; Installed by shmcache's scripts/install.sh. Enable/disable with: phpenmod shmcache / phpdismod shmcache
; priority=$PRIORITY
extension=$LIB

; The directives are read once at startup (PHP_INI_SYSTEM): restart PHP-FPM after a change.
; Sizes accept K, M and G. The values shown are the defaults.

; Create the shared region at startup.
;shmcache.enable = 1

; Also in the CLI. Each CLI process then gets a region of its own, shared with nobody.
;shmcache.enable_cli = 0

; Size of the key table; the number of key slots follows from it. Raise it when the
; status page shows many kicks with the slots nearly full.
;shmcache.keys_memory_size = 4M

; Size of the value ring. Raise it when values are recycled before they are read again
; (many recycles with a low hit rate).
;shmcache.values_memory_size = 64M

; Encoded values at least this many bytes long are LZ4-compressed; 0 = never.
;shmcache.compress_threshold = 4096
EOF
}

# ---------------------------------------------------------------------------------- regions
# Lines this script adds to a pool file end with this marker: --uninstall removes exactly those.
REGION_MARK="; shmcache: added by scripts/install.sh"
CLI_REGION_INI="$PHP_CONF_DIR/cli/conf.d/30-shmcache-region.ini"

# pool_sections FILE: "POOL USER" for each pool of FILE ("-" when it names no user).
pool_sections() {
  awk '
    /^[ \t]*\[[^]]+\][ \t]*$/ { if (pool != "") print pool, (user == "" ? "-" : user); pool = $0; gsub(/[][ \t]/, "", pool); user = ""; if (pool == "global") pool = ""; next }
    pool != "" && /^[ \t]*user[ \t]*=/ { v = $0; sub(/^[^=]*=[ \t]*/, "", v); sub(/[ \t;].*$/, "", v); gsub(/"/, "", v); user = v }
    END { if (pool != "") print pool, (user == "" ? "-" : user) }
  ' "$1"
}

# The region's name for a pool: its name with anything but letters, digits, '-', '_', '.' as '-'.
region_name() { printf '%s' "$1" | tr -c 'A-Za-z0-9_.-' '-' | sed 's/^\./-/'; }

# add_pool_regions FILE: appends php_admin_value[shmcache.region] (and region_user) to each pool
# of FILE that sets no shmcache.region yet; prints what it did.
add_pool_regions() {
  local file=$1 tmp
  tmp=$(mktemp)
  awk -v mark="$REGION_MARK" '
    function flush_pool() {
      if (pool != "" && !has_region) {
        name = pool; gsub(/[^A-Za-z0-9_.-]/, "-", name); sub(/^\./, "-", name)
        print "php_admin_value[shmcache.region] = " name " " mark
        if (user != "") print "php_admin_value[shmcache.region_user] = " user " " mark
        printf "%s %s %s\n", pool, name, (user == "" ? "-" : user) > "/dev/stderr"
      }
    }
    /^[ \t]*\[[^]]+\][ \t]*$/ { flush_pool(); pool = $0; gsub(/[][ \t]/, "", pool); if (pool == "global") pool = ""; user = ""; has_region = 0; print; next }
    pool != "" && /^[ \t]*user[ \t]*=/ { v = $0; sub(/^[^=]*=[ \t]*/, "", v); sub(/[ \t;].*$/, "", v); gsub(/"/, "", v); user = v }
    pool != "" && /^[ \t]*php(_admin)?_value\[shmcache\.region\]/ { has_region = 1 }
    { print }
    END { flush_pool() }
  ' "$file" >"$tmp" 2>"$tmp.added"
  if [ -s "$tmp.added" ]; then
    as_root cp "$tmp" "$file"
    while read -r pool name user; do
      echo "    fpm pool [$pool] ($file): shmcache.region = $name -> /dev/shm/shmcache.$name$([ "$user" = - ] || echo ", owned by $user")"
    done <"$tmp.added"
  fi
  while read -r pool _; do
    grep -q "^[^;]*shmcache\.region\]" "$file" || continue
    [ -s "$tmp.added" ] && grep -q "^$pool " "$tmp.added" && continue
    if grep -qF "$REGION_MARK" "$file"; then
      echo "    fpm pool [$pool] ($file): has its region already (set by this script before)"
    else
      echo "    fpm pool [$pool] ($file): keeps its own shmcache.region setting"
    fi
  done < <(pool_sections "$file")
  rm -f "$tmp" "$tmp.added"
}

# setup_regions: a named region for every FPM pool; for the CLI too when there is exactly one
# pool (with several, the CLI cannot know which site a command is for: the commands are printed).
setup_regions() {
  local pool_dir="$PHP_CONF_DIR/fpm/pool.d" f pools=()
  if [ "${SHMCACHE_REGIONS:-1}" = 0 ]; then
    echo "    regions: SHMCACHE_REGIONS=0, pool files left alone (pools share the master's anonymous region)"
    return
  fi
  if [ ! -d "$pool_dir" ]; then
    echo "    regions: $pool_dir does not exist (no PHP-FPM): no pool to set up"
    return
  fi
  for f in "$pool_dir"/*.conf; do
    [ -e "$f" ] || continue
    add_pool_regions "$f"
    while read -r pool user; do pools+=("$pool:$user"); done < <(pool_sections "$f")
  done
  [ -d "$PHP_CONF_DIR/cli/conf.d" ] || return
  if [ ${#pools[@]} -eq 1 ]; then
    local pool=${pools[0]%%:*} user=${pools[0]#*:} name want
    name=$(region_name "$pool")
    want=$(printf '%s\n' "; The CLI uses the region of the PHP-FPM pool [$pool], so WP-CLI, cron and deploy scripts" \
      "; read, update and flush the cache the web server uses. Written by shmcache's scripts/install.sh." \
      "; Commands must run as $user (or root): other users get a warning and no cache." \
      "shmcache.region = $name")
    [ "$user" = - ] || want+=$'\n'"shmcache.region_user = $user"
    if [ -e "$CLI_REGION_INI" ] && ! grep -q "scripts/install.sh" "$CLI_REGION_INI"; then
      echo "    cli: keeping your $CLI_REGION_INI"
    elif [ "$(cat "$CLI_REGION_INI" 2>/dev/null)" = "$want" ]; then
      echo "    cli: $CLI_REGION_INI is up to date (shmcache.region = $name)"
    else
      printf '%s\n' "$want" | as_root tee "$CLI_REGION_INI" >/dev/null
      echo "    cli: wrote $CLI_REGION_INI: the CLI shares pool [$pool]'s region $name (run commands as $user or root)"
    fi
  elif [ ${#pools[@]} -gt 1 ]; then
    echo "    cli: ${#pools[@]} pools, so no default region for the CLI; run a site's commands with its region:"
    local p
    for p in "${pools[@]}"; do
      echo "        sudo -u ${p#*:} php -d shmcache.region=$(region_name "${p%%:*}") ...     (pool [${p%%:*}])"
    done
  fi
}

remove_regions() {
  local f
  for f in "$PHP_CONF_DIR"/fpm/pool.d/*.conf; do
    [ -e "$f" ] && grep -qF "$REGION_MARK" "$f" || continue
    log "removing shmcache.region lines from $f"
    grep -vF "$REGION_MARK" "$f" | as_root tee "$f.shmcache-tmp" >/dev/null
    as_root mv -f "$f.shmcache-tmp" "$f"
  done
  if [ -e "$CLI_REGION_INI" ] && grep -q "scripts/install.sh" "$CLI_REGION_INI"; then
    log "removing $CLI_REGION_INI"
    as_root rm -f "$CLI_REGION_INI"
  fi
  echo "    region files in /dev/shm (shmcache.*) are left for running processes: remove them by hand after stopping PHP-FPM"
}

restart_hint() {
  echo
  echo "Restart PHP-FPM so its workers load the change:"
  echo "    sudo systemctl restart php$PHP_VER-fpm      (or: sudo service php$PHP_VER-fpm restart)"
}

# ----------------------------------------------------------------------------------------------
do_install() {
  if [ -n "${SHMCACHE_SO:-}" ]; then
    # A library built already (scripts/php-versions.sh's, in another PHP's chroot): as it is.
    so_loads || { echo "PHP $PHP_VER cannot load $SO" >&2; exit 1; }
  else
    build_release
  fi
  local ext_dir dest tmp sapi confd link
  ext_dir=$(extension_dir)
  dest="$ext_dir/$LIB"

  # 1. the library: replaced by rename, so running FPM workers keep their mapped copy intact.
  as_root install -d -m 0755 "$ext_dir"
  if cmp -s "$SO" "$dest"; then
    log "$dest is up to date"
  else
    log "installing $dest"
    tmp="$dest.new.$$"
    as_root install -m 0644 "$SO" "$tmp"
    as_root mv -f "$tmp" "$dest"
  fi

  # 2. the ini file: written when missing; a locally edited one is kept.
  as_root install -d -m 0755 "$PHP_CONF_DIR/mods-available"
  if [ ! -e "$INI" ]; then
    log "writing $INI"
    write_ini | as_root tee "$INI" >/dev/null
    as_root chmod 0644 "$INI"
  elif write_ini | cmp -s - "$INI"; then
    log "$INI is up to date"
  else
    log "keeping your edited $INI (delete it and re-run to get the default one)"
    grep -q "^[[:space:]]*extension[[:space:]]*=.*${LIB%.so}" "$INI" \
      || echo "WARNING: $INI has no active extension=$LIB line" >&2
  fi

  # 3. enable it for each SAPI that is installed.
  for sapi in "${SAPIS[@]}"; do
    confd="$PHP_CONF_DIR/$sapi/conf.d"
    link="$confd/$PRIORITY-$MOD.ini"
    if [ ! -d "$confd" ]; then
      echo "    $sapi: $confd does not exist (php$PHP_VER-$sapi not installed): skipped; re-run after installing it"
      continue
    fi
    if use_phpenmod; then
      as_root phpenmod -v "$PHP_VER" -s "$sapi" "$MOD"
    elif [ "$(readlink "$link" 2>/dev/null)" != "$INI" ]; then
      as_root ln -sfn "$INI" "$link"
    fi
    if [ -e "$link" ]; then
      echo "    $sapi: enabled ($link -> $(readlink "$link"))"
    else
      echo "WARNING: $sapi: $link was not created" >&2
    fi
  done

  # 4. a named region per pool (and for the CLI): the CLI then shares the web server's cache,
  #    and a reload of PHP-FPM keeps it.
  echo
  echo "Named regions (shmcache.region):"
  setup_regions

  # 5. verify (grep reads everything: with -q its early exit makes php fail on EPIPE under pipefail).
  echo
  if "php$PHP_VER" -n -d extension_dir="$ext_dir" -d extension="$LIB" -m 2>/dev/null | grep -x "$MOD" >/dev/null; then
    echo "OK: PHP loads $dest"
  else
    echo "ERROR: PHP cannot load $dest" >&2
    exit 1
  fi
  if [ "$PHP_CONF_DIR" = "$DEFAULT_CONF_DIR" ] && [ -d "$PHP_CONF_DIR/cli/conf.d" ]; then
    if "php$PHP_VER" -m 2>/dev/null | grep -x "$MOD" >/dev/null; then
      echo "OK: the CLI loads it from its configuration"
    else
      echo "WARNING: 'php -m' does not list $MOD" >&2
    fi
  fi
  restart_hint
  cat <<EOF

Verify:
    php --ri $MOD                  (with a named region the CLI shows it; without one the CLI reports
                                    "disabled" unless shmcache.enable_cli=1, a region of its own)
    php-fpm$PHP_VER -m | grep $MOD   the FPM binary loads it
    serve web/status.php from an FPM pool to see the shared cache (hits, slots, ring, health)
EOF
}

do_uninstall() {
  local ext_dir dest sapi confd f
  ext_dir=$(extension_dir)
  dest="$ext_dir/$LIB"
  remove_regions

  for sapi in "${SAPIS[@]}"; do
    confd="$PHP_CONF_DIR/$sapi/conf.d"
    [ -d "$confd" ] || continue
    if use_phpenmod && [ -e "$INI" ]; then
      as_root phpdismod -p -v "$PHP_VER" -s "$sapi" "$MOD" || true
    fi
    # Whatever is left: links to our ini, under any priority.
    for f in "$confd"/*-"$MOD".ini; do
      [ -L "$f" ] || continue
      log "removing $f"
      as_root rm -f "$f"
    done
    echo "    $sapi: disabled"
  done
  if [ -e "$INI" ]; then
    log "removing $INI"
    as_root rm -f "$INI"
  fi
  if [ -e "$dest" ]; then
    log "removing $dest"
    as_root rm -f "$dest"
  fi
  echo "shmcache is uninstalled."
  restart_hint
}

"do_$mode"
