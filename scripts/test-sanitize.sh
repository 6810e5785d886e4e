#!/usr/bin/env bash
# `npm run test:sanitize`: the whole Catch2 suite and the training core's suite (cpp/train/tests: the code
# behind the lab WebAssembly module) built with -fsanitize=address,undefined (g++) and run; any report
# fails the run (-fno-sanitize-recover=all, ASan's default abort). The two suites run side by side (the training
# core's output follows the library's).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ccache-env.sh
[ -f build/sanitize/CMakeCache.txt ] ||
  cmake -S . -B build/sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRELPOS_SANITIZE=ON >/dev/null
cmake --build build/sanitize -j"$(nproc)" --target relpos_tests_native relpos_train_tests
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
source scripts/side-by-side.sh
side_by_side ./build/sanitize/relpos_tests_native -- ./build/sanitize/relpos_train_tests
