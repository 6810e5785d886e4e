// The GEMMs of one all-MiniLM-L6-v2 forward at a single sentence's rows (issue #41), as the model runs them
// (models::gemm_packed_parallel(_group): 96 × 64 tiles, bias, the Q/K/V group), one thread, with
//   distinct  six layers of their own weights (~42 MB of packed float32, as the real model: every forward
//             streams them from memory), and
//   shared    layer 0's weights six times (~7 MB: the same arithmetic, the weights mostly in cache).
// Mean wall time per forward (not minima: a forward's weights are never all in cache, and bench/src/gemm_stream.cpp's
// per-call minima hid exactly that) and GFLOP/s, the two kinds alternating in every round. The gap is the
// cost of bringing the weights in: on a 2-core Xeon VM (4 KiB pages, Node 20) it was about half of a short sentence's
// GEMM time (DEVELOPERS.md, "Single queries are memory-bound").
//   emcc -O3 -std=gnu++17 -fwasm-exceptions -msimd128 -msse4.1 -Icpp/src -Icpp/include -isystem build/wasm/shim-include
//     bench/src/forward_gemms.cpp build/wasm/librelpos_simd.a -sENVIRONMENT=node -sINITIAL_MEMORY=256MB
//     -sALLOW_MEMORY_GROWTH=1 -sEXIT_RUNTIME=1 -o build/wasm/bench/forward_gemms.js
//   node --no-experimental-fetch build/wasm/bench/forward_gemms.js [rounds=40]
// A/B of a change to a kernel or the tiles: compile the changed .cpp beside this file (its object comes before the
// archive, so the archive's copy is not linked) and run both binaries alternately.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "kernels/gemm_f32.h"
#include "models/layers/parallel_rows.h"

using namespace relpos;

namespace {
double now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

constexpr int kHidden = 384, kFfn = 1536, kLayers = 6;

struct Layer {
  std::vector<float> q, k, v, o, up, down, bias;
};

// nn.Linear [out, in] values, packed as the model packs them (Linear: pack_b_nk).
std::vector<float> packed_linear(int in, int out, unsigned seed) {
  std::vector<float> w(static_cast<std::size_t>(in) * out), p(kernels::packed_b_floats(in, out));
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(((i + seed) * 37) % 101) / 101.0f - 0.5f;
  kernels::pack_b_nk(in, out, w.data(), in, p.data());
  return p;
}

// One forward's products: Q, K, V (one group), O, FFN up, FFN down per layer.
void forward(const std::vector<const Layer*>& layers, int M, float* x, float* q, float* k, float* v, float* y) {
  const int H = kHidden, F = kFfn;
  for (const Layer* w : layers) {
    const models::PackedGemm qkv[3] = {{H, w->q.data(), q, H, w->bias.data()}, {H, w->k.data(), k, H, w->bias.data()},
                                       {H, w->v.data(), v, H, w->bias.data()}};
    models::gemm_packed_parallel_group(M, H, x, H, qkv, 3);
    models::gemm_packed_parallel(M, H, H, q, H, w->o.data(), k, H, w->bias.data());
    models::gemm_packed_parallel(M, F, H, k, H, w->up.data(), y, F, w->bias.data());
    models::gemm_packed_parallel(M, H, F, y, F, w->down.data(), v, H, w->bias.data());
  }
}
}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 40;
  std::vector<Layer> layers(kLayers);
  for (int l = 0; l < kLayers; ++l) {
    const unsigned s = 7u * static_cast<unsigned>(l);
    layers[l] = {packed_linear(kHidden, kHidden, s), packed_linear(kHidden, kHidden, s + 1), packed_linear(kHidden, kHidden, s + 2),
                 packed_linear(kHidden, kHidden, s + 3), packed_linear(kHidden, kFfn, s + 4), packed_linear(kFfn, kHidden, s + 5),
                 std::vector<float>(kFfn, 0.01f)};
  }
  std::vector<const Layer*> distinct, shared;
  for (int l = 0; l < kLayers; ++l) {
    distinct.push_back(&layers[l]);
    shared.push_back(&layers[0]);
  }
  const int rows[] = {11, 22, 29, 47, 128, 299};
  const int max_rows = 299;
  std::vector<float> x(static_cast<std::size_t>(max_rows) * kFfn, 0.25f), q(static_cast<std::size_t>(max_rows) * kHidden),
      k(q.size()), v(q.size()), y(x.size());
  const double flops_per_row = 2.0 * kLayers * (4.0 * kHidden * kHidden + 2.0 * kHidden * kFfn);
  std::printf("rows\tdistinct_ms\tshared_ms\tdistinct_gflops\tshared_gflops\n");
  for (const int M : rows) {
    double t[2] = {0, 0};
    const int reps = M > 100 ? rounds / 4 + 1 : rounds;
    for (int r = 0; r < reps + 2; ++r)
      for (int kind = 0; kind < 2; ++kind) {
        const double t0 = now_us();
        forward(kind == 0 ? distinct : shared, M, x.data(), q.data(), k.data(), v.data(), y.data());
        if (r >= 2) t[kind] += now_us() - t0;  // two warm-up rounds
      }
    const double d = t[0] / reps / 1e3, s = t[1] / reps / 1e3;
    std::printf("%d\t%.3f\t%.3f\t%.1f\t%.1f\n", M, d, s, flops_per_row * M / d / 1e6, flops_per_row * M / s / 1e6);
  }
}
