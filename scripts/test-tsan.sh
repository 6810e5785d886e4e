#!/usr/bin/env bash
# `npm run test:tsan`: the whole Catch2 suite built with -fsanitize=thread (g++, RELPOS_TSAN) and run
# on 3 threads (tests/cpp/main.cpp), so parallel_for's pool and every parallel region run concurrently;
# any data race report fails the run (halt_on_error). The training core's suite (cpp/train/tests, also on
# 3 threads: its forward/backward/AdamW regions) runs the same way, beside it (its output follows the library's).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ccache-env.sh
[ -f build/tsan/CMakeCache.txt ] ||
  cmake -S . -B build/tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRELPOS_TSAN=ON >/dev/null
cmake --build build/tsan -j"$(nproc)" --target relpos_tests_native relpos_train_tests
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
source scripts/side-by-side.sh
side_by_side ./build/tsan/relpos_tests_native -- ./build/tsan/relpos_train_tests
