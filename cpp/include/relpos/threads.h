// How many threads relpos computes with. One pool per process, created on first use and reused.
//   Native builds and the WebAssembly threads build (relpos-simd-threads): up to kMaxThreads.
//   Single-thread builds (relpos-simd, relpos-scalar): always 1.
// Results never depend on the count: work is cut into the same pieces whatever the count, and every
// output element is computed by the same code in the same order (bitwise identical).
#pragma once

namespace relpos {

constexpr int kMaxThreads = 64;

// Sets the pool size (threads including the caller's) and returns the count now in effect: n in
// threaded builds (fewer when the system cannot start more threads: in WebAssembly, 1 + the Workers
// created at start-up), 1 in single-thread builds. RangeError unless 1 ≤ n ≤ kMaxThreads. Not to be called
// while another thread is inside relpos.
int set_num_threads(int n);
int num_threads();
// True when this build was compiled with threads (native, relpos-simd-threads).
bool threads_available();

}  // namespace relpos
