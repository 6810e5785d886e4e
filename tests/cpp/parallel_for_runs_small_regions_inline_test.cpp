// parallel_for's work hint (parallel/parallel_for.h): a region whose estimated work is below
// parallel::kMinParallelWork runs every chunk inline on the calling thread, in order, with thread index 0,
// without waking the pool; at or above it (or with no estimate) the pool may run them. Either way the chunks
// are exactly [begin + k·grain, min(end, begin + (k+1)·grain)) — the same pieces for any thread count and
// any work estimate, which is what keeps results bitwise identical.
#include <algorithm>
#include <mutex>
#include <thread>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include "parallel/parallel_for.h"
#include "relpos/threads.h"
#include "test_support.h"

using ts::ThreadCountGuard;

namespace {
struct Chunk {
  relpos::parallel::Index b, e;
  int thread;
  std::thread::id os_thread;
};

std::vector<Chunk> run(relpos::parallel::Index begin, relpos::parallel::Index end, relpos::parallel::Index grain,
                       relpos::parallel::Work work) {
  std::mutex m;
  std::vector<Chunk> chunks;
  relpos::parallel::parallel_for(
      begin, end, grain,
      [&](relpos::parallel::Index b, relpos::parallel::Index e, int thread) {
        volatile double sink = 0;  // a little work per chunk, so a woken worker has something to take
        for (int i = 0; i < 20000; ++i) sink = sink + i * 0.5;
        std::lock_guard<std::mutex> lock(m);
        chunks.push_back({b, e, thread, std::this_thread::get_id()});
      },
      work);
  return chunks;
}

std::vector<std::pair<relpos::parallel::Index, relpos::parallel::Index>> pieces(std::vector<Chunk> chunks) {
  std::vector<std::pair<relpos::parallel::Index, relpos::parallel::Index>> out;
  for (const Chunk& c : chunks) out.emplace_back(c.b, c.e);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("parallel_for runs a region below kMinParallelWork inline: every chunk on the caller, in order, thread 0", "[threads]") {
  ThreadCountGuard guard;
  relpos::set_num_threads(relpos::threads_available() ? 3 : 1);
  const auto chunks = run(5, 48, 4, relpos::parallel::kMinParallelWork / 2);
  REQUIRE(chunks.size() == 11);
  for (std::size_t k = 0; k < chunks.size(); ++k) {
    CHECK(chunks[k].b == 5 + 4 * static_cast<relpos::parallel::Index>(k));
    CHECK(chunks[k].e == std::min<relpos::parallel::Index>(48, chunks[k].b + 4));
    CHECK(chunks[k].thread == 0);
    CHECK(chunks[k].os_thread == std::this_thread::get_id());
  }
}

TEST_CASE("parallel_for makes the same chunks whatever the work estimate and thread count", "[threads]") {
  ThreadCountGuard guard;
  const auto expected = pieces(run(5, 48, 4, 0));
  for (int threads : {1, 2, 3}) {
    relpos::set_num_threads(threads);
    for (relpos::parallel::Work work : {-1.0, 0.0, relpos::parallel::kMinParallelWork, 1e12}) {
      INFO(threads << " threads, work " << work);
      const auto chunks = run(5, 48, 4, work);
      CHECK(pieces(chunks) == expected);
      for (const Chunk& c : chunks) CHECK((c.thread >= 0 && c.thread < relpos::num_threads()));
    }
  }
}
