#!/usr/bin/env bash
# Builds the native library + Catch2 suite (build/native) and the WebAssembly libraries, suite and
# npm package files (build/wasm). Incremental: re-running only rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs   # Debian's emcc optimizer needs acorn from here
jobs=$(nproc)

[ -f build/native/CMakeCache.txt ] || cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/native -j"$jobs"

[ -f build/wasm/CMakeCache.txt ] || emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/wasm -j"$jobs"
