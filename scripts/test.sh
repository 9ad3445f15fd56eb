#!/usr/bin/env bash
# Runs every test: the engine's Rust tests (unit, property, forked multi-process), the phpt
# suite against the release build on this machine's PHP 8.2 and, in chroots, on PHP 8.4, 8.5 and
# 8.6 RC (scripts/php-versions.sh; needs root), and every scripts/test-*.sh. Prints a line per
# PHP version, then ends with "N passed, N failed".
source "$(dirname "$0")/common.sh"
build_release

passed=0
failed=0
status=0

# cargo_counts LOG: "PASSED FAILED", the sums of the "test result:" lines cargo test wrote to LOG
# (one per test binary); fails, printing nothing, when there is none (cargo stopped before
# running a test: a build error).
cargo_counts() {
  grep -q '^test result:' "$1" || return 1
  sed -n 's/^test result: [a-zA-Z]*\. \([0-9]*\) passed; \([0-9]*\) failed.*/\1 \2/p' "$1" |
    awk '{ p += $1; f += $2 } END { print p + 0, f + 0 }'
}

# tests/tier.rs runs redis-server processes of its own (never the system one).
apt_need redis-server redis-tools
log "cargo tests (engine, no PHP)"
cargo_log=$(mktemp)
# Without the php feature the crate builds a library PHP can't load: keep it in its own target
# dir so it never replaces the extension the phpt suite tests.
if ! (cd "$ROOT" && cargo test --release --no-default-features --target-dir target/engine 2>&1 | tee "$cargo_log"); then
  status=1
fi
# Tests that damage bytes of a live region, pick keys by their index buckets or move the ring's
# tail need the `fuzzing` hooks.
if ! (cd "$ROOT" && cargo test --release --no-default-features --features fuzzing --target-dir target/engine \
  --test damaged_entry --test fork_full_buckets --test slot_word_wrap --test index_lines 2>&1 | tee -a "$cargo_log"); then
  status=1
fi
if counts=$(cargo_counts "$cargo_log"); then
  read -r p f <<<"$counts"
  passed=$((passed + p)); failed=$((failed + f))
else
  echo "cargo test produced no results" >&2
  failed=$((failed + 1))
fi

# One formatting for the tree (rustfmt.toml): a change that was not run through `cargo fmt` fails here.
log "cargo fmt --check"
if (cd "$ROOT" && cargo fmt --check >/dev/null && cd fuzz && cargo fmt --check >/dev/null); then
  passed=$((passed + 1))
  echo "rustfmt: 1 passed, 0 failed"
else
  echo "rustfmt: the tree is not formatted; run cargo fmt (and in fuzz/)" >&2
  failed=$((failed + 1)); status=1
fi

# tests/tier.rs again against the other servers tiered mode supports: Redis 6.0 (Debian 11,
# Ubuntu 22.04) and Valkey 8.1 (Debian 13), built from Debian's source packages (kept in
# target/redis-versions/). Each run's tests count on their own, so a failure on one server shows.
servers_log=$(mktemp)
if ! bash "$ROOT/scripts/redis-versions.sh" redis6 valkey8 >"$servers_log"; then
  echo "scripts/redis-versions.sh could not build the servers to test tiered mode against" >&2
  failed=$((failed + 1))
  status=1
fi
while read -r name version binary; do
  log "tests/tier.rs against $name $version"
  tier_log=$(mktemp)
  if ! (cd "$ROOT" && SHMCACHE_TEST_REDIS_SERVER="$binary" cargo test --release --no-default-features --target-dir target/engine \
    --test tier 2>&1 | tee "$tier_log"); then
    status=1
  fi
  if counts=$(cargo_counts "$tier_log"); then
    read -r p f <<<"$counts"
    passed=$((passed + p)); failed=$((failed + f))
    echo "tests/tier.rs against $name $version: $p passed, $f failed"
  else
    echo "tests/tier.rs against $name $version produced no result" >&2
    failed=$((failed + 1))
  fi
done <"$servers_log"

# APCu, for the test of shmcache.apcu_compat refusing to start beside it (221-apcu-compat-beside-apcu,
# which loads it explicitly). Installing Debian's package enables it everywhere, where it would
# take the apcu_* names from the apcu_compat tests (and change what FPM runs in the other
# tests): keep it loadable but not loaded. (No grep -q: under pipefail, grep quitting early
# makes php die of SIGPIPE.)
apt_need php8.2-apcu
if php -m | grep -x apcu >/dev/null || php-fpm8.2 -m 2>/dev/null | grep -x apcu >/dev/null; then
  log "disabling apcu (the apcu_compat tests load shmcache's apcu_* functions)"
  $( [ "$(id -u)" -eq 0 ] || echo sudo ) phpdismod apcu
fi

log "phpt suite"
phpt_log=$(mktemp)
run_tests=$(ls /usr/lib/php/*/build/run-tests.php | head -n 1)
export SHMCACHE_SO="$SO"
export TEST_PHP_EXECUTABLE=$(command -v php)
set +e
php "$run_tests" -q -j2 --show-diff -p "$TEST_PHP_EXECUTABLE" \
  -d extension="$SO" -d shmcache.enable_cli=1 "$ROOT/php-tests" 2>&1 | tee "$phpt_log"
set -e
num() { sed -n "s/^Tests $1 *: *\([0-9]*\).*/\1/p" "$phpt_log" | head -n 1; }
p_pass=$(num passed); p_fail=$(num failed); p_skip=$(num skipped); p_warn=$(num warned); p_borked=$(sed -n 's/^Tests borked *: *\([0-9]*\).*/\1/p' "$phpt_log" | head -n1)
p_pass=${p_pass:-0}; p_fail=${p_fail:-0}; p_skip=${p_skip:-0}; p_warn=${p_warn:-0}; p_borked=${p_borked:-0}
if [ "$p_pass" -eq 0 ]; then
  echo "the phpt suite passed nothing" >&2
  p_fail=$((p_fail + 1))
fi
# A skipped phpt means something did not load or run: count it as a failure.
passed=$((passed + p_pass))
failed=$((failed + p_fail + p_skip + p_warn + p_borked))
version_lines=("PHP 8.2: $p_pass passed, $((p_fail + p_skip + p_warn + p_borked)) failed (phpt suite)")

# The other PHP versions Debian ships, each in a chroot of its own (scripts/php-versions.sh): 8.4
# (trixie: phpt suite, the PHP-FPM fault test, the named-region test with WordPress 6.8, and
# WordPress core's cache suites when WPDEV_GIT and POLYFILLS_GIT are given), 8.5 and 8.6 RC
# (experimental: phpt suite).
# 8.4 and 8.5 count; 8.6's line is shown but not counted while PHP 8.6 is a release candidate.
# A version whose chroot, build or run gave no line counts as one failure.
log "PHP 8.4, 8.5 and 8.6 RC (scripts/php-versions.sh)"
versions_log=$(mktemp)
set +e
# (Root for debootstrap, chroot and mount: through sudo when this is not root.)
$( [ "$(id -u)" -eq 0 ] || echo sudo ) bash "$ROOT/scripts/php-versions.sh" 8.4 8.5 8.6 | tee "$versions_log"
set -e
for v in "8.4" "8.5" "8.6 RC"; do
  line=$(grep -E "^PHP $v: [0-9]+ passed, [0-9]+ failed" "$versions_log" | tail -n 1 || true)
  if [ -z "$line" ]; then
    line="PHP $v: 0 passed, 1 failed (scripts/php-versions.sh printed no line for it)"
  fi
  version_lines+=("$line")
  [ "$v" = "8.6 RC" ] && continue
  read -r p f < <(echo "$line" | sed -E 's/^PHP [0-9.]+: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/')
  passed=$((passed + p)); failed=$((failed + f))
done

for extra in "$ROOT"/scripts/test-*.sh; do
  [ -e "$extra" ] || continue
  log "$(basename "$extra")"
  out=$(mktemp)
  set +e
  bash "$extra" 2>&1 | tee "$out"
  set -e
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1)
  if [ -z "$line" ]; then
    echo "$(basename "$extra") printed no result line" >&2
    failed=$((failed + 1))
  else
    passed=$((passed + $(echo "$line" | cut -d' ' -f1)))
    failed=$((failed + $(echo "$line" | cut -d' ' -f3)))
  fi
done

echo
# One line per PHP version (8.6 RC: shown, not counted), then the total.
printf '%s\n' "${version_lines[@]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$status" -eq 0 ]
