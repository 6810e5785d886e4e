// Thread count of this build (relpos/threads.h): setNumThreads(n) → the count in effect (1 in the
// single-thread builds; in relpos-simd-threads at most 1 + the Workers created at start-up),
// numThreads(), threadsAvailable(). RangeError for n outside [1, 64].
#include <emscripten/bind.h>

#include "common.h"
#include "relpos/threads.h"

using namespace emscripten;

namespace relpos::bindings {
namespace {
val set_threads(int n) {
  return guarded([&] { return val(relpos::set_num_threads(n)); });
}
}  // namespace
}  // namespace relpos::bindings

EMSCRIPTEN_BINDINGS(relpos_threads) {
  function("setNumThreads", &relpos::bindings::set_threads);
  function("numThreads", &relpos::num_threads);
  function("threadsAvailable", &relpos::threads_available);
}
