// Catch2 entry point of the training-core suite: runs on 3 threads (RELPOS_TEST_THREADS overrides),
// like tests/cpp/main.cpp, so every test sees the threaded parallel_for.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdlib>

#include "relpos/threads.h"

int main(int argc, char* argv[]) {
  const char* env = std::getenv("RELPOS_TEST_THREADS");
  relpos::set_num_threads(env ? std::atoi(env) : 3);
  return Catch::Session().run(argc, argv);
}
