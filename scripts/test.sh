#!/usr/bin/env bash
# `npm test`: bootstrap a fresh machine, build everything, run every suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
bash scripts/build.sh
echo "== Checkpoint variants (pytorch_model.bin, shards, hostile files) from the HF fixtures =="
/usr/bin/python3 scripts/make-checkpoint-variants.py

echo "== Catch2 suite: native =="
ctest --test-dir build/native --output-on-failure
echo "== Catch2 suites (library + training core): native, AddressSanitizer + UndefinedBehaviorSanitizer =="
bash scripts/test-sanitize.sh
echo "== Catch2 suites (library + training core): native, ThreadSanitizer (3 threads) =="
bash scripts/test-tsan.sh
echo "== Fuzzing: libFuzzer targets (fuzz/), 45 s each =="
bash scripts/fuzz.sh 45
echo "== Catch2 suite: WebAssembly (SIMD128 and scalar, under node) =="
ctest --test-dir build/wasm --output-on-failure

echo "== SentencePiece models and the library's reference ids (build/spm) =="
/usr/bin/python3 scripts/make-spm-models.py
if compgen -G "tests/js/*.test.mjs" >/dev/null; then
  echo "== JavaScript package tests (node --test) =="
  node --test tests/js/
fi
if compgen -G "tests/browser/*.test.mjs" >/dev/null; then
  echo "== Browser tests (Chromium) =="
  node --test --test-concurrency=1 tests/browser/
fi
