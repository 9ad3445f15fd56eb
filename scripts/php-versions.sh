#!/usr/bin/env bash
# Builds and tests shmcache on the PHP versions Debian ships besides bookworm's 8.2: PHP 8.4
# (trixie), 8.5 and the 8.6 release candidate (experimental). Those PHPs need a newer libc than
# bookworm's, so each runs in a chroot made with debootstrap, kept under target/php-versions/
# (PHP_VERSIONS_DIR) and reused by the next run; a chroot that is absent, or was left half made,
# is made again. Inside, the extension is built with that PHP's php-config (the host's Rust
# toolchain bind-mounted read-only, its cargo home read-write so crates are downloaded once, a
# target dir per PHP version) and tested with that PHP's own run-tests.php. On 8.4 also the PHP-FPM
# fault test, the named-region test (PHP-FPM, the CLI and Debian 13's WordPress 6.8 on MariaDB and
# nginx, all inside the chroot) and, given WPDEV_GIT and POLYFILLS_GIT, WordPress core's own
# object-cache suite (scripts/wp-core-cache-suite.sh, branch 6.7) run inside, each counted in the
# 8.4 line.
#
# Prints one line per version on stdout, "PHP 8.4: N passed, N failed" ("PHP 8.6 RC: ...", which
# scripts/test.sh shows but does not count while PHP 8.6 is a release candidate). A chroot that
# cannot be made (no network, say) or an extension that does not build or load counts as a
# failure. The details go to stderr and to logs in target/php-versions/.
#
# Usage: scripts/php-versions.sh [8.4|8.5|8.6]...   build and test (default: 8.4 8.5 8.6)
#        scripts/php-versions.sh --build 8.4        build only; prints "SO EXTENSION-DIR PHPAPI"
#                                                   (SO as a path on the host; scripts/package.sh)
#        scripts/php-versions.sh --shell 8.4        a shell in that version's chroot, mounts made
# Needs root (debootstrap, chroot, mount). Every mount it makes is undone when it exits.
source "$(dirname "$0")/common.sh"
source "$(dirname "$0")/chroot.sh"

# Where the host's pieces appear inside a chroot.
IN_SRC=/src
IN_RUST=/opt/rust
IN_CARGO=/opt/cargo

# --- which chroot serves which PHP -------------------------------------------------------------
# 8.4 is trixie's PHP. 8.5 and 8.6 RC are only in experimental, which is not a whole suite: that
# chroot is sid, with experimental's php8.5*/php8.6* packages pinned in (apt's -t experimental
# would take experimental's php-common too, which those PHP packages do not install with).
chroot_of() {
  case $1 in
    8.4) echo trixie ;;
    8.5 | 8.6) echo sid ;;
    *) echo "unknown PHP version $1 (8.4, 8.5, 8.6)" >&2; return 1 ;;
  esac
}

# What each chroot gets: the PHP versions (CLI, headers, FPM), clang for ext-php-rs's bindgen,
# gcc as cargo's linker, CA certificates for cargo, what the FPM test uses, redis-server for the
# tiered-mode phpt tests that start their own (220), and APCu where Debian has it for that PHP
# (php-tests/221 loads it). Trixie also gets what the named-region test and WordPress's cache
# suites run on (scripts/wp-stack.sh): MariaDB, nginx, php8.4-mysql, curl and Debian's WordPress
# (6.8), php8.4-xml and php8.4-mbstring (PHPUnit needs them), git (wordpress-develop's branches
# are extracted with it), redis-tools and bc.
packages_of() {
  local common="clang libclang-dev gcc libc6-dev ca-certificates libfcgi-bin procps redis-server"
  case $1 in
    trixie) echo "$common php8.4-cli php8.4-dev php8.4-fpm php8.4-apcu php8.4-mysql php8.4-xml php8.4-mbstring" \
      "mariadb-server nginx curl git redis-tools bc php wordpress wordpress-theme-twentytwentythree" ;;
    sid) echo "$common php8.5-cli php8.5-dev php8.6-cli php8.6-dev" ;;
  esac
}

# `prepare NAME`: makes (or reuses) the chroot NAME and sets CHROOT to its root directory. It
# holds the chroot's lock until `leave`: one run at a time uses a chroot (8.5 and 8.6 share one,
# and scripts/package.sh builds in the 8.4 one), so that a run's clean-up of stale mounts never
# takes another's away. (Not run in a $(...) subshell: the mounts it makes are undone by this
# shell's EXIT trap, and the lock is this shell's.)
CHROOT_LOCK=""
prepare() {
  local name=$1 dir="$KEEP/$1" root="$KEEP/$1/root" pkgs
  pkgs=$(packages_of "$name")
  mkdir -p "$dir"
  exec {CHROOT_LOCK}>"$dir/lock"
  flock "$CHROOT_LOCK"
  CHROOT=$root
  if [ -f "$dir/ready" ] && [ "$(cat "$dir/ready")" = "$pkgs" ] && [ -f "$root/.debootstrap-done" ]; then
    setup_apt "$root"
    return 0
  fi
  if [ ! -f "$root/.debootstrap-done" ]; then
    # Absent, or an earlier run stopped half way: start again from nothing.
    make_minbase "$name" "$root" "$dir/debootstrap.log" || { unlock; return 1; }
  fi
  rm -f "$dir/ready"
  setup_apt "$root"
  if [ "$name" = sid ]; then
    echo "deb $MIRROR experimental main" >"$root/etc/apt/sources.list.d/experimental.list"
    printf '%s\n' 'Package: php8.5* php8.6*' 'Pin: release a=experimental' 'Pin-Priority: 990' \
      >"$root/etc/apt/preferences.d/php-experimental"
  fi
  log "installing into the $name chroot: $pkgs"
  stale_mounts_off "$root"
  mount_proc "$root"
  # WordPress (and the php metapackage) last, in a second step: their "apache2 | httpd",
  # "libapache2-mod-php | php" and "libapache2-mod-php8.4 | php8.4-fpm" are then met by the nginx
  # and PHP-FPM already installed, and apt does not pull Apache in.
  local first="" last="" p
  for p in $pkgs; do
    case $p in wordpress* | php) last="$last $p" ;; *) first="$first $p" ;; esac
  done
  if ! in_root "$root" sh -c "apt-get update -qq && apt-get install -y -qq $first${last:+ && apt-get install -y -qq $last}" \
    >"$dir/apt.log" 2>&1; then
    undo_mounts
    tail -n 30 "$dir/apt.log" >&2
    echo "installing PHP into the $name chroot failed (log: $dir/apt.log)" >&2
    unlock
    return 1
  fi
  # Debian's APCu package enables itself for every SAPI; the suite loads it explicitly where a
  # test needs it (201): enabled, it would take the apcu_* names from shmcache's apcu_compat.
  if [ -x "$root/usr/sbin/phpdismod" ]; then in_root "$root" phpdismod apcu >/dev/null 2>&1 || true; fi
  undo_mounts
  echo "$pkgs" >"$dir/ready"
}

unlock() {
  if [ -n "$CHROOT_LOCK" ]; then exec {CHROOT_LOCK}>&-; fi
  CHROOT_LOCK=""
}

# `enter ROOT`: mounts what a build and the tests need inside the chroot: /proc, a /dev/shm of
# its own (named regions are files there), the source tree, the host's Rust toolchain (read only)
# and cargo's home (its registry cache).
enter() {
  local root=$1
  stale_mounts_off "$root"
  mount_proc "$root"
  mount -t tmpfs -o mode=1777,size=2g shm "$root/dev/shm" && MOUNTS+=("$root/dev/shm")
  bind "$ROOT" "$root$IN_SRC"
  bind "$(cd "$ROOT" && rustc --print sysroot)" "$root$IN_RUST" ro
  bind "${CARGO_HOME:-$HOME/.cargo}" "$root$IN_CARGO"
  EXTRA_ENV=(PATH="$IN_RUST/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    CARGO_HOME="$IN_CARGO" CARGO_TERM_COLOR=never)
}

leave() {
  EXTRA_ENV=()
  undo_mounts
  unlock
}

# `build VER`: prepares the chroot, builds the extension against PHP VER, checks that PHP loads
# it. Sets CHROOT and SO_IN (the .so's path inside the chroot) and leaves the chroot entered; on
# failure sets WHY and leaves it.
build() {
  local ver=$1 target="$IN_SRC/target/php$1"
  if ! prepare "$(chroot_of "$ver")"; then
    WHY="the $(chroot_of "$ver") chroot could not be made"
    return 1
  fi
  enter "$CHROOT"
  SO_IN="$target/release/libshmcache.so"
  log "PHP $ver: building the extension (php-config$ver, target/php$ver)"
  # A target dir per PHP: ext-php-rs generates its bindings from the PHP it is built against, and
  # reruns its build script only when PHP, PHP_CONFIG or PATH change.
  if ! in_root "$CHROOT" sh -c "cd $IN_SRC && PHP=/usr/bin/php$ver PHP_CONFIG=/usr/bin/php-config$ver \
      cargo build --release --locked --quiet --target-dir $target" >&2; then
    leave
    WHY="the extension does not build"
    return 1
  fi
  # No grep -q: under pipefail, grep quitting early makes php die of SIGPIPE.
  if ! in_root "$CHROOT" "php$ver" -n -d extension="$SO_IN" -m 2>&1 | grep -x shmcache >/dev/null; then
    in_root "$CHROOT" "php$ver" -n -d extension="$SO_IN" -m >&2 || true
    leave
    WHY="PHP $ver cannot load the extension"
    return 1
  fi
}

# `phpt_counts LOG [ALLOWED-SKIP]`: "PASSED FAILED SKIPPED-AS-ALLOWED" from run-tests.php's
# output. A skipped, warned or borked test counts as failed (something did not load or run), and
# so does a run that passed nothing; only a skip whose reason contains ALLOWED-SKIP (a feature
# this PHP truly lacks) does not.
phpt_counts() {
  local p f s w b allowed=0
  p=$(sed -n 's/^Tests passed *: *\([0-9]*\).*/\1/p' "$1" | head -n 1)
  f=$(sed -n 's/^Tests failed *: *\([0-9]*\).*/\1/p' "$1" | head -n 1)
  s=$(sed -n 's/^Tests skipped *: *\([0-9]*\).*/\1/p' "$1" | head -n 1)
  w=$(sed -n 's/^Tests warned *: *\([0-9]*\).*/\1/p' "$1" | head -n 1)
  b=$(sed -n 's/^Tests borked *: *\([0-9]*\).*/\1/p' "$1" | head -n 1)
  if [ -n "${2:-}" ]; then
    # (run-tests.php starts a result's line with its progress line and a carriage return.)
    allowed=$(tr '\r' '\n' <"$1" | grep -E '^SKIP ' | grep -cF "reason: $2" || true)
  fi
  p=${p:-0}
  f=$((${f:-0} + ${s:-0} - allowed + ${w:-0} + ${b:-0}))
  [ "$p" -gt 0 ] || f=$((f + 1))
  echo "$p $f $allowed"
}

# `run_counted LABEL SCRIPT`: runs scripts/SCRIPT inside the entered chroot (with EXTRA_ENV), its
# output in a log, and adds its "N passed, N failed" to test_version's passed/failed. A script
# that prints no such line (it did not start, or died) counts as one failure.
run_counted() {
  local label=$1 t=$2 out line
  out="$KEEP/$t-$ver.log"
  log "$label: $t"
  local t0=$SECONDS
  in_root "$CHROOT" bash "$IN_SRC/scripts/$t" >"$out" 2>&1 || true
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1)
  if [ -z "$line" ]; then
    tail -n 30 "$out" >&2
    echo "$label $t printed no result line (log: $out)" >&2
    failed=$((failed + 1))
    notes+=("$t printed no result")
  else
    grep -E '^(FAIL|SKIP)' "$out" >&2 || true
    echo "$label $t: $line in $((SECONDS - t0)) s (log: $out)" >&2
    passed=$((passed + $(echo "$line" | cut -d' ' -f1)))
    failed=$((failed + $(echo "$line" | cut -d' ' -f3)))
  fi
}

# `wp_core_suite LABEL`: scripts/wp-core-cache-suite.sh in the chroot, on WordPress's own
# tests/phpunit/tests/cache.php (branches WP_SUITE_BRANCHES, default 6.7) with the drop-in, given
# WPDEV_GIT and POLYFILLS_GIT (git directories of wordpress-develop and Yoast/PHPUnit-Polyfills,
# bind-mounted read only). PHPUnit is Debian 12's 9.6 from this machine (installed here when
# missing), lent read only: Debian 13 ships PHPUnit 11, which WordPress's test framework does not
# support. Without the two sources it does not run, and the version's line says so; with
# WP_CORE_SUITE=required (a machine that is meant to have them) that counts as a failure.
wp_core_suite() {
  local label=$1
  if [ -z "${WPDEV_GIT:-}" ] || [ -z "${POLYFILLS_GIT:-}" ]; then
    echo "$label wp-core-cache-suite.sh: not run: WPDEV_GIT and POLYFILLS_GIT are not set" >&2
    notes+=("WordPress core's cache suite not run: no WPDEV_GIT/POLYFILLS_GIT")
    if [ "${WP_CORE_SUITE:-}" = required ]; then failed=$((failed + 1)); fi
    return
  fi
  local d
  for d in "$WPDEV_GIT" "$POLYFILLS_GIT"; do
    if ! git --git-dir="$d" rev-parse --verify -q HEAD >/dev/null 2>&1 && [ ! -d "$d/objects" ]; then
      echo "$label wp-core-cache-suite.sh: $d is not a git directory" >&2
      notes+=("WordPress core's cache suite: $d is not a git directory")
      failed=$((failed + 1))
      return
    fi
  done
  apt_need phpunit >&2
  bind "$WPDEV_GIT" "$CHROOT/opt/wordpress-develop.git" ro
  bind "$POLYFILLS_GIT" "$CHROOT/opt/phpunit-polyfills.git" ro
  bind /usr/share/php "$CHROOT/opt/phpunit9/php" ro
  # (A file: bind() makes directories.)
  touch "$CHROOT/opt/phpunit9/phpunit"
  mount --bind /usr/bin/phpunit "$CHROOT/opt/phpunit9/phpunit" && MOUNTS+=("$CHROOT/opt/phpunit9/phpunit")
  EXTRA_ENV+=(WPDEV_GIT=/opt/wordpress-develop.git POLYFILLS_GIT=/opt/phpunit-polyfills.git
    WP_STACK_DIR=/var/lib/shmcache-wp-core-suite SHMCACHE_PHPUNIT=/opt/phpunit9/phpunit
    "SHMCACHE_PHPUNIT_ARGS=-d include_path=.:/opt/phpunit9/php:/usr/share/php")
  if [ -n "${WP_SUITE_BRANCHES:-}" ]; then EXTRA_ENV+=(WP_SUITE_BRANCHES="$WP_SUITE_BRANCHES"); fi
  run_counted "$label" wp-core-cache-suite.sh
}

# `test_version VER`: builds and tests on PHP VER; prints its result line.
test_version() {
  local ver=$1 label="PHP $1" start=$SECONDS
  [ "$ver" = 8.6 ] && label="PHP 8.6 RC"
  if ! build "$ver"; then
    echo "$label: 0 passed, 1 failed ($WHY)"
    return
  fi
  # What each version adds to a CI run (a fresh machine makes the chroot and builds from nothing).
  echo "$label: chroot ready and extension built in $((SECONDS - start)) s" >&2
  local passed=0 failed=0 p f notes=()
  log "$label: phpt suite"
  # A copy of the tests inside the chroot: run-tests.php writes its .out/.diff files beside them.
  local phpt="/tmp/phpt-$ver" log_file="$KEEP/phpt-$ver.log"
  rm -rf "${CHROOT:?}$phpt" && cp -r "$ROOT/php-tests" "$CHROOT$phpt"
  EXTRA_ENV+=(SHMCACHE_SO="$SO_IN" TEST_PHP_EXECUTABLE="/usr/bin/php$ver")
  in_root "$CHROOT" sh -c "php$ver \$(php-config$ver --extension-dir)/build/run-tests.php -q -j2 --no-color --show-diff \
    -p /usr/bin/php$ver -d extension=$SO_IN -d shmcache.enable_cli=1 $phpt" >"$log_file" 2>&1 || true
  tr '\r' '\n' <"$log_file" | grep -E '^(FAIL|SKIP|BORK|WARN|LEAK)|^Tests (passed|failed|skipped)' >&2 || true
  # Debian ships no APCu for 8.5 and 8.6: the one test that loads APCu beside shmcache (221)
  # skips there, saying so. Anywhere else a skip is a failure.
  local allowed_skip="" skipped note=""
  case $ver in 8.5 | 8.6) allowed_skip="APCu is not available for PHP $ver" ;; esac
  read -r p f skipped < <(phpt_counts "$log_file" "$allowed_skip")
  [ "$skipped" -eq 0 ] || note=" ($skipped skipped: $allowed_skip)"
  echo "$label phpt: $p passed, $f failed$note (log: $log_file)" >&2
  passed=$((passed + p)); failed=$((failed + f))
  if [ "$ver" = 8.4 ]; then
    EXTRA_ENV+=(SHMCACHE_PHP_VERSION="$ver")
    # The PHP-FPM fault test (SIGKILLed workers, timeouts, fatal errors, a reload) on this PHP's FPM.
    run_counted "$label" test-fpm-faults.sh
    # Named regions with PHP-FPM, the CLI and WordPress (Debian 13's, 6.8) on this PHP. The
    # WordPress stack (MariaDB, nginx, PHP-FPM) lives in the chroot (its files in WP_STACK_DIR,
    # kept for the next run) on a loopback address of its own, so that a stack of the host's never
    # meets it.
    EXTRA_ENV+=(WP_STACK_DIR=/var/lib/shmcache-wp-stack WP_STACK_IP=127.0.8.4 WP_PORT=8084)
    run_counted "$label" test-named-regions.sh
    # WordPress core's own object-cache tests with the drop-in, when given wordpress-develop and the
    # PHPUnit Polyfills (no package registry has them): see wp_core_suite.
    wp_core_suite "$label"
  fi
  leave
  echo "$label: everything took $((SECONDS - start)) s" >&2
  local n
  for n in "${notes[@]}"; do note="$note ($n)"; done
  echo "$label: $passed passed, $failed failed$note"
}

case ${1:-} in
  --shell)
    ver=${2:?usage: scripts/php-versions.sh --shell 8.4}
    prepare "$(chroot_of "$ver")"
    enter "$CHROOT"
    in_root "$CHROOT" bash -l || true
    exit 0
    ;;
  --build)
    ver=${2:?usage: scripts/php-versions.sh --build 8.4}
    chroot_of "$ver" >/dev/null || exit 2
    if ! build "$ver"; then
      echo "PHP $ver: $WHY" >&2
      exit 1
    fi
    # What a package needs: the .so on the host, and where and for which API PHP loads it.
    echo "$ROOT/target/php$ver/release/libshmcache.so" \
      "$(in_root "$CHROOT" "php-config$ver" --extension-dir)" "$(in_root "$CHROOT" "php-config$ver" --phpapi)"
    exit 0
    ;;
esac

[ $# -gt 0 ] || set -- 8.4 8.5 8.6
for ver in "$@"; do
  chroot_of "$ver" >/dev/null || exit 2
  test_version "$ver"
done
