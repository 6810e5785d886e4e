// Where does a parallel region start paying for its wake-up? (parallel_for's kMinParallelWork)
// For the model layer's linear-layer shapes at few rows, times the same region — fp32 packed GEMM
// split over 96×64 output tiles, as models/layers/parallel_rows.cpp does — run on the pool
// (parallel_for with work = -1: always wake) and inline on the calling thread (work = 0), interleaved
// A/B in one process, wall and process CPU time per call. Threaded builds only:
//   native: c++ -O3 -march=native -pthread -DRELPOS_THREADS -Icpp/src -Icpp/include bench/src/parallel_threshold.cpp \
//             build/native/librelpos_native.a -o build/native/parallel_threshold
//   wasm:   emcc -O3 -std=c++17 -msimd128 -msse4.1 -pthread -DRELPOS_THREADS -fexceptions -Icpp/src -Icpp/include
//             -Ibuild/wasm/shim-include bench/src/parallel_threshold.cpp build/wasm/librelpos_simd_threads.a
//             -sDISABLE_EXCEPTION_CATCHING=0 -sPTHREAD_POOL_SIZE=2 -sPTHREAD_POOL_SIZE_STRICT=2 -sENVIRONMENT=node,worker
//             -sINITIAL_MEMORY=64MB -sTOTAL_STACK=1MB -sEXIT_RUNTIME=1 -o build/wasm/bench/parallel_threshold.js
//           (beside a package.json {"type":"commonjs"}), then node --no-experimental-fetch build/wasm/bench/parallel_threshold.js 2
//           (WebAssembly has no process CPU clock: its CPU columns read 0)
// Prints one line per shape: rows, N, K, flops, µs inline / pool (wall, medians), pool ÷ inline, CPU µs.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <vector>

#include "kernels/gemm_f32.h"
#include "parallel/parallel_for.h"
#include "relpos/threads.h"

using namespace relpos;

static double now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
static double cpu_us() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}
static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main(int argc, char** argv) {
  const int threads = set_num_threads(argc > 1 ? std::atoi(argv[1]) : 2);
  std::printf("threads %d, kMinParallelWork %.3g flops\n", threads, parallel::kMinParallelWork);
  std::printf("rows\tN\tK\tchunks\tMflop\tinline_us\tpool_us\tpool/inline\tinline_cpu_us\tpool_cpu_us\n");
  const int shapes[][2] = {{384, 384}, {1536, 384}, {384, 1536}};
  for (const auto& nk : shapes) {
    const int N = nk[0], K = nk[1];
    std::vector<float> B(static_cast<std::size_t>(K) * N), packed(kernels::packed_b_floats(K, N));
    for (std::size_t i = 0; i < B.size(); ++i) B[i] = static_cast<float>((i * 37) % 101) / 101.0f - 0.5f;
    kernels::pack_b_kn(K, N, B.data(), N, packed.data());
    for (int M : {1, 2, 4, 8, 16, 32, 64, 128}) {
      std::vector<float> A(static_cast<std::size_t>(M) * K, 0.25f), C(static_cast<std::size_t>(M) * N);
      const int row_tiles = (M + 95) / 96, col_tiles = (N + 63) / 64;
      auto region = [&](parallel::Work work) {
        parallel::parallel_for(0, static_cast<parallel::Index>(row_tiles) * col_tiles, 1,
                               [&](parallel::Index t0, parallel::Index t1, int) {
                                 for (parallel::Index t = t0; t < t1; ++t) {
                                   const int r0 = static_cast<int>(t / col_tiles) * 96, c0 = static_cast<int>(t % col_tiles) * 64;
                                   kernels::gemm_f32_packed(std::min(96, M - r0), std::min(64, N - c0), K, 1.0f, A.data() + static_cast<std::size_t>(r0) * K, K,
                                                            packed.data() + static_cast<std::size_t>(c0 / 64 * 64) * K, C.data() + static_cast<std::size_t>(r0) * N + c0, N, false);
                                 }
                               },
                               work);
      };
      const double flops = 2.0 * M * N * K;
      const int calls = std::max(4, static_cast<int>(4e7 / flops));  // ~1–2 ms of work per timed batch
      std::vector<double> wi, wp, ci, cp;
      for (int w = 0; w < 3; ++w) { region(0); region(-1); }
      for (int round = 0; round < 15; ++round) {
        for (int which = 0; which < 2; ++which) {
          const bool pool = (which + round) % 2;
          const double t0 = now_us(), c0 = cpu_us();
          for (int c = 0; c < calls; ++c) region(pool ? -1 : 0);
          const double wall = (now_us() - t0) / calls, cpu = (cpu_us() - c0) / calls;
          (pool ? wp : wi).push_back(wall);
          (pool ? cp : ci).push_back(cpu);
        }
      }
      std::printf("%d\t%d\t%d\t%d\t%.2f\t%.1f\t%.1f\t%.2f\t%.1f\t%.1f\n", M, N, K, row_tiles * col_tiles, flops / 1e6, median(wi), median(wp),
                  median(wp) / median(wi), median(ci), median(cp));
    }
  }
}
