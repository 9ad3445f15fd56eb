#!/usr/bin/env bash
# Runs phpt tests under valgrind memcheck (run-tests.php -m: USE_ZEND_ALLOC=0, leak check) against
# the release build (which keeps debug symbols), and reports invalid reads/writes, uses of
# uninitialised memory and leaks. A report whose stack has a libshmcache frame fails the run;
# reports only in PHP or glibc are listed but not counted.
#
#   scripts/valgrind.sh                                 # the whole suite
#   scripts/valgrind.sh php-tests/008-objects.phpt ...  # chosen tests
#
# Not part of scripts/test.sh or CI: the whole suite takes a few minutes under valgrind.
source "$(dirname "$0")/common.sh"
apt_need valgrind
need_so
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=("$ROOT/php-tests")
run_tests=$(ls /usr/lib/php/*/build/run-tests.php | head -n 1)
export SHMCACHE_SO="$SO"
export TEST_PHP_EXECUTABLE=$(command -v php)
# glibc's loader reads a few bytes past an rpath string with SSE strncmp: not ours.
export VALGRIND_OPTS="--suppressions=$ROOT/scripts/valgrind.supp --num-callers=40 --leak-check=full --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect"
find "$ROOT/php-tests" -name '*.mem' -delete
# (the .mem files of the last run stay in php-tests/ for reading; .gitignore covers them)
log="$(mktemp)"
set +e
php "$run_tests" -q -m -j2 -p "$TEST_PHP_EXECUTABLE" -d extension="$SO" -d shmcache.enable_cli=1 "${tests[@]}" 2>&1 | tee "$log" | grep -E "^(FAIL|LEAK|BORK|SKIP)|^Tests (passed|failed)"
set -e
# Attribution: a report is ours when the first frame below the allocator (for leaks) or the
# faulting frame (for invalid accesses) is in libshmcache; otherwise it belongs to PHP or glibc
# (e.g. PHP's CLI never frees a self-referencing object under USE_ZEND_ALLOC=0, whoever
# unserialized it).
attribute() { # attribute MEMFILE: prints "ours N" and "theirs N"
  awk '
    /^==[0-9]+== [^ ]/ && !/^==[0-9]+==    / { if (inblock) finish(); inblock = 1; decided = 0; owner = ""; title = $0; next }
    /^==[0-9]+==    (at|by) / {
      if (!inblock || decided) next
      if ($0 ~ /vgpreload|: (malloc|calloc|realloc|free|__zend_malloc|__zend_realloc|__zend_calloc|_emalloc|_erealloc|_safe_emalloc|_ecalloc|zend_string_alloc) /) next
      owner = ($0 ~ /libshmcache|\.rs:[0-9]+\)/) ? "ours" : "theirs"; decided = 1; next
    }
    /^==[0-9]+== $/ { if (inblock) finish(); inblock = 0; next }
    function finish() { if (owner != "") { n[owner]++; if (owner == "ours") print "  " title > "/dev/stderr" } }
    END { if (inblock) finish(); printf "ours %d\ntheirs %d\n", n["ours"] + 0, n["theirs"] + 0 }
  ' "$1"
}
ours=0
theirs=0
for mem in $(find "$ROOT/php-tests" -name '*.mem' | sort); do
  counts=$(attribute "$mem")
  o=$(echo "$counts" | awk '/^ours/ {print $2}')
  t=$(echo "$counts" | awk '/^theirs/ {print $2}')
  if [ "$o" -gt 0 ]; then
    echo "SHMCACHE: $(basename "$mem" .mem): $o reports with a libshmcache frame on top (see $mem)"
    ours=$((ours + 1))
  else
    echo "not shmcache: $(basename "$mem" .mem): $t reports in PHP/glibc only"
    theirs=$((theirs + 1))
  fi
done
passed=$(sed -n 's/^Tests passed *: *\([0-9]*\).*/\1/p' "$log" | head -n 1)
leaked=$(sed -n 's/^Tests leaked *: *\([0-9]*\).*/\1/p' "$log" | head -n 1)
echo "valgrind: tests passed=${passed:-0} leaked/errors=${leaked:-0}; reports in shmcache: $ours tests; elsewhere only: $theirs tests"
rm -f "$log"
[ "$ours" -eq 0 ] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"
[ "$ours" -eq 0 ]
