#!/usr/bin/env bash
# Fuzzes with cargo-fuzz (libFuzzer + AddressSanitizer, debug assertions), each target for a
# bounded time, starting from the seed corpus in fuzz/corpus/<target>/ (copied: the committed
# corpus stays small). Fails on any crash, panic, sanitizer report or time-out.
#
#   scripts/fuzz.sh                      # every target, FUZZ_SECONDS (default 60) each
#   FUZZ_SECONDS=600 scripts/fuzz.sh region_corruption
#
# CI runs it through scripts/test-fuzz.sh (part of scripts/test.sh), 30 s per target: with
# installing cargo-fuzz and the first instrumented build, about 3½ minutes on 2 cores.
#
# fuzz/regressions/<target>/ holds inputs that found bugs; they run first.
# Targets (fuzz/fuzz_targets/): region_corruption (byte writes into a live region's index, ring
# and namespace table; every hit must be a value stored for that key), entry_read (arbitrary
# bytes, optionally with a valid checksum, as the entry a key's slot points at: header checks
# and LZ4 decompression), native_value (the native decoder of arrays and stdClass objects on arbitrary bytes, and
# encode/decode round trips of generated values), lz4_decode (the engine's LZ4 decoder against
# lz4_flex on arbitrary blocks, and round trips), keys (see fuzz/fuzz_targets/keys.rs).
# A crash input is kept in fuzz/artifacts/<target>/; replay it with
#   RUSTC_BOOTSTRAP=1 cargo fuzz run -a <target> fuzz/artifacts/<target>/crash-...   (in fuzz/)
# Prints "PASS: <target>: N runs in Ns" per target and ends with "N passed, N failed".
source "$(dirname "$0")/common.sh"
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in "$ROOT"/fuzz/fuzz_targets/*.rs; do
    targets+=("$(basename "$f" .rs)")
  done
fi

# A failure before any target runs still ends with the result line scripts/test.sh reads.
give_up() {
  echo "FAIL: $1"
  echo "0 passed, 1 failed"
  exit 1
}

apt_need clang g++
if ! cargo fuzz --version >/dev/null 2>&1; then
  log "installing cargo-fuzz"
  cargo install cargo-fuzz --locked || give_up "cargo install cargo-fuzz"
fi
# cargo-fuzz passes nightly-only flags (-Zsanitizer=address); on a stable toolchain,
# RUSTC_BOOTSTRAP=1 lets rustc accept them.
if ! rustc --version | grep -q nightly; then
  export RUSTC_BOOTSTRAP=1
fi

log "corruption regression tests (engine, fuzzing feature)"
(cd "$ROOT" && cargo test --release --quiet --no-default-features --features fuzzing --target-dir target/engine --test damaged_entry) \
  || give_up "corruption regression tests (tests/damaged_entry.rs)"

cd "$ROOT/fuzz"
log "building the fuzz targets (ASan, debug assertions)"
cargo fuzz build -a || give_up "building the fuzz targets"

passed=0
failed=0
for t in "${targets[@]}"; do
  work=$(mktemp -d)
  cp "corpus/$t/"* "$work/" 2>/dev/null || true
  # Inputs that once found a bug run first.
  cp "regressions/$t/"* "$work/" 2>/dev/null || true
  mkdir -p "artifacts/$t"
  log "fuzzing $t for ${FUZZ_SECONDS}s"
  out=$(mktemp)
  started=$SECONDS
  set +e
  cargo fuzz run -a "$t" "$work" -- -max_total_time="$FUZZ_SECONDS" -timeout=20 -rss_limit_mb=2048 \
    -artifact_prefix="artifacts/$t/" -print_final_stats=1 >"$out" 2>&1
  rc=$?
  set -e
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out" | tail -n 1)
  edges=$(grep -o 'cov: [0-9]*' "$out" | tail -n 1 | cut -d' ' -f2 || true)
  if [ "$rc" -eq 0 ] && [ -n "$runs" ]; then
    echo "PASS: $t: $runs runs in $((SECONDS - started))s, no crash (coverage ${edges:-?} edges)"
    passed=$((passed + 1))
  else
    echo "FAIL: $t (exit $rc)"
    grep -E "panicked|ERROR: AddressSanitizer|ERROR: libFuzzer|SUMMARY|Test unit written" -A2 "$out" | head -n 20 || true
    failed=$((failed + 1))
  fi
  rm -rf "$work" "$out"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
