// Local (sliding-window) vs global attention at long sequence lengths (issue #26): ModernBERT-base's
// attention shape — 12 heads, head_dim 64, RoPE — one call with window 64 (local_attention 128) and
// one without, interleaved, median wall time of each, and local ÷ global against the FLOP ratio of
// the two schedules (Q·Kᵀ and P·V over the keys each block of 64 queries visits).
//   native: c++ -O3 -march=native -pthread -DRELPOS_THREADS -Icpp/src -Icpp/include bench/src/window_attention.cpp \
//             build/native/librelpos_native.a -o build/native/window_attention
//           build/native/window_attention [seq 8192] [reps 3] [threads 1]
// Prints one line per call kind (ms, GFLOP/s) and the ratios.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "relpos/attention.h"
#include "relpos/schemes.h"
#include "relpos/threads.h"

using namespace relpos;

static double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Key columns Q·Kᵀ and P·V visit for one head: Σ over blocks of rows · (j1 − j0).
static double visited_pairs(int seq, int block, int window) {
  double pairs = 0;
  for (int i0 = 0; i0 < seq; i0 += block) {
    const int i1 = std::min(seq, i0 + block);
    const int j0 = window < 0 ? 0 : std::max(0, i0 - window);
    const int j1 = window < 0 ? seq : std::min(seq, i1 + window);
    pairs += static_cast<double>(i1 - i0) * (j1 - j0);
  }
  return pairs;
}

int main(int argc, char** argv) {
  const int seq = argc > 1 ? std::atoi(argv[1]) : 8192;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 3;
  const int threads = argc > 3 ? std::atoi(argv[3]) : 1;
  const int heads = 12, d = 64, window = 64, block = 64;
  set_num_threads(threads);
  const AttentionDims dims{1, heads, seq, d};
  const std::size_t n = dims.qkv_elements();
  std::mt19937 rng(7);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> q(n), k(n), v(n), out(n);
  for (auto* x : {&q, &k, &v})
    for (float& f : *x) f = dist(rng);
  RopeParams rope;
  auto scheme = make_scheme(rope);
  Workspace ws;
  AttentionOutputs outs;
  outs.output = out.data();

  auto run = [&](int w) {
    AttentionInputs in{q.data(), k.data(), v.data(), nullptr, false, w};
    const double t0 = now_ms();
    attention(dims, in, *scheme, outs, ws);
    return now_ms() - t0;
  };
  run(-1);  // warm-up: workspace allocation
  run(window);
  std::vector<double> global, local;
  for (int r = 0; r < reps; ++r) {
    global.push_back(run(-1));
    local.push_back(run(window));
  }
  const double g = median(global), l = median(local);
  const double flops_g = 4.0 * d * heads * visited_pairs(seq, block, -1);
  const double flops_l = 4.0 * d * heads * visited_pairs(seq, block, window);
  std::printf("seq %d, heads %d, head_dim %d, rope, %d thread(s), %d reps (median)\n", seq, heads, d, threads, reps);
  std::printf("global (window -1):               %9.2f ms  %6.1f GFLOP/s\n", g, flops_g / g * 1e-6);
  std::printf("local  (window %d, banded):       %9.2f ms  %6.1f GFLOP/s\n", window, l, flops_l / l * 1e-6);
  std::printf("local / global time: %.4f   FLOP ratio of the schedules: %.4f   (full-row masking would be 1)\n", l / g,
              flops_l / flops_g);
  return 0;
}
