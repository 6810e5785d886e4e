#!/usr/bin/env bash
# Builds and runs bench/src/train_profile.cpp (issue #18 training profile) for WASM SIMD under node,
# against build/wasm/librelpos_simd.a (scripts/build.sh --package builds it):
#   bash bench/train_profile.sh [scheme|all] [reps]      (native: TRAIN_PROFILE_NATIVE=1, build/native)
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs
out=build/train-profile
mkdir -p $out
srcs=(bench/src/train_profile.cpp cpp/train/adamw.cpp cpp/train/gelu.cpp cpp/train/layernorm.cpp cpp/train/session.cpp cpp/train/tasks/*.cpp)
if [ -n "${TRAIN_PROFILE_NATIVE:-}" ]; then
  g++ -O3 -std=c++17 -march=native -pthread -Icpp/include -Icpp/src -Icpp/train "${srcs[@]}" build/native/librelpos_native.a -o $out/train_profile_native
  exec $out/train_profile_native "$@"
fi
emcc -O3 -std=c++17 -msimd128 -msse4.1 -fwasm-exceptions -Icpp/include -Icpp/src -Icpp/train -Ibuild/wasm/shim-include \
  "${srcs[@]}" build/wasm/librelpos_simd.a -fwasm-exceptions -sALLOW_MEMORY_GROWTH=1 -sENVIRONMENT=node -o $out/train_profile.cjs
exec node --no-experimental-fetch $out/train_profile.cjs "$@"
