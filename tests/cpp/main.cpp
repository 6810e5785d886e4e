// Catch2 entry point for the native and WASM builds of the suite. Threaded builds (native,
// relpos-simd-threads) run the suite on 3 threads (RELPOS_TEST_THREADS overrides), so every test —
// and ThreadSanitizer (scripts/test-tsan.sh) — sees real concurrency.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdlib>

#include "relpos/threads.h"

int main(int argc, char* argv[]) {
  const char* env = std::getenv("RELPOS_TEST_THREADS");
  relpos::set_num_threads(env ? std::atoi(env) : 3);
  return Catch::Session().run(argc, argv);
}
