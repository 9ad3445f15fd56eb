#!/usr/bin/env bash
# Fuzzing in the test command (scripts/test.sh runs every scripts/test-*.sh): every cargo-fuzz
# target of fuzz/ for FUZZ_SECONDS (default 30) each, through scripts/fuzz.sh, which installs
# cargo-fuzz when missing and fails on any crash. Ends with "N passed, N failed".
export FUZZ_SECONDS=${FUZZ_SECONDS:-30}
exec bash "$(dirname "$0")/fuzz.sh" "$@"
