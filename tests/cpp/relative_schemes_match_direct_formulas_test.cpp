// The relative schemes (shaw, bert_relative, huang_relative, transformer_xl, deberta) against a
// double-precision attention written straight from each scheme's formula in schemes.h, through
// every driver path: streaming with odd block sizes, materialised probs and per-term outputs,
// causal and key-masked.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <vector>

#include "relpos/attention.h"
#include "relpos/error.h"
#include "relpos/positions.h"
#include "relpos/schemes.h"

namespace {

std::vector<float> randn(std::size_t n, unsigned seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, scale);
  std::vector<float> out(n);
  for (auto& x : out) x = dist(rng);
  return out;
}

struct Head {
  int b, h, seq, d;
  const float *q, *k, *v;
};
// logit terms for (i, j), excluding the content term; returns their sum. terms gets each term.
using TermFn = std::function<void(const Head&, int i, int j, std::vector<double>& terms)>;
// value term: adds Σ_j p_ij · value(j − i) into out_i
using ValueFn = std::function<void(const Head&, int i, const std::vector<double>& p, std::vector<double>& out)>;

double dot(const float* a, const float* b, int d) {
  double s = 0;
  for (int c = 0; c < d; ++c) s += double(a[c]) * b[c];
  return s;
}

void check_scheme(const relpos::Scheme& scheme, relpos::AttentionDims dims, double content_scale, const TermFn& terms,
                  const ValueFn& value = nullptr) {
  const std::size_t n = dims.qkv_elements();
  auto q = randn(n, 11), k = randn(n, 12), v = randn(n, 13);
  const int seq = dims.seq, d = dims.head_dim;
  const std::size_t n_terms = scheme.term_names().size();
  for (int variant = 0; variant < 4; ++variant) {
    const bool causal = variant == 1 || variant == 3;
    std::vector<std::uint8_t> mask(static_cast<std::size_t>(dims.batch) * seq, 1);
    if (variant >= 2)
      for (int b = 0; b < dims.batch; ++b)
        for (int j = 0; j < seq; ++j) mask[b * seq + j] = (j * 7 + b) % 5 != 3;
    for (int path = 0; path < 3; ++path) {
      std::vector<float> out(n, -7.0f), probs;
      std::vector<std::vector<float>> term_bufs;
      relpos::AttentionOutputs outs;
      outs.output = out.data();
      relpos::AttentionOptions opts;
      opts.block_rows = path == 0 ? 5 : 64;
      if (path == 2) {
        probs.assign(dims.score_elements(), -3.0f);
        outs.probs = probs.data();
        term_bufs.assign(1 + n_terms, std::vector<float>(dims.score_elements(), -5.0f));
        for (auto& t : term_bufs) outs.terms.push_back(t.data());
      }
      relpos::Workspace ws;
      relpos::attention(dims, {q.data(), k.data(), v.data(), variant >= 2 ? mask.data() : nullptr, causal}, scheme, outs,
                        ws, opts);
      double worst_out = 0, worst_p = 0, worst_term = 0, mag = 1;
      for (int b = 0; b < dims.batch; ++b)
        for (int h = 0; h < dims.heads; ++h) {
          const std::size_t bh = static_cast<std::size_t>(b) * dims.heads + h;
          Head hd{b, h, seq, d, q.data() + bh * seq * d, k.data() + bh * seq * d, v.data() + bh * seq * d};
          std::vector<double> t(n_terms);
          for (int i = 0; i < seq; ++i) {
            std::vector<double> s(seq), p(seq, 0.0);
            double m = -1e300;
            bool any = false;
            for (int j = 0; j < seq; ++j) {
              std::fill(t.begin(), t.end(), 0.0);
              terms(hd, i, j, t);
              const double content = content_scale * dot(hd.q + i * d, hd.k + j * d, d);
              double total = content;
              for (double x : t) total += x;
              s[j] = total;
              if (path == 2 && (!causal || j <= i)) {
                const std::size_t at = bh * seq * seq + static_cast<std::size_t>(i) * seq + j;
                worst_term = std::max(worst_term, std::abs(content - term_bufs[0][at]));
                for (std::size_t u = 0; u < n_terms; ++u)
                  worst_term = std::max(worst_term, std::abs(t[u] - term_bufs[1 + u][at]));
              }
              const bool ok = (!causal || j <= i) && (variant < 2 || mask[b * seq + j]);
              if (ok) {
                m = std::max(m, s[j]);
                any = true;
              }
            }
            double z = 0;
            if (any)
              for (int j = 0; j < seq; ++j) {
                const bool ok = (!causal || j <= i) && (variant < 2 || mask[b * seq + j]);
                if (ok) z += (p[j] = std::exp(s[j] - m));
              }
            for (int j = 0; j < seq; ++j) {
              if (any) p[j] /= z;
              if (path == 2)
                worst_p = std::max(worst_p, std::abs(p[j] - probs[bh * seq * seq + static_cast<std::size_t>(i) * seq + j]));
            }
            std::vector<double> o(d, 0.0);
            for (int j = 0; j < seq; ++j)
              for (int c = 0; c < d; ++c) o[c] += p[j] * hd.v[j * d + c];
            if (value && any) value(hd, i, p, o);
            for (int c = 0; c < d; ++c) {
              mag = std::max(mag, std::abs(o[c]));
              worst_out = std::max(worst_out, std::abs(o[c] - out[bh * seq * d + i * d + c]));
            }
          }
        }
      INFO(scheme.name() << " seq " << seq << " d " << d << " variant " << variant << " path " << path);
      CHECK(worst_out < 1e-5 * mag);
      CHECK(worst_p < 1e-5);
      CHECK(worst_term < 1e-4);
    }
  }
}

}  // namespace

TEST_CASE("shaw keys and values follow clip(j - i, -k, k)", "[shaw]") {
  for (int seq : {1, 6, 23, 70}) {
    for (int kmax : {1, 3, 40}) {
      const int d = 12;
      relpos::AttentionDims dims{2, 2, seq, d};
      auto ak = randn((2 * kmax + 1) * d, 21), av = randn((2 * kmax + 1) * d, 22);
      for (bool with_values : {false, true}) {
        relpos::ShawParams p{kmax, ak.data(), with_values ? av.data() : nullptr};
        auto scheme = relpos::make_scheme(p);
        const double sc = 1 / std::sqrt(double(d));
        check_scheme(
            *scheme, dims, sc,
            [&](const Head& h, int i, int j, std::vector<double>& t) {
              const int idx = std::clamp(j - i, -kmax, kmax) + kmax;
              t[0] = sc * dot(h.q + i * d, ak.data() + idx * d, d);
            },
            with_values ? ValueFn([&](const Head&, int i, const std::vector<double>& p, std::vector<double>& o) {
              for (int j = 0; j < seq; ++j) {
                const int idx = std::clamp(j - i, -kmax, kmax) + kmax;
                for (int c = 0; c < d; ++c) o[c] += p[j] * av[idx * d + c];
              }
            })
                        : ValueFn());
      }
    }
  }
}

namespace {
// Concatenated sinusoid of a (possibly negative) position, in double.
std::vector<double> concat_sinusoid(int pos, int dim) {
  std::vector<double> out(dim);
  for (int f = 0; f < dim / 2; ++f) {
    const double w = std::pow(10000.0, -2.0 * f / dim);
    out[f] = std::sin(pos * w);
    out[dim / 2 + f] = std::cos(pos * w);
  }
  return out;
}
}  // namespace

TEST_CASE("huang relative skews Q E^T: learned clipped table and sinusoid of j - i", "[huang]") {
  for (int seq : {1, 9, 70}) {
    const int d = 16;
    relpos::AttentionDims dims{1, 2, seq, d};
    const double sc = 1 / std::sqrt(double(d));
    for (int m : {2, 30}) {
      auto e = randn((2 * m + 1) * d, 31);
      auto scheme = relpos::make_scheme(relpos::HuangRelativeParams{m, e.data()});
      check_scheme(*scheme, dims, sc, [&](const Head& h, int i, int j, std::vector<double>& t) {
        t[0] = sc * dot(h.q + i * d, e.data() + (std::clamp(j - i, -m, m) + m) * d, d);
      });
    }
    auto scheme = relpos::make_scheme(relpos::HuangRelativeParams{0, nullptr});
    check_scheme(*scheme, dims, sc, [&](const Head& h, int i, int j, std::vector<double>& t) {
      const auto s = concat_sinusoid(j - i, d);
      double acc = 0;
      for (int c = 0; c < d; ++c) acc += h.q[i * d + c] * s[c];
      t[0] = sc * acc;
    });
  }
}

TEST_CASE("bert relative_key and relative_key_query read row i - j + M - 1", "[bert]") {
  for (int seq : {1, 8, 67}) {
    const int d = 12, M = 70;
    relpos::AttentionDims dims{2, 1, seq, d};
    const double sc = 1 / std::sqrt(double(d));
    auto e = randn((2 * M - 1) * d, 41);
    for (bool kq : {false, true}) {
      auto scheme = relpos::make_scheme(relpos::BertRelativeParams{M, kq, e.data()});
      check_scheme(*scheme, dims, sc, [&](const Head& h, int i, int j, std::vector<double>& t) {
        const float* row = e.data() + (i - j + M - 1) * d;
        t[0] = sc * dot(h.q + i * d, row, d);
        if (kq) t[1] = sc * dot(h.k + j * d, row, d);
      });
    }
  }
  auto scheme = relpos::make_scheme(relpos::BertRelativeParams{4, false, nullptr});
  std::vector<float> x(5 * 8), out(5 * 8);
  relpos::Workspace ws;
  relpos::AttentionOutputs outs;
  outs.output = out.data();
  CHECK_THROWS_AS(relpos::attention({1, 1, 5, 8}, {x.data(), x.data(), x.data()}, *scheme, outs, ws), relpos::Error);
}

TEST_CASE("transformer-xl adds u.k and (q + v).W_kR R_(i-j) with clamped distances", "[transformer_xl]") {
  for (int seq : {1, 10, 45}) {
    for (int clamp : {0, 4}) {
      const int d = 8, heads = 2, dm = 20;
      relpos::AttentionDims dims{1, heads, seq, d};
      const double sc = 1 / std::sqrt(double(d));
      auto u = randn(heads * d, 51), v = randn(heads * d, 52), w = randn(heads * d * dm, 53, 0.3f);
      auto scheme = relpos::make_scheme(relpos::TransformerXLParams{dm, clamp, u.data(), v.data(), w.data()});
      check_scheme(*scheme, dims, sc, [&](const Head& h, int i, int j, std::vector<double>& t) {
        t[0] = sc * dot(u.data() + h.h * d, h.k + j * d, d);
        int r = i - j;
        if (clamp > 0) r = std::clamp(r, -clamp, clamp);
        const auto R = concat_sinusoid(r, dm);
        double acc = 0;
        for (int c = 0; c < d; ++c) {
          double wr = 0;
          for (int m = 0; m < dm; ++m) wr += double(w[(h.h * d + c) * dm + m]) * R[m];
          acc += (double(h.q[i * d + c]) + v[h.h * d + c]) * wr;
        }
        t[1] = sc * acc;
      });
    }
  }
}

TEST_CASE("deberta c2p and p2c follow clamp(r + span) with plain and log-bucketed distances", "[deberta]") {
  struct Case {
    int buckets, max_rel;
  };
  for (const Case cs : {Case{-1, 16}, Case{8, 32}, Case{16, 128}, Case{-1, 3}, Case{6, 12}}) {
    for (int seq : {1, 11, 70}) {
      const int d = 8, heads = 2, span = relpos::deberta_span(cs.buckets, cs.max_rel);
      relpos::AttentionDims dims{1, heads, seq, d};
      auto kr = randn(heads * 2 * span * d, 61), qr = randn(heads * 2 * span * d, 62);
      for (int mode = 1; mode < 4; ++mode) {
        const bool c2p = mode & 1, p2c = mode & 2;
        relpos::DebertaParams p{c2p, p2c, cs.buckets, cs.max_rel, c2p ? kr.data() : nullptr, p2c ? qr.data() : nullptr};
        auto scheme = relpos::make_scheme(p);
        const double sc = 1 / std::sqrt(double(d) * (1 + c2p + p2c));
        auto r = [&](int a, int b) { return relpos::deberta_relative_position(a - b, cs.buckets, cs.max_rel); };
        check_scheme(*scheme, dims, sc, [&](const Head& h, int i, int j, std::vector<double>& t) {
          std::size_t u = 0;
          if (c2p) {
            const int row = std::clamp(r(i, j) + span, 0, 2 * span - 1);
            t[u++] = sc * dot(h.q + i * d, kr.data() + (h.h * 2 * span + row) * d, d);
          }
          if (p2c) {
            const int row = std::clamp(-r(j, i) + span, 0, 2 * span - 1);
            t[u++] = sc * dot(h.k + j * d, qr.data() + (h.h * 2 * span + row) * d, d);
          }
        });
      }
    }
  }
}
