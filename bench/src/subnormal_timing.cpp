// Issue #28: how much softmax rows with a wide logit span cost. Times (1) the softmax kernels plus the
// P·V GEMM on rows whose logits span 10 or 200, and (2) relpos::attention (8 heads, 512 tokens, head
// dim 64, one thread, streaming, interleaved rounds, median CPU time) with no position scheme and
// ALiBi (m_h·(j − i)) at slopes 1/256 (small), 0.2 for every head (logits below max − 87 beyond
// distance 435) and BLOOM's. Prints the CPU (model name): subnormals are slow on Intel, not on AMD.
// Build (native, against build/native/librelpos_native.a):
//   g++ -O2 -std=c++17 -march=native -Icpp/include -Icpp/src bench/src/subnormal_timing.cpp \
//       build/native/librelpos_native.a -pthread -o build/subnormal_timing
#include <algorithm>
#include <ctime>
#include <cstdio>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kernels/gemm_f32.h"
#include "kernels/softmax_f32.h"
#include "relpos/attention.h"
#include "relpos/schemes.h"
#include "relpos/threads.h"

namespace {

// Process CPU time: on the shared 2-core machine wall time counts the time other processes hold the core.
double now_ms() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
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

// Median CPU ms of rounds interleaved over the schemes (the order rotates each round).
std::vector<double> attention_ms(const std::vector<const relpos::Scheme*>& schemes, int seq, int rounds) {
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
  std::vector<std::vector<double>> t(schemes.size());
  for (const auto* s : schemes) relpos::attention(dims, in, *s, o, ws);
  for (int r = 0; r < rounds; ++r)
    for (std::size_t j = 0; j < schemes.size(); ++j) {
      const std::size_t i = (j + r) % schemes.size();
      const double t0 = now_ms();
      relpos::attention(dims, in, *schemes[i], o, ws);
      t[i].push_back(now_ms() - t0);
    }
  std::vector<double> med;
  for (auto& x : t) {
    std::sort(x.begin(), x.end());
    med.push_back(x[x.size() / 2]);
  }
  return med;
}

}  // namespace

int main() {
  relpos::set_num_threads(1);
  std::printf("cpu: %s\n", cpu_model().c_str());
  for (float span : {10.0f, 80.0f, 200.0f}) std::printf("softmax+PV 512x512, span %5.0f: %7.2f ms\n", span, softmax_pv_ms(span));
  const int seq = 512, heads = 8;
  std::vector<std::unique_ptr<relpos::Scheme>> owned;
  std::vector<std::string> names;
  owned.push_back(relpos::make_scheme(relpos::NoneParams{}));
  names.push_back("none");
  std::vector<std::vector<float>> slopes;
  for (float slope : {1.0f / 256, 0.2f}) {
    slopes.emplace_back(heads, slope);
    relpos::AlibiParams p;
    p.slopes = relpos::AlibiSlopes::Custom;
    p.custom = slopes.back().data();
    owned.push_back(relpos::make_scheme(p));
    names.push_back("alibi slope " + std::to_string(slope));
  }
  owned.push_back(relpos::make_scheme(relpos::AlibiParams{}));
  names.push_back("alibi bloom");
  std::vector<const relpos::Scheme*> schemes;
  for (auto& s : owned) schemes.push_back(s.get());
  const std::vector<double> ms = attention_ms(schemes, seq, 15);
  for (std::size_t i = 0; i < ms.size(); ++i)
    std::printf("attention %d tok, 8 heads, d 64, 1 thread, %-20s: %7.2f ms CPU (x none %.2f)\n", seq, names[i].c_str(), ms[i], ms[i] / ms[0]);
  return 0;
}
