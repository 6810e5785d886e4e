// Issue #28: how much softmax rows with a wide logit span cost. Times (1) the softmax kernels plus the
// P·V GEMM on rows whose logits span 10 or 200, and (2) relpos::attention (8 heads, 512 tokens, head
// dim 64, one thread, streaming) with no position scheme and ALiBi at slopes 1/256 (small), BLOOM's
// and 0.2 for every head (logits below max − 87 beyond distance 435). Prints the CPU (model name).
// Build (native, against build/native/librelpos_native.a):
//   g++ -O2 -std=c++17 -march=native -Icpp/include -Icpp/src bench/src/subnormal_timing.cpp \
//       build/native/librelpos_native.a -pthread -o build/subnormal_timing
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "kernels/gemm_f32.h"
#include "kernels/softmax_f32.h"
#include "relpos/attention.h"
#include "relpos/schemes.h"
#include "relpos/threads.h"

namespace {

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

template <class F>
double best_of(int reps, F f) {
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    const double t0 = now_ms();
    f();
    best = std::min(best, now_ms() - t0);
  }
  return best;
}

// 512 rows × 512 keys, logits spread linearly over [−span, 0] (shuffled), softmax then P·V (d = 64).
double softmax_pv_ms(float span) {
  const int n = 512, d = 64;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> logits(static_cast<std::size_t>(n) * n), work(logits.size()), v(static_cast<std::size_t>(n) * d),
      out(static_cast<std::size_t>(n) * d);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) logits[static_cast<std::size_t>(i) * n + j] = -span * ((j * 37 + i) % n) / (n - 1);
  for (float& x : v) x = u(rng);
  std::vector<float> vpack(relpos::kernels::packed_b_floats(n, d));
  relpos::kernels::pack_b_kn(n, d, v.data(), d, vpack.data());
  return best_of(15, [&] {
    std::copy(logits.begin(), logits.end(), work.begin());
    for (int i = 0; i < n; ++i) {
      float* row = work.data() + static_cast<std::size_t>(i) * n;
      const float m = relpos::kernels::rmax_f32(n, row);
      const float s = relpos::kernels::raddstoreexpminusmax_f32(n, row, m, row);
      relpos::kernels::vscale_f32(n, row, 1.0f / s);
    }
    relpos::kernels::gemm_f32_packed(n, d, n, 1.0f, work.data(), n, vpack.data(), out.data(), d, false);
  });
}

double attention_ms(const relpos::Scheme& scheme, int seq) {
  const int heads = 8, d = 64;
  const relpos::AttentionDims dims{1, heads, seq, d};
  std::mt19937 rng(11);
  std::normal_distribution<float> g(0.0f, 1.0f);
  std::vector<float> q(dims.qkv_elements()), k(q.size()), v(q.size()), out(q.size());
  for (auto* b : {&q, &k, &v})
    for (float& x : *b) x = g(rng);
  relpos::AttentionInputs in;
  in.q = q.data();
  in.k = k.data();
  in.v = v.data();
  relpos::AttentionOutputs o;
  o.output = out.data();
  relpos::Workspace ws;
  relpos::attention(dims, in, scheme, o, ws);
  return best_of(9, [&] { relpos::attention(dims, in, scheme, o, ws); });
}

}  // namespace

int main() {
  relpos::set_num_threads(1);
  std::printf("cpu: %s\n", cpu_model().c_str());
  for (float span : {10.0f, 80.0f, 200.0f}) std::printf("softmax+PV 512x512, span %5.0f: %7.2f ms\n", span, softmax_pv_ms(span));
  const int seq = 512, heads = 8;
  auto none = relpos::make_scheme(relpos::NoneParams{});
  std::printf("attention %d tok none            : %7.2f ms\n", seq, attention_ms(*none, seq));
  for (float slope : {1.0f / 256, 0.2f}) {
    std::vector<float> slopes(heads, slope);
    relpos::AlibiParams p;
    p.slopes = relpos::AlibiSlopes::Custom;
    p.custom = slopes.data();
    p.symmetric = true;
    auto s = relpos::make_scheme(p);
    std::printf("attention %d tok alibi slope %.4f: %7.2f ms\n", seq, slope, attention_ms(*s, seq));
  }
  relpos::AlibiParams bloom;
  bloom.symmetric = true;
  auto b = relpos::make_scheme(bloom);
  std::printf("attention %d tok alibi bloom     : %7.2f ms\n", seq, attention_ms(*b, seq));
  return 0;
}
