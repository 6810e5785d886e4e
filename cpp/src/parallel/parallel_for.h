// parallel_for: the one way relpos code runs in parallel (attention driver, model layers).
//
//   parallel_for(begin, end, grain, fn)  calls fn(b, e, thread) for the chunks
//   [begin + k·grain, min(end, begin + (k+1)·grain)), k = 0, 1, …, each exactly once, spread over the
//   pool's threads; returns when all have run. `thread` ∈ [0, num_threads()) names the thread running
//   the chunk (index into per-thread scratch); no two chunks with the same index run at once.
//
// Determinism contract: the chunk boundaries depend only on (begin, end, grain), never on the thread
// count, so code that computes each output element inside one chunk gives bitwise identical results
// for any number of threads. Chunks run in no particular order and may run concurrently: fn must
// write disjoint outputs and keep scratch per `thread`.
// Nested calls (fn calling parallel_for) and calls while another thread owns the pool run inline on
// the calling thread, with its thread index. An exception thrown by fn is rethrown to the caller after
// every started chunk has finished.
// Small regions: parallel_for(begin, end, grain, fn, work) with `work` an estimate of the whole
// range's cost in flops (2 per multiply-add; element-wise passes: a few per element) runs the same
// chunks inline on the calling thread, without waking the pool, when work < kMinParallelWork — waking
// and joining a sleeping worker costs more than such a region saves. Only who runs the chunks
// changes (thread index 0, in order), so results stay bitwise identical. work < 0 (the default):
// unknown, the pool is used as before.
// Single-thread builds (no RELPOS_THREADS): an inline loop, no threading code linked.
#pragma once

#include <cstddef>
#include <utility>

namespace relpos::parallel {

using Index = std::ptrdiff_t;
using ChunkFn = void (*)(void* context, Index b, Index e, int thread);
using Work = double;

// Below this many flops per region, parallel_for runs inline: bench/src/parallel_threshold.cpp, the model
// layer's GEMM tiles at 1–128 rows, pool vs inline A/B (DEVELOPERS.md "Threads"). A region that has to wake
// a sleeping worker costs ~20–30 µs in WebAssembly (Node 20 Workers; SIMD128 GEMM then ~37 GFLOP/s, now 44)
// and ~8 µs natively (AVX-512 GEMM ~100 GFLOP/s): two threads then break even near 2 Mflop (inline/2 + wake
// = inline), and when the shared machine grants one core the wake is pure loss. Workers now spin ~200 µs
// after a region (pool.cpp), so back-to-back regions start in ~1 µs and the pool wins from 0.3 Mflop; the
// first region of a call still wakes. 1 Mflop was tried (ab_short, 2026-11-24): some 8-token rows 0.75×,
// others 1.1× — within the shared machine's noise, so the threshold stays at 4 Mflop (~90 µs inline).
constexpr Work kMinParallelWork = 4.0e6;

#ifdef RELPOS_THREADS
// Runs the chunks on the pool (parallel/pool.cpp); inline when 0 ≤ work < kMinParallelWork.
void run_chunks(Index begin, Index end, Index grain, ChunkFn fn, void* context, Work work);
#else
inline void run_chunks(Index begin, Index end, Index grain, ChunkFn fn, void* context, Work) {
  for (Index b = begin; b < end; b += grain) fn(context, b, b + grain < end ? b + grain : end, 0);
}
#endif

template <class F>
void parallel_for(Index begin, Index end, Index grain, F&& fn, Work work = -1) {
  if (end <= begin) return;
  if (grain < 1) grain = 1;
  using Fn = std::remove_reference_t<F>;
  run_chunks(begin, end, grain,
             [](void* context, Index b, Index e, int thread) { (*static_cast<Fn*>(context))(b, e, thread); },
             const_cast<void*>(static_cast<const void*>(&fn)), work);
}

// Number of chunks parallel_for makes of [begin, end) with this grain.
inline Index chunk_count(Index begin, Index end, Index grain) {
  return end <= begin ? 0 : (end - begin + grain - 1) / grain;
}

}  // namespace relpos::parallel
