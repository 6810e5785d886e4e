#!/usr/bin/env bash
# `npm test`: bootstrap a fresh machine, build everything, run every suite.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each step prints its wall time when the next begins; at exit the table goes to build/npm-test-times.txt (not to the
# log, whose last lines stay the test runner's summary). CI allows 90 minutes and this run is kept under 45.
step_names=(); step_secs=(); step_started=$SECONDS; step_name=bootstrap
step() {
  step_names+=("$step_name"); step_secs+=($((SECONDS - step_started)))
  echo "   ($step_name: $((SECONDS - step_started)) s)"
  step_name=$1; step_started=$SECONDS
  echo "== $1 =="
}
step_report() {
  step_names+=("$step_name"); step_secs+=($((SECONDS - step_started)))
  mkdir -p build
  { for i in "${!step_names[@]}"; do printf '%6d  %s\n' "${step_secs[$i]}" "${step_names[$i]}"; done
    printf '%6d  total\n' "$SECONDS"; } > build/npm-test-times.txt
}
trap step_report EXIT
bash scripts/bootstrap.sh
step "Build (native + WebAssembly)"
bash scripts/build.sh
step "Checkpoint variants (pytorch_model.bin, shards, hostile files) from the HF fixtures"
/usr/bin/python3 scripts/make-checkpoint-variants.py

step "Catch2 suite: native"
# The suites of a build folder run side by side (-j: native and scalar here, SIMD128, scalar and threads below):
# mostly one busy thread each.
ctest --test-dir build/native --output-on-failure -j"$(nproc)"
step "Catch2 suites (library + training core): native, AddressSanitizer + UndefinedBehaviorSanitizer"
bash scripts/test-sanitize.sh
step "Catch2 suites (library + training core): native, ThreadSanitizer (3 threads)"
bash scripts/test-tsan.sh
step "Fuzzing: libFuzzer targets (fuzz/), 45 s each"
bash scripts/fuzz.sh 45
step "Catch2 suite: WebAssembly (SIMD128 and scalar, under node)"
ctest --test-dir build/wasm --output-on-failure -j"$(nproc)"

step "SentencePiece models and the library's reference ids (build/spm)"
/usr/bin/python3 scripts/make-spm-models.py
if compgen -G "tests/js/*.test.mjs" >/dev/null; then
  # Two to four test files at a time (node's default on 2 cores is one): each file is one process, mostly one busy
  # thread; on a 2-core machine the suite went from 799 s to 508 s, every test passing (no test times anything).
  js_jobs=$(nproc); [ "$js_jobs" -lt 2 ] && js_jobs=2; [ "$js_jobs" -gt 4 ] && js_jobs=4
  step "JavaScript package tests (node --test, $js_jobs files at a time)"
  node --test --test-concurrency="$js_jobs" tests/js/
fi
if compgen -G "tests/browser/*.test.mjs" >/dev/null; then
  step "Browser tests (Chromium)"
  node --test --test-concurrency=1 tests/browser/
fi
