#!/usr/bin/env bash
# `npm run test:sanitize`: the whole Catch2 suite and the training core's suite (cpp/train/tests: the code
# behind the lab WebAssembly module) built with -fsanitize=address,undefined (g++) and run; any report
# fails the run (-fno-sanitize-recover=all, ASan's default abort).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ccache-env.sh
[ -f build/sanitize/CMakeCache.txt ] ||
  cmake -S . -B build/sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRELPOS_SANITIZE=ON >/dev/null
cmake --build build/sanitize -j"$(nproc)" --target relpos_tests_native relpos_train_tests
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ./build/sanitize/relpos_tests_native
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ./build/sanitize/relpos_train_tests
