#!/usr/bin/env bash
# Builds the native library + Catch2 suite (build/native) and the WebAssembly libraries, suite and
# npm package files (build/wasm → web/dist). Incremental: re-running only rebuilds what changed.
#   --package   only the npm package's .js/.wasm (inference and lab modules; what `npm start` needs), no native build or tests
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs   # Debian's emcc optimizer needs acorn from here
jobs=$(nproc)
source scripts/ccache-env.sh

wasm_targets=()
if [ "${1:-}" = "--package" ]; then
  wasm_targets=(--target relpos_package_simd relpos_package_scalar relpos_package_simd_threads relpos_lab_package_simd relpos_lab_package_scalar)
else
  [ -f build/native/CMakeCache.txt ] || cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build/native -j"$jobs"
fi

[ -f build/wasm/CMakeCache.txt ] || emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/wasm -j"$jobs" "${wasm_targets[@]}"
