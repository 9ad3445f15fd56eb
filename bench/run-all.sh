#!/usr/bin/env bash
# The whole side-by-side benchmark, one command: shmcache vs APCu, Yac, Memcached, Redis and a
# plain PHP array. Installs the peers from Debian, starts memcached and redis on unix sockets,
# runs the micro, contention and memory benchmarks and the WordPress page benchmark, and rewrites
# their tables in docs/benchmarks.md (each between two bench/report.py markers; the rest of the page
# is kept) and the PNG charts (docs/img/). Meant to finish within 10 minutes
# on 2 cores (at 843d1f7, with 0.7 s contention cells and 3 s WordPress cells, it took 10 min 2 s:
# hence the shorter defaults below).
#   BENCH_SECONDS (default 0.2)  measuring time per micro case and round (5 rounds)
#   BENCH_CONTENTION_SECONDS (default 0.5)  time per contention cell (each cache × size × mix × processes)
#   BENCH_SKIP_WP=1              skip the WordPress part
#   BENCH_WP_SECONDS (default 2)  time per WordPress cell and round
source "$(dirname "$0")/../scripts/common.sh"
build_release
apt_need php8.2-apcu php8.2-memcached php8.2-redis memcached redis-server apache2-utils python3-pip valgrind
python3 -c 'import matplotlib' 2>/dev/null || pip install -q matplotlib

OUT="$ROOT/target/bench"
# (Exported: report.py names it in the contention section.)
export BENCH_CONTENTION_SECONDS=${BENCH_CONTENTION_SECONDS:-0.5}
mkdir -p "$OUT"
# The source the figures belong to (the build above), for the page to name.
(cd "$ROOT" && git rev-parse --short HEAD 2>/dev/null && { git diff --quiet HEAD 2>/dev/null || echo "(with uncommitted changes)"; }) | paste -sd' ' >"$OUT/commit.txt" || true
YAC_SO="$ROOT/target/peers/yac/yac.so"
if [ ! -f "$YAC_SO" ]; then
  log "extracting yac.so from Debian's php8.2-yac (it conflicts with php8.2-apcu as a package)"
  tmp=$(mktemp -d)
  (cd "$tmp" && apt-get download php8.2-yac >/dev/null 2>&1 && dpkg -x php8.2-yac_*.deb x)
  mkdir -p "$(dirname "$YAC_SO")"
  cp "$(find "$tmp/x" -name yac.so | head -n 1)" "$YAC_SO"
  rm -rf "$tmp"
fi

MC_SOCK="$OUT/memcached.sock"
RD_SOCK="$OUT/redis.sock"
cleanup() {
  [ -f "$OUT/memcached.pid" ] && kill "$(cat "$OUT/memcached.pid")" 2>/dev/null || true
  [ -f "$OUT/redis.pid" ] && kill "$(cat "$OUT/redis.pid")" 2>/dev/null || true
}
trap cleanup EXIT

start_servers() { # start_servers MEMORY_MB
  cleanup
  sleep 0.2
  rm -f "$MC_SOCK" "$RD_SOCK"
  memcached -d -u root -s "$MC_SOCK" -a 0600 -m "$1" -P "$OUT/memcached.pid" -c 1024
  redis-server --unixsocket "$RD_SOCK" --unixsocketperm 600 --port 0 --daemonize yes \
    --pidfile "$OUT/redis.pid" --save '' --appendonly no --maxmemory "${1}mb" --maxmemory-policy allkeys-lru \
    --dir "$OUT" --logfile "$OUT/redis.log"
  for _ in $(seq 1 50); do [ -S "$MC_SOCK" ] && [ -S "$RD_SOCK" ] && return 0; sleep 0.1; done
  echo "memcached or redis did not start" >&2
  return 1
}

# php_all MEMORY: php with every cache loaded and sized to MEMORY (e.g. 256M)
php_all() {
  local mem=$1
  shift
  BENCH_MEMCACHED_SOCKET="$MC_SOCK" BENCH_REDIS_SOCKET="$RD_SOCK" php -n \
    -d extension="$(php-config --extension-dir)/apcu.so" -d apc.enable_cli=1 -d apc.shm_size="$mem" -d apc.entries_hint=200000 \
    -d extension="$YAC_SO" -d yac.enable_cli=1 -d yac.keys_memory_size=16M -d yac.values_memory_size="$mem" \
    -d extension="$(php-config --extension-dir)/igbinary.so" \
    -d extension="$(php-config --extension-dir)/msgpack.so" \
    -d extension="$(php-config --extension-dir)/memcached.so" \
    -d extension="$(php-config --extension-dir)/redis.so" \
    -d extension="$(php-config --extension-dir)/sockets.so" \
    -d extension="$SO" -d shmcache.enable_cli=1 -d shmcache.keys_memory_size=4M -d shmcache.values_memory_size="$mem" \
    -d memory_limit=2G ${SHM_EXTRA:-} "$@"
}

start_servers 512
log "micro benchmarks"
php_all 256M "$ROOT/bench/suite.php" micro --json "$OUT/micro.json" | tee "$OUT/micro.md"
log "micro, 50 KB compressible string, shmcache compression off"
SHM_EXTRA="-d shmcache.compress_threshold=0" BENCH_MICRO_VALUES='50 KB compressible' \
  BENCH_MICRO_LABEL=' (shmcache compression off)' php_all 256M "$ROOT/bench/suite.php" micro | tee "$OUT/micro-nocompress.md"
log "instructions per operation (callgrind)"
bash "$ROOT/bench/instructions.sh" | tee "$OUT/instructions.md"
log "contention: 1, 2, 4 processes, enough memory"
BENCH_SECONDS=$BENCH_CONTENTION_SECONDS php_all 256M "$ROOT/bench/suite.php" contention --json "$OUT/contention.json" | tee "$OUT/contention.md"
log "contention: value memory smaller than the working set (every cache gets 4 MB)"
start_servers 4
BENCH_CONTENTION_KEYS=4000 BENCH_CONTENTION_LABEL='4 MB memory, ' BENCH_SECONDS=$BENCH_CONTENTION_SECONDS \
  php_all 4M "$ROOT/bench/suite.php" contention --json "$OUT/contention-small.json" | tee "$OUT/contention-small.md"
start_servers 1024
log "memory per entry, 100,000 WordPress-like entries"
php_all 768M "$ROOT/bench/suite.php" memory --json "$OUT/memory.json" | tee "$OUT/memory.md"

if [ "${BENCH_SKIP_WP:-0}" != 1 ]; then
  log "WordPress pages"
  # 2 s per cell here (wordpress.sh alone: 3 s), to keep the whole run within 10 minutes.
  BENCH_WP_SECONDS=${BENCH_WP_SECONDS:-2} bash "$ROOT/bench/wordpress.sh" | tee "$OUT/wordpress.md"
fi

python3 "$ROOT/bench/report.py" "$OUT" "$ROOT/docs"
log "wrote docs/benchmarks.md"
