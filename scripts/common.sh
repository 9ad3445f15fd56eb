# Shared by the scripts: paths, and installing what the build and tests need when missing.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export PATH="$HOME/.cargo/bin:/usr/local/bin:$PATH"
# The PHP the scripts test and the extension they load: bookworm's 8.2 and the release build, unless
# SHMCACHE_PHP_VERSION names another PHP (as scripts/php-versions.sh does inside that PHP's chroot):
# then php$PHP_VER, php-fpm$PHP_VER, /etc/php/$PHP_VER and a build of its own in target/php$PHP_VER
# (SHMCACHE_SO names a library built already).
PHP_VER=${SHMCACHE_PHP_VERSION:-8.2}
if [ "$PHP_VER" = 8.2 ]; then
  TARGET_DIR=$ROOT/target
else
  TARGET_DIR=$ROOT/target/php$PHP_VER
fi
SO=${SHMCACHE_SO:-$TARGET_DIR/release/libshmcache.so}

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

# apt_need PKG...: installs the packages that are not installed yet (Debian 12).
apt_need() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    log "installing ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

need_build_deps() {
  apt_need "php$PHP_VER-cli" "php$PHP_VER-dev" clang libclang-dev pkg-config
  if ! command -v cargo >/dev/null; then
    echo "cargo is not installed: install Rust (https://rustup.rs) and re-run" >&2
    exit 1
  fi
}

# so_loads: true when PHP, without any php.ini, loads $SO as the shmcache module.
# (no grep -q: under pipefail, grep quitting early makes php die of SIGPIPE)
so_loads() { "php$PHP_VER" -n -d extension="$SO" -m 2>/dev/null | grep -x shmcache >/dev/null; }

build_release() {
  need_build_deps
  log "building libshmcache.so (release, PHP $PHP_VER)"
  if [ "$PHP_VER" = 8.2 ]; then
    (cd "$ROOT" && cargo build --release --quiet)
  else
    # Against that PHP, in a target dir of its own (ext-php-rs's bindings are per PHP), with the
    # environment scripts/php-versions.sh builds with, so that cargo finds its build up to date.
    (cd "$ROOT" && PHP="/usr/bin/php$PHP_VER" PHP_CONFIG="/usr/bin/php-config$PHP_VER" \
      cargo build --release --locked --quiet --target-dir "$TARGET_DIR")
  fi
  # A build that PHP cannot load must stop everything here.
  if ! so_loads; then
    echo "FATAL: PHP $PHP_VER cannot load $SO" >&2
    "php$PHP_VER" -n -d extension="$SO" -m >&2 || true
    exit 1
  fi
}

# need_so: builds only when PHP cannot load $SO (a fresh checkout): a test script run on its own
# tests the build that is there (scripts/test.sh has just made it; in a chroot, SHMCACHE_SO is
# that PHP's build).
need_so() { so_loads || build_release; }

# Test scripts: `check NAME COMMAND...` runs the command, prints PASS/FAIL and counts it in
# $passed / $failed (each script ends with: echo "$passed passed, $failed failed").
passed=0
failed=0
check() {
  local name=$1
  shift
  if "$@"; then
    echo "PASS: $name"
    passed=$((passed + 1))
  else
    echo "FAIL: $name"
    failed=$((failed + 1))
  fi
}

# `callgrind_instructions CMD...`: the instructions callgrind counts for a whole command (user
# space only; the same for the same binary and input whatever else the machine does).
callgrind_instructions() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 |
    sed -n 's/.*Collected : *//p; s/.*refs: *//p' | tr -d , | head -n 1
}

# `expect NAME ACTUAL WANTED`: a check of a value that prints what it saw when it fails.
expect() {
  if [ "$2" = "$3" ]; then
    echo "PASS: $1"
    passed=$((passed + 1))
  else
    echo "FAIL: $1"
    echo "  got:      $2"
    echo "  expected: $3"
    failed=$((failed + 1))
  fi
}

# The PHPUnit the WordPress tests run with: Debian 12's 9.6 (WordPress's test framework supports
# no later major). In another PHP's chroot scripts/php-versions.sh lends the host's copy:
# SHMCACHE_PHPUNIT is then its script, SHMCACHE_PHPUNIT_ARGS the php settings that find its
# classes (an include_path), and on PHP 8.4 and later PHPUnit is given
# scripts/lib/phpunit9-preload.php (it says why).
PHPUNIT=${SHMCACHE_PHPUNIT:-/usr/bin/phpunit}
# shellcheck disable=SC2206 # php -d settings, split on spaces
PHPUNIT_ARGS=(${SHMCACHE_PHPUNIT_ARGS:-})
PHPUNIT_OPTS=()
case $PHP_VER in 8.[0-3]) ;; *) PHPUNIT_OPTS=(--prepend "$ROOT/scripts/lib/phpunit9-preload.php") ;; esac

# `phpunit_counted LABEL OUTFILE PHPUNIT-ARGS...` runs PHPUnit ($PHPUNIT) against the harness site
# (WP_STACK_HOST) with the extension loaded (and the php settings in PHPUNIT_PHP_ARGS), keeps its
# output in OUTFILE (shown when something fails), and counts each test in $passed / $failed; a
# run that reports nothing counts as failed.
phpunit_counted() {
  local label=$1 out=$2
  shift 2
  set +e
  # shellcheck disable=SC2086 # PHPUNIT_PHP_ARGS: extra php -d settings, split on spaces
  WP_STACK_HOST="$WP_STACK_HOST" "php$PHP_VER" -d extension="$SO" -d shmcache.enable_cli=1 ${PHPUNIT_PHP_ARGS:-} \
    "${PHPUNIT_ARGS[@]}" "$PHPUNIT" "${PHPUNIT_OPTS[@]}" "$@" >"$out" 2>&1
  set -e
  if grep -qE '^OK \(([0-9]+) tests?' "$out"; then
    local n
    n=$(sed -nE 's/^OK \(([0-9]+) tests?.*/\1/p' "$out" | tail -n 1)
    passed=$((passed + n))
    echo "PASS: $label, $n tests"
    return
  fi
  cat "$out"
  local total bad
  total=$(sed -nE 's/^Tests: ([0-9]+).*/\1/p' "$out" | tail -n 1)
  bad=$(sed -nE 's/^Tests: [0-9]+, Assertions: [0-9]+(.*)\./\1/p' "$out" | grep -oE '[0-9]+' | paste -sd+ | bc 2>/dev/null || true)
  total=${total:-0}
  bad=${bad:-1}
  [ "$bad" -gt 0 ] || bad=1
  passed=$((passed + (total > bad ? total - bad : 0)))
  failed=$((failed + bad))
  echo "FAIL: $label ($bad of $total tests did not pass)"
}
