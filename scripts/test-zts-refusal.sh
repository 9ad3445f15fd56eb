#!/usr/bin/env bash
# ZTS (thread-safe) PHP builds are refused at build time (build.rs `refuse_zts`; issue 31, item
# 8). scripts/test.sh runs every scripts/test-*.sh. Cheap: no cargo build of its own, it runs the
# build script cargo already compiled for the release build, with the environment cargo gives it,
# against two php-configs: the machine's (NTS: the script compiles the C glue and succeeds) and
# a fake one whose first include directory holds the same main/php_config.h with `#define ZTS 1`
# (the script must stop with the message that says why). Ends with "N passed, N failed".
source "$(dirname "$0")/common.sh"
set +eu +o pipefail

need_so
script=$(ls -t "$ROOT"/target/release/build/shmcache-*/build-script-build 2>/dev/null | head -n 1)
[ -x "$script" ] || { echo "no compiled build script under target/release/build" >&2; echo "0 passed, 1 failed"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

real_includes=$(php-config --includes)
header=""
for flag in $real_includes; do
  [ -f "${flag#-I}/main/php_config.h" ] && { header="${flag#-I}/main/php_config.h"; break; }
done
mkdir -p "$tmp/zts/main" "$tmp/out-nts" "$tmp/out-zts"
{ cat "$header"; echo "#define ZTS 1"; } >"$tmp/zts/main/php_config.h"
cat >"$tmp/php-config-zts" <<CONF
#!/bin/sh
echo "-I$tmp/zts $real_includes"
CONF
chmod +x "$tmp/php-config-zts"

# run_script PHP_CONFIG OUT_DIR: the build script as cargo runs it (its output, then its status).
run_script() {
  local triple
  triple=$(rustc -vV | sed -n 's/^host: //p')
  (cd "$ROOT" && env CARGO_FEATURE_PHP=1 PHP_CONFIG="$1" OUT_DIR="$2" TARGET="$triple" HOST="$triple" \
    OPT_LEVEL=3 DEBUG=false PROFILE=release CARGO_MANIFEST_DIR="$ROOT" "$script") >"$2.log" 2>&1
}

run_script php-config "$tmp/out-nts"
check "an NTS PHP (this machine's) builds" test $? -eq 0
run_script "$tmp/php-config-zts" "$tmp/out-zts"
status=$?
check "a ZTS PHP is refused (status $status)" test "$status" -ne 0
check "with a message that says why" grep -q "shmcache does not support thread-safe (ZTS) PHP builds" "$tmp/out-zts.log"
check "before anything is compiled" test ! -e "$tmp/out-zts/libshmcache_serializer_state.a"
echo "$passed passed, $failed failed"
