// The packed-B GEMM at the model layers' shapes with few rows, B hot (the same packed matrix every call)
// and streamed (cycling through copies totalling ~48 MB, so B arrives from memory as a forward's weights
// do: a 6-layer encoder holds 20–90 MB of them). Prints GFLOP/s per shape and row count.
//   wasm: emcc -O3 -std=c++17 -msimd128 -msse4.1 -Icpp/src -Icpp/include -Ibuild/wasm/shim-include
//           bench/src/gemm_stream.cpp build/wasm/librelpos_simd.a -sENVIRONMENT=node -sINITIAL_MEMORY=128MB
//           -sALLOW_MEMORY_GROWTH=1 -sEXIT_RUNTIME=1 -o build/wasm/bench/gemm_stream.js
//         (beside a package.json {"type":"commonjs"}), then node --no-experimental-fetch build/wasm/bench/gemm_stream.js
// A/B of two library builds: link one binary against each and run them alternately (DEVELOPERS.md,
// "GEMM in WebAssembly").
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "kernels/gemm_f32.h"

using namespace relpos;

static double now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int main() {
  const int shapes[][2] = {{384, 384}, {384, 1536}, {1536, 384}, {512, 512}, {512, 2048}, {2048, 512}};
  std::printf("K\tN\tM\thot_gflops\tstreamed_gflops\tstreamed_GB_per_s\n");
  for (const auto& kn : shapes) {
    const int K = kn[0], N = kn[1];
    const int copies = std::max(1, static_cast<int>(48e6 / (4.0 * K * N)));
    std::vector<float> B(static_cast<std::size_t>(K) * N);
    for (std::size_t i = 0; i < B.size(); ++i) B[i] = static_cast<float>((i * 37) % 101) / 101.0f - 0.5f;
    std::vector<std::vector<float>> packed(copies, std::vector<float>(kernels::packed_b_floats(K, N)));
    for (auto& p : packed) kernels::pack_b_kn(K, N, B.data(), N, p.data());
    for (int M : {4, 8, 13, 16, 29, 32, 47, 64}) {
      std::vector<float> A(static_cast<std::size_t>(M) * K, 0.25f), C(static_cast<std::size_t>(M) * N);
      // per-call minima: one call (≤ 0.3 ms) is far shorter than a scheduler slice, so the minimum over
      // hundreds of calls is the kernel's own speed even on a shared, loaded machine (issue #41)
      double hot = 1e30, cold = 1e30;
      for (int rep = 0; rep < 3; ++rep) {
        for (int c = 0; c < copies; ++c) {
          const double t0 = now_us();
          kernels::gemm_f32_packed(M, N, K, 1.0f, A.data(), K, packed[0].data(), C.data(), N, false);
          hot = std::min(hot, now_us() - t0);
        }
        for (int c = 0; c < copies; ++c) {
          const double t0 = now_us();
          kernels::gemm_f32_packed(M, N, K, 1.0f, A.data(), K, packed[c].data(), C.data(), N, false);
          cold = std::min(cold, now_us() - t0);
        }
      }
      const double kflop = 2.0 * M * N * K / 1e3;
      std::printf("%d\t%d\t%d\t%.1f\t%.1f\t%.1f\n", K, N, M, kflop / hot, kflop / cold, 4.0 * K * N / cold / 1e3);
    }
  }
}
