// What do the model layer's element-wise passes cost per element, next to a GEMM flop? (the `work`
// estimates models/layers/{norms,activations}.cpp pass to parallel_for, parallel_for.h)
// Times LayerNorm, RmsNorm and the activations inline (1 thread) at the bench models' widths and reports
// ns per element and "GEMM-flop equivalents" per element: ns × the packed GEMM's measured GFLOP/s at a
// linear layer's shape (M 64, K 384, N 1536), i.e. how many GEMM flops take as long.
//   wasm: emcc -O3 -std=c++17 -msimd128 -msse4.1 -fexceptions -Icpp/src -Icpp/include -Ibuild/wasm/shim-include
//           bench/src/elementwise_cost.cpp build/wasm/librelpos_simd.a -sDISABLE_EXCEPTION_CATCHING=0
//           -sENVIRONMENT=node -sINITIAL_MEMORY=64MB -sEXIT_RUNTIME=1 -o build/wasm/bench/elementwise_cost.js
//         (beside a package.json {"type":"commonjs"}), then node build/wasm/bench/elementwise_cost.js
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "kernels/gemm_f32.h"
#include "models/layers/layers.h"

using namespace relpos;

static double now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
template <class F>
static double median_us(F&& f, int reps = 41) {
  std::vector<double> t;
  for (int i = 0; i < 5; ++i) f();
  for (int i = 0; i < reps; ++i) {
    const double t0 = now_us();
    f();
    t.push_back(now_us() - t0);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main() {
  // GEMM rate at a linear layer's shape
  const int M = 64, K = 384, N = 1536;
  std::vector<float> A(static_cast<std::size_t>(M) * K, 0.25f), B(static_cast<std::size_t>(K) * N), C(static_cast<std::size_t>(M) * N);
  for (std::size_t i = 0; i < B.size(); ++i) B[i] = static_cast<float>((i * 37) % 101) / 101.0f - 0.5f;
  std::vector<float> packed(kernels::packed_b_floats(K, N));
  kernels::pack_b_kn(K, N, B.data(), N, packed.data());
  const double gemm_us = median_us([&] { kernels::gemm_f32_packed(M, N, K, 1.0f, A.data(), K, packed.data(), C.data(), N, false); });
  const double gflops = 2.0 * M * N * K / (gemm_us * 1e3);
  std::printf("gemm M %d K %d N %d: %.1f us, %.1f GFLOP/s\n", M, K, N, gemm_us, gflops);
  std::printf("op\trows\tdim\tus\tns_per_element\tgemm_flop_equivalents_per_element\n");
  for (int dim : {384, 512, 768}) {
    const int rows = 128;
    std::vector<float> x(static_cast<std::size_t>(rows) * dim), y(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 53) % 97) / 97.0f - 0.5f;
    models::LayerNorm ln;
    ln.gamma.assign(dim, 1.1f);
    ln.beta.assign(dim, 0.1f);
    ln.eps = 1e-12f;
    models::RmsNorm rms;
    rms.weight.assign(dim, 1.1f);
    rms.eps = 1e-6f;
    const double n = static_cast<double>(x.size());
    auto line = [&](const char* op, double us) { std::printf("%s\t%d\t%d\t%.1f\t%.2f\t%.0f\n", op, rows, dim, us, us * 1e3 / n, us * 1e3 / n * gflops); };
    line("layernorm", median_us([&] { ln.forward(rows, x.data(), y.data()); }));
    line("rmsnorm", median_us([&] { rms.forward(rows, x.data(), y.data()); }));
    line("add", median_us([&] { models::add_inplace(x.size(), y.data(), x.data()); }));
    std::vector<float> h(static_cast<std::size_t>(rows) * dim * 4);
    const double n4 = static_cast<double>(h.size());
    const std::pair<const char*, models::Activation> acts[] = {{"gelu", models::Activation::Gelu}, {"gelu_tanh", models::Activation::GeluTanh},
                                                               {"silu", models::Activation::Silu}, {"relu", models::Activation::Relu}};
    for (const auto& [name, a] : acts) {
      const models::Activation act = a;
      const double us = median_us([&] {
        for (std::size_t i = 0; i < h.size(); ++i) h[i] = x[i % x.size()];
        models::activate(act, h.size(), h.data());
      });
      const double copy_us = median_us([&] { for (std::size_t i = 0; i < h.size(); ++i) h[i] = x[i % x.size()]; });
      std::printf("%s\t%d\t%d\t%.1f\t%.2f\t%.0f\n", name, rows, dim * 4, us - copy_us, (us - copy_us) * 1e3 / n4, (us - copy_us) * 1e3 / n4 * gflops);
    }
  }
}
