// Scheme none against a double-precision softmax(QKᵀ/√d)V written straight from the formula.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <vector>

#include "relpos/attention.h"
#include "relpos/schemes.h"

namespace {

std::vector<float> random_vector(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> out(n);
  for (auto& x : out) x = dist(rng);
  return out;
}

}  // namespace

TEST_CASE("plain attention equals softmax(QK^T/sqrt(d))V on a small grid", "[none]") {
  for (int seq : {1, 2, 7, 64, 129}) {
    for (int d : {8, 32, 80}) {
      relpos::AttentionDims dims{2, 3, seq, d};
      const std::size_t n = dims.qkv_elements();
      auto q = random_vector(n, 1), k = random_vector(n, 2), v = random_vector(n, 3);
      std::vector<float> out(n);
      relpos::Workspace ws;
      auto scheme = relpos::make_scheme(relpos::NoneParams{});
      relpos::AttentionOutputs outs;
      outs.output = out.data();
      relpos::attention(dims, {q.data(), k.data(), v.data(), nullptr, false}, *scheme, outs, ws);
      double worst = 0;
      for (int bh = 0; bh < 6; ++bh) {
        const float* Q = q.data() + bh * seq * d;
        const float* K = k.data() + bh * seq * d;
        const float* V = v.data() + bh * seq * d;
        for (int i = 0; i < seq; ++i) {
          std::vector<double> s(seq);
          double m = -1e300;
          for (int j = 0; j < seq; ++j) {
            double dot = 0;
            for (int c = 0; c < d; ++c) dot += double(Q[i * d + c]) * K[j * d + c];
            s[j] = dot / std::sqrt(double(d));
            m = std::max(m, s[j]);
          }
          double z = 0;
          for (auto& x : s) z += (x = std::exp(x - m));
          for (int c = 0; c < d; ++c) {
            double o = 0;
            for (int j = 0; j < seq; ++j) o += s[j] / z * V[j * d + c];
            worst = std::max(worst, std::abs(o - out[bh * seq * d + i * d + c]));
          }
        }
      }
      INFO("seq " << seq << " d " << d);
      CHECK(worst < 1e-5);
    }
  }
}
