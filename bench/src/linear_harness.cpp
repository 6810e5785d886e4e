// Bench-only WebAssembly harness for one linear layer y[M, N] = x[M, K] · Wᵀ + b, as relpos's Linear
// runs it: fp32 = kernels::gemm_f32_packed + bias pass; q8 = kernels::quantize_rows_qs8 (per-row
// int16 activations) + kernels::gemm_qs8_packed (int8 weights, bias fused). JS times linear_run.
#include <emscripten.h>

#include <cstdint>
#include <random>
#include <vector>

#include "kernels/gemm_f32.h"
#include "kernels/gemm_qs8.h"

namespace {
struct Ctx {
  int M, N, K;
  std::vector<float> x, y, bias, packed_f32, scales, xs;
  std::vector<std::int8_t> packed_q8;
  std::vector<std::int16_t> xq;
};
}  // namespace

extern "C" {
EMSCRIPTEN_KEEPALIVE Ctx* linear_setup(int M, int N, int K) {
  using namespace relpos::kernels;
  auto* c = new Ctx{M, N, K, {}, {}, {}, {}, {}, {}, {}, {}};
  std::mt19937 rng(7);
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> w(static_cast<std::size_t>(N) * K);
  for (auto& v : w) v = 0.05f * d(rng);
  c->x.resize(static_cast<std::size_t>(M) * K);
  for (auto& v : c->x) v = d(rng);
  c->bias.resize(N);
  for (auto& v : c->bias) v = d(rng);
  c->y.resize(static_cast<std::size_t>(M) * N);
  c->packed_f32.resize(packed_b_floats(K, N));
  pack_b_nk(K, N, w.data(), K, c->packed_f32.data());
  c->packed_q8.resize(packed_qs8_bytes(K, N));
  c->scales.resize(N);
  pack_qs8_nk(K, N, w.data(), K, c->packed_q8.data(), c->scales.data());
  c->xq.resize(qs8_row_entries(K) * M);
  c->xs.resize(M);
  return c;
}

// One forward: q8 = 0 → float32, 1 → 8-bit weights.
EMSCRIPTEN_KEEPALIVE void linear_run(Ctx* c, int q8) {
  using namespace relpos::kernels;
  if (q8) {
    const std::size_t ldq = qs8_row_entries(c->K);
    quantize_rows_qs8(c->M, c->K, c->x.data(), c->K, c->xq.data(), ldq, c->xs.data());
    gemm_qs8_packed(c->M, c->N, c->K, c->xq.data(), ldq, c->xs.data(), c->packed_q8.data(), c->scales.data(),
                    c->bias.data(), c->y.data(), c->N);
  } else {
    gemm_f32_packed(c->M, c->N, c->K, 1.0f, c->x.data(), c->K, c->packed_f32.data(), c->y.data(), c->N, false);
    for (int r = 0; r < c->M; ++r)
      for (int n = 0; n < c->N; ++n) c->y[static_cast<std::size_t>(r) * c->N + n] += c->bias[n];
  }
}
EMSCRIPTEN_KEEPALIVE float linear_out(Ctx* c, int i) { return c->y[i]; }
EMSCRIPTEN_KEEPALIVE void linear_teardown(Ctx* c) { delete c; }
}
