// How a q8 linear layer (models::QuantizedMatrix::forward) splits over threads, and what its parts cost.
//   1. quantize vs product: kernels::quantize_rows_qs8 ns per element against gemm_qs8_packed ns per
//      multiply-add, 32 rows (a row block) at the layer shapes below — their ratio is linear_q8.cpp's
//      kQuantizeCost.
//   2. forward: QuantizedMatrix::forward ms per call (median of interleaved rounds) for each shape and row
//      count at the thread count given, and GFLOP/s. A/B of a change to linear_q8.cpp: link the changed .cpp
//      before the archive in a second binary and run the two alternately.
// Threaded builds (the pool in the archive):
//   native: c++ -O3 -march=native -pthread -DRELPOS_THREADS -Icpp/src -Icpp/include bench/src/q8_linear_pieces.cpp \
//             [cpp/src/models/layers/linear_q8.cpp] build/native/librelpos_native.a -o build/native/q8_linear_pieces
//   wasm:   emcc -O3 -std=c++17 -msimd128 -msse4.1 -pthread -DRELPOS_THREADS -fwasm-exceptions -Icpp/src -Icpp/include
//             -Ibuild/wasm/shim-include bench/src/q8_linear_pieces.cpp [cpp/src/models/layers/linear_q8.cpp]
//             build/wasm/librelpos_simd_threads.a -sPTHREAD_POOL_SIZE=16 -sENVIRONMENT=node,worker -sINITIAL_MEMORY=512MB
//             -sTOTAL_STACK=1MB -sEXIT_RUNTIME=1 -o build/wasm/bench/q8_linear_pieces.js
//           (beside a package.json {"type":"commonjs"}), then node --no-experimental-fetch build/wasm/bench/q8_linear_pieces.js 2
//   arguments: threads [rounds=15] [rows list, default 32,64,96,128,160,192,256] [shape names containing this]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/gemm_qs8.h"
#include "models/layers/linear_q8.h"
#include "relpos/threads.h"

using namespace relpos;

namespace {
double now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
std::vector<float> random_floats(std::size_t n, unsigned seed, float scale) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, scale);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}
struct Shape {
  const char* name;
  int K, N;
};
// MiniLM (384 → 384, 384 → 1536, 1536 → 384), Qwen3-0.6B (1024 → 1024, 1024 → 3072, 3072 → 1024),
// EmbeddingGemma (768 → 1152).
constexpr Shape kShapes[] = {{"minilm qkvo", 384, 384},   {"minilm up", 384, 1536},   {"minilm down", 1536, 384},
                             {"qwen3 qo", 1024, 1024},    {"qwen3 up", 1024, 3072},   {"qwen3 down", 3072, 1024},
                             {"gemma up", 768, 1152}};
}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 15;
  std::vector<int> row_counts = {32, 64, 96, 128, 160, 192, 256};
  if (argc > 3) {
    row_counts.clear();
    for (const char* p = argv[3]; *p;) {
      row_counts.push_back(std::atoi(p));
      p = std::strchr(p, ',');
      if (!p) break;
      ++p;
    }
  }
  set_num_threads(threads);
  std::printf("threads %d (in effect %d), rounds %d\n", threads, num_threads(), rounds);

  // 1. quantize vs product, one thread's kernels, 32 rows
  std::printf("\nquantize vs product, 32 rows: shape, quantize ns/element, product ns/multiply-add, ratio\n");
  for (const Shape& sh : kShapes) {
    const int M = 32;
    const auto w = random_floats(static_cast<std::size_t>(sh.N) * sh.K, 1, 0.05f);
    const auto x = random_floats(static_cast<std::size_t>(M) * sh.K, 2, 1.0f);
    std::vector<std::int8_t> packed(kernels::packed_qs8_bytes(sh.K, sh.N));
    std::vector<float> b_scales(sh.N), a_scales(M), y(static_cast<std::size_t>(M) * sh.N);
    const int qmax = kernels::pack_qs8_nk(sh.K, sh.N, w.data(), sh.K, packed.data(), b_scales.data());
    const std::size_t ldq = kernels::qs8_row_entries(sh.K);
    std::vector<std::int16_t> aq(ldq * M);
    std::vector<double> tq, tg;
    for (int r = 0; r < rounds * 4; ++r) {
      double t0 = now_us();
      for (int i = 0; i < 8; ++i) kernels::quantize_rows_qs8(M, sh.K, x.data(), sh.K, aq.data(), ldq, a_scales.data(), qmax);
      tq.push_back((now_us() - t0) / 8);
      t0 = now_us();
      kernels::gemm_qs8_packed(M, sh.N, sh.K, aq.data(), ldq, a_scales.data(), packed.data(), b_scales.data(), nullptr,
                               y.data(), sh.N);
      tg.push_back(now_us() - t0);
    }
    const double q_ns = median(tq) * 1e3 / (static_cast<double>(M) * sh.K);
    const double g_ns = median(tg) * 1e3 / (static_cast<double>(M) * sh.K * sh.N);
    std::printf("%-12s K %5d N %5d  %.3f  %.5f  %.1f\n", sh.name, sh.K, sh.N, q_ns, g_ns, q_ns / g_ns);
  }

  // 2. the layer's forward
  std::printf("\nforward: shape, rows, ms (median), GFLOP/s\n");
  const char* only = argc > 4 ? argv[4] : "";
  for (const Shape& sh : kShapes) {
    if (!std::strstr(sh.name, only)) continue;
    const auto w = random_floats(static_cast<std::size_t>(sh.N) * sh.K, 3, 0.05f);
    const auto bias = random_floats(static_cast<std::size_t>(sh.N), 4, 1.0f);
    const models::QuantizedMatrix layer(sh.K, sh.N, w.data());
    for (int M : row_counts) {
      const auto x = random_floats(static_cast<std::size_t>(M) * sh.K, 5, 1.0f);
      std::vector<float> y(static_cast<std::size_t>(M) * sh.N);
      layer.forward(M, x.data(), y.data(), bias.data());  // warm-up: buffers, pool
      std::vector<double> t;
      for (int r = 0; r < rounds; ++r) {
        const double t0 = now_us();
        layer.forward(M, x.data(), y.data(), bias.data());
        t.push_back(now_us() - t0);
      }
      const double ms = median(t) / 1e3;
      std::printf("%-12s K %5d N %5d rows %4d  %8.3f ms  %6.1f GFLOP/s\n", sh.name, sh.K, sh.N, M, ms,
                  2.0 * M * sh.K * sh.N / (ms * 1e6));
    }
  }
  return 0;
}
