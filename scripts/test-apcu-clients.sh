#!/usr/bin/env bash
# Real APCu clients, unmodified, on shmcache.apcu_compat=1 with the APCu extension not loaded:
#   - Symfony's ApcuAdapter (Debian's php-symfony-cache): save/getItems/hasItem/deleteItem(s),
#     stored null/false/0 told apart from misses (apcu_fetch's array form and &$success), a
#     deferred commit (apcu_store's array form), clear() of one namespace by prefix
#     (APCUIterator, only with apc.enable_cli on) leaving another namespace alone, a version
#     given to the constructor, enableVersioning(), expiry, Contracts' get() callback, tags
#     through TagAwareAdapter, PSR-16 through Psr16Cache;
#   - Illuminate's ApcStore (Laravel's "apc" store, php-illuminate-cache) behind a Repository:
#     put/forever/get/many, increment/decrement (apcu_inc creating the key), add, remember,
#     forget, flush;
#   - Composer's ClassLoader with setApcuPrefix(): a second loader that knows no directory
#     finds the class through the cache.
# Every check writes in one CLI process and reads in another: the processes share a named
# region (shmcache.region, an absolute path in a private temporary directory), so each check
# also proves the cache is shared, not per process.
# APCU_CLIENTS_PHP_ARGS (extra php -d settings, after the script's own) is for showing the
# checks fail: "-d shmcache.apcu_compat=0", or "-d shmcache.region=" (no sharing).
# Prints PASS/FAIL per check and ends with "N passed, N failed".
source "$(dirname "$0")/common.sh"
set +eu +o pipefail

apt_need php8.2-cli php-symfony-cache php-psr-simple-cache php-illuminate-cache composer
need_so

RUN=$(mktemp -d /tmp/shmcache-apcu-clients.XXXXXX)
trap 'rm -rf "$RUN"' EXIT
mkdir -p "$RUN/classes"
cat >"$RUN/classes/Greeter.php" <<'PHP'
<?php
namespace Demo;
class Greeter { public static function hello(): string { return 'hello from ' . basename(__FILE__); } }
PHP

# step STEP [ARG]: one step of tests/apcu/clients.php in a new process (php -n: no APCu, no
# other extension than shmcache).
step() {
  # shellcheck disable=SC2086 # APCU_CLIENTS_PHP_ARGS: extra settings, split on spaces
  timeout 60 php -n -d extension="$SO" -d display_errors=1 -d shmcache.enable_cli=1 -d shmcache.apcu_compat=1 \
    -d shmcache.region="$RUN/region" -d shmcache.keys_memory_size=1M -d shmcache.values_memory_size=8M \
    ${APCU_CLIENTS_PHP_ARGS:-} "$ROOT/tests/apcu/clients.php" "$@" 2>&1
}

# sees NAME EXPECTED STEP [ARG]: the step's line must be EXPECTED.
sees() {
  local name=$1 expected=$2
  shift 2
  local got
  got=$(step "$@")
  if [ "$got" != "$expected" ]; then
    printf '  expected: %s\n  got:      %s\n' "$expected" "$got"
  fi
  check "$name" test "$got" = "$expected"
}

# (With apcu_compat=1 shmcache registers a module entry named apcu, without functions, so that
# applications that look for the extension find it: php-tests/217. APCu's own has them all.)
check "APCu is not loaded, the apcu_* functions and APCUIterator are shmcache's" \
  test "$(timeout 30 php -n -d extension="$SO" -d shmcache.enable_cli=1 -d shmcache.apcu_compat=1 \
    ${APCU_CLIENTS_PHP_ARGS:-} -r 'echo extension_loaded("apcu") ? count((new ReflectionExtension("apcu"))->getFunctions()) . " functions in apcu" : "no apcu", " ",
      function_exists("apcu_fetch") ? (new ReflectionFunction("apcu_fetch"))->getExtensionName() : "none", " ",
      class_exists("APCUIterator") ? (new ReflectionClass("APCUIterator"))->getExtensionName() : "none";' 2>&1)" \
    = "0 functions in apcu shmcache shmcache"

log "Symfony ApcuAdapter"
sees "symfony: process A saves items (one by one, and deferred then committed)" \
  "saved saved saved saved committed saved" sf-save
sees "symfony: process B reads them, null/false/0 as hits, a missing key as a miss, the other namespace too" \
  'user.1=hit:{"name":"Ada","roles":["admin"]} nothing=hit:null no=hit:false zero=hit:0 deferred=hit:ArrayObject[1,2] missing=miss other:keep=hit:"kept"' sf-read
sees "symfony: hasItem in process B" "user.1=true missing=false" sf-has
step sf-delete >/dev/null
sees "symfony: deleteItem/deleteItems in one process, the others see them gone" \
  'nothing=hit:null no=hit:false deferred=hit:ArrayObject[1,2] user.1=miss zero=miss missing=miss other:keep=hit:"kept"' sf-read
sees "symfony: clear() in process B, of items process A wrote" 'nothing=hit:null cleared=true' sf-clear
sees "symfony: clear() of one namespace (by prefix through APCUIterator) empties it, another namespace is kept" \
  'user.1=miss nothing=miss no=miss zero=miss deferred=miss missing=miss other:keep=hit:"kept"' sf-read
step sf-save >/dev/null
sees "symfony: a pool of another version clears the namespace (written by another process) at construction" \
  "v1: nothing=hit:null v2: nothing=miss" sf-version v2
sees "symfony: ... for the other processes, still on the old version, too" 'nothing=miss other:keep=hit:"kept"' sf-version-read

step sf-versioning-save >/dev/null
sees "symfony: enableVersioning(), saved in A, hit in B" 'k=hit:"v" other:keep=hit:"kept"' sf-versioning-read
sees "symfony: enableVersioning(), clear() in B" 'k=hit:"v" cleared=true' sf-versioning-clear
sees "symfony: enableVersioning(), clear() in one process bumps the version the others read" 'k=miss other:keep=hit:"kept"' sf-versioning-read

step sf-ttl-save >/dev/null
# (5 s, not 1: on a loaded machine two PHP start-ups can take longer than a second.)
sees "symfony: expiresAfter(5) and (3600), both hits at once in another process" 'short=hit:"s" long=hit:"l"' sf-ttl-read
sleep 6.1
sees "symfony: 6 s later the 5 s item is a miss, the other a hit" 'long=hit:"l" short=miss' sf-ttl-read

sees "symfony: get() runs the callback of a missing item" '"computed by A"' sf-get A
sees "symfony: get() in another process gets that value without running its callback" '"computed by A"' sf-get B

step sf-tags-save >/dev/null
sees "symfony: TagAwareAdapter items saved in A are hits in B" 'a=hit:"A" b=hit:"B"' sf-tags-read
step sf-tags-invalidate >/dev/null
sees "symfony: invalidateTags(red) in one process: the red item is a miss elsewhere, the blue one is kept" \
  'a=miss b=hit:"B"' sf-tags-read

step sf-psr16-set >/dev/null
sees "symfony: Psr16Cache setMultiple in A, getMultiple/has in B" '{"x":1,"y":[2],"z":"default"} has_x=true' sf-psr16-get

log "Illuminate ApcStore"
sees "illuminate: process A puts, stores forever, increments a new key, adds, remembers" \
  'put=true forever=true increment=1 add=true remember="remembered by the writer"' il-write
sees "illuminate: process B reads them, increments from 1, cannot add, gets A's remembered value" \
  'k={"v":1} f="ever" many={"k":{"v":1},"nope":null} increment=6 decrement=5 add=false once="first" remember="remembered by the writer"' il-read
step il-forget >/dev/null
sees "illuminate: forget() in one process, gone for the others; the counter B left is 5" 'has_k=false f="ever" hits=5 after=null' il-state
sees "illuminate: flush() in process B of what A stored" 'f="ever" flush=true put=true' il-flush
sees "illuminate: flush() in one process empties the store for the others" 'has_k=false f=null hits=null after="written after the flush"' il-state

log "Composer ClassLoader (setApcuPrefix)"
sees "composer: a loader with a PSR-4 directory loads the class and caches its file" \
  "prefix=\"classes:\" loaded=true cached=\"${RUN//\//\\/}\\/classes\\/Greeter.php\"" cl-load "$RUN/classes"
sees "composer: a loader in another process that knows no directory finds the class through the cache" \
  'loaded=true says="hello from Greeter.php"' cl-cached

echo "$passed passed, $failed failed"
