#!/usr/bin/env bash
# WordPress's own object-cache tests (tests/phpunit/tests/cache.php of wordpress-develop, each
# branch with its own core) against this repository's drop-in, in three modes:
#   shared    the extension loaded: the drop-in on shared memory
#   tiered    the same with shmcache.redis pointing at a redis-server this script starts
#   fallback  no extension: the drop-in's per-request fallback
# on a single site and on a multisite install (WP_MULTISITE=1), on PHP 8.2 here or, inside the
# PHP 8.4 chroot, on 8.4 (scripts/php-versions.sh runs it there: SHMCACHE_PHP_VERSION=8.4). It
# needs sources no package registry ships, given as
#   WPDEV_GIT   a git directory of wordpress-develop (bare is fine) with the branches to run
#   POLYFILLS_GIT  a git directory of Yoast/PHPUnit-Polyfills (its 1.x branch is used)
#   WP_SUITE_BRANCHES  default "6.1 6.2 6.7" on PHP 8.2; "6.7" on later PHP (the first branch
#                      whose tests support PHP 8.4)
# and runs with PHPUnit 9 ($PHPUNIT, common.sh).
# MariaDB is the wp-stack's (scripts/wp-stack.sh), in a directory of its own. Prints one line
# per run and a table; ends with "N passed, N failed" where a run passes when it matches what
# docs/reliability.md explains (shared memory and tiered: everything passes but
# test_wp_cache_flush_group, 13 skipped; fallback: everything passes).
export WP_STACK_DIR=${WP_STACK_DIR:-$(cd "$(dirname "$0")/.." && pwd)/target/wp-core-suite}
source "$(dirname "$0")/wp-stack.sh"
set +eu +o pipefail

: "${WPDEV_GIT:?set WPDEV_GIT to a git directory of wordpress-develop}"
: "${POLYFILLS_GIT:?set POLYFILLS_GIT to a git directory of Yoast/PHPUnit-Polyfills}"
if [ "$PHP_VER" = 8.2 ]; then
  BRANCHES=${WP_SUITE_BRANCHES:-6.1 6.2 6.7}
else
  BRANCHES=${WP_SUITE_BRANCHES:-6.7}
fi
apt_need redis-server redis-tools
[ -n "${SHMCACHE_PHPUNIT:-}" ] || apt_need phpunit
[ -x "$PHPUNIT" ] || [ -f "$PHPUNIT" ] || { echo "no PHPUnit at $PHPUNIT"; echo "0 passed, 1 failed"; exit 0; }
if [ -n "${SHMCACHE_SO:-}" ]; then need_so >/dev/null; else build_release >/dev/null; fi

WORK="$WP_STACK_DIR/suite"
rm -rf "$WORK"
mkdir -p "$WORK"
REDIS_SOCK="$WORK/redis.sock"
redis-server --port 0 --unixsocket "$REDIS_SOCK" --unixsocketperm 700 --save "" --appendonly no \
  --logfile "$WORK/redis.log" &
REDIS_PID=$!
trap 'kill "$REDIS_PID" 2>/dev/null; wp_stack_mariadb_stop >/dev/null 2>&1' EXIT
for _ in $(seq 100); do redis-cli -s "$REDIS_SOCK" ping >/dev/null 2>&1 && break; sleep 0.05; done

wp_stack_install_packages >/dev/null
mkdir -p "$WP_STACK_RUN" "$WP_STACK_LOGS"
wp_stack_mariadb_start >/dev/null || { echo "MariaDB did not start"; echo "0 passed, 1 failed"; exit 0; }
_wps_mysql_root -e "CREATE DATABASE IF NOT EXISTS wptests CHARACTER SET utf8mb4;
  GRANT ALL PRIVILEGES ON wptests.* TO '$WP_STACK_DB_USER'@'localhost';"

POLYFILLS="$WORK/polyfills"
mkdir -p "$POLYFILLS"
git --git-dir="$POLYFILLS_GIT" archive 1.x | tar -x -C "$POLYFILLS"

TABLE="$WORK/table.txt"
# Scripts Redis has run (every call of the tier is one).
redis_calls() {
  redis-cli -s "$REDIS_SOCK" info commandstats | sed -n 's/^cmdstat_eval\(sha\)\{0,1\}:calls=\([0-9]*\).*/\2/p' | awk '{s += $1} END {print s + 0}'
}
for branch in $BRANCHES; do
  dir="$WORK/wp-$branch"
  mkdir -p "$dir"
  git --git-dir="$WPDEV_GIT" archive "$branch" src tests/phpunit/includes tests/phpunit/tests/cache.php \
    tests/phpunit/data/themedir1 phpunit.xml.dist wp-tests-config-sample.php | tar -x -C "$dir"
  # 6.3 and later load the WordPress Importer in their bootstrap; the cache tests never use it.
  mkdir -p "$dir/tests/phpunit/data/plugins/wordpress-importer"
  touch "$dir/tests/phpunit/data/plugins/wordpress-importer/wordpress-importer.php"
  sed -e "s/youremptytestdbnamehere/wptests/" -e "s/yourusernamehere/$WP_STACK_DB_USER/" \
    -e "s/yourpasswordhere/$WP_STACK_DB_PASSWORD/" -e "s#'localhost'#'localhost:$WP_STACK_MYSQL_SOCKET'#" \
    "$dir/wp-tests-config-sample.php" >"$dir/wp-tests-config.php"
  echo "define( 'WP_TESTS_PHPUNIT_POLYFILLS_PATH', '$POLYFILLS' );" >>"$dir/wp-tests-config.php"
  ln -sf "$ROOT/wordpress/object-cache.php" "$dir/src/wp-content/object-cache.php"
  core=$(sed -n "s/^\$wp_version = '\(.*\)';/\1/p" "$dir/src/wp-includes/version.php")
  for install in single multisite; do
    for mode in shared tiered fallback; do
      args=()
      case $mode in
        shared) args=(-d "extension=$SO" -d shmcache.enable_cli=1) ;;
        tiered) args=(-d "extension=$SO" -d shmcache.enable_cli=1 -d "shmcache.redis=unix://$REDIS_SOCK"
                      -d "shmcache.redis_prefix=wp$branch-$install:") ;;
      esac
      out="$WORK/$branch-$install-$mode.txt"
      calls_before=$(redis_calls)
      (cd "$dir" && WP_MULTISITE=$([ "$install" = multisite ] && echo 1 || echo 0) \
        "php$PHP_VER" "${args[@]}" "${PHPUNIT_ARGS[@]}" "$PHPUNIT" "${PHPUNIT_OPTS[@]}" -c phpunit.xml.dist tests/phpunit/tests/cache.php >"$out" 2>&1)
      tests=$(sed -n 's/^Tests: \([0-9]*\),.*/\1/p; s/^OK (\([0-9]*\) tests.*/\1/p' "$out" | tail -n 1)
      fails=$(sed -n 's/^Tests:.* Failures: \([0-9]*\).*/\1/p' "$out" | tail -n 1)
      errors=$(sed -n 's/^Tests:.* Errors: \([0-9]*\).*/\1/p' "$out" | tail -n 1)
      skipped=$(sed -n 's/^Tests:.* Skipped: \([0-9]*\).*/\1/p' "$out" | tail -n 1)
      failed_tests=$(grep -oE '^[0-9]+\) [A-Za-z_]+::[A-Za-z_]+' "$out" | sed 's/.*:://' | sort -u | tr '\n' ' ')
      tests=${tests:-0} fails=${fails:-0} errors=${errors:-0} skipped=${skipped:-0}
      ran_multisite=$(grep -c "Running as multisite" "$out")
      redis_used=$(( $(redis_calls) - calls_before ))
      line="$branch ($core) | $install | $mode | tests $tests, failures $fails, errors $errors, skipped $skipped ${failed_tests:+($failed_tests)}, Redis scripts run $redis_used"
      echo "$line" | tee -a "$TABLE"
      expected_ok=no
      # Tiered runs must have gone through Redis, and the others not.
      redis_as_expected=$([ "$redis_used" -gt 0 ] && echo tiered || echo other)
      [ "$mode" = tiered ] || redis_as_expected=$([ "$redis_as_expected" = other ] && echo "$mode")
      if [ "$tests" -gt 0 ] && [ "$errors" = 0 ] && [ "$redis_as_expected" = "$mode" ] \
        && { [ "$install" = single ] || [ "$ran_multisite" -gt 0 ]; }; then
        if [ "$mode" = fallback ]; then
          [ "$fails" = 0 ] && [ "$skipped" = 0 ] && expected_ok=yes
        else
          [ "$fails" = 1 ] && [ "$failed_tests" = "test_wp_cache_flush_group " ] && [ "$skipped" = 13 ] && expected_ok=yes
        fi
      fi
      check "$branch $install $mode as documented" test "$expected_ok" = yes
      [ "$expected_ok" = yes ] || tail -n 30 "$out"
    done
  done
done
echo "$passed passed, $failed failed"
