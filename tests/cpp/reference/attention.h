// Naive double-precision reference attention, written straight from relpos/attention.h:
//   logit(i, j) = content_scale · q_i·k_j + Σ scheme terms(i, j)
//   masked when key_mask[b, j] == 0 or (causal and j > i) or (window ≥ 0 and |i − j| > window);
//   fully masked rows → p = 0, out = 0
//   p(i, ·) = softmax over unmasked keys;  out_i = Σ_j p(i, j) v_j + scheme value term.
// Independent of the library: no relpos headers, no code from cpp/src. Straight loops, doubles.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace ref {

struct Dims {
  int batch = 1, heads = 1, seq = 1, head_dim = 1;
};

inline double dot(const double* a, const double* b, int n) {
  double s = 0;
  for (int c = 0; c < n; ++c) s += a[c] * b[c];
  return s;
}

// One (batch, head) slice in double: q, k, v are [seq, dim]; absolute schemes rewrite them in place.
struct Head {
  int batch = 0, head = 0, seq = 0, dim = 0;
  std::vector<double> q, k, v;
  const double* qi(int i) const { return q.data() + static_cast<std::size_t>(i) * dim; }
  const double* kj(int j) const { return k.data() + static_cast<std::size_t>(j) * dim; }
  const double* vj(int j) const { return v.data() + static_cast<std::size_t>(j) * dim; }
};

// A position scheme as the reference sees it.
class Scheme {
 public:
  virtual ~Scheme() = default;
  virtual double content_scale(int head_dim) const { return 1.0 / std::sqrt(static_cast<double>(head_dim)); }
  // Names of the extra logit terms (the content term is not listed).
  virtual std::vector<std::string> term_names() const { return {}; }
  // Absolute encodings: change q, k, v of this head before anything else.
  virtual void rewrite(Head&) const {}
  // Per-head caches (projected tables) so that term() stays cheap; called after rewrite().
  virtual void begin_head(const Head&) const {}
  // Value of extra term t for (i, j), already scaled as added to the logit.
  virtual double term(std::size_t t, const Head& h, int i, int j) const {
    (void)t, (void)h, (void)i, (void)j;
    return 0.0;
  }
  // Value-side term: out_i += p · (contribution of key j).
  virtual void add_value(const Head& h, int i, int j, double p, double* out) const {
    (void)h, (void)i, (void)j, (void)p, (void)out;
  }
};

struct Result {
  std::vector<double> output;               // [batch, heads, seq, head_dim]
  std::vector<double> probs;                // [batch, heads, seq, seq]   (when scores were asked for)
  std::vector<double> logits;               // [batch, heads, seq, seq]   total logit (before masking)
  std::vector<std::vector<double>> terms;   // terms[0] = content, then scheme terms; each [b, h, s, s]
};

inline bool masked(const std::uint8_t* key_mask, int b, int seq, bool causal, int i, int j, int window = -1) {
  if (causal && j > i) return true;
  if (window >= 0 && (j - i > window || i - j > window)) return true;
  return key_mask && key_mask[static_cast<std::size_t>(b) * seq + j] == 0;
}

inline Result attention(const Dims& dims, const float* q, const float* k, const float* v, const std::uint8_t* key_mask,
                        bool causal, const Scheme& scheme, bool want_scores, int window = -1) {
  const int S = dims.seq, D = dims.head_dim;
  const std::size_t head_elems = static_cast<std::size_t>(S) * D, score_head = static_cast<std::size_t>(S) * S;
  const std::size_t n_heads = static_cast<std::size_t>(dims.batch) * dims.heads;
  const std::size_t n_terms = 1 + scheme.term_names().size();
  Result r;
  r.output.assign(n_heads * head_elems, 0.0);
  if (want_scores) {
    r.probs.assign(n_heads * score_head, 0.0);
    r.logits.assign(n_heads * score_head, 0.0);
    r.terms.assign(n_terms, std::vector<double>(n_heads * score_head, 0.0));
  }
  const double cs = scheme.content_scale(D);
  std::vector<double> row(S), term_values(n_terms);
  for (int b = 0; b < dims.batch; ++b) {
    for (int hh = 0; hh < dims.heads; ++hh) {
      const std::size_t bh = static_cast<std::size_t>(b) * dims.heads + hh;
      Head h;
      h.batch = b, h.head = hh, h.seq = S, h.dim = D;
      h.q.assign(q + bh * head_elems, q + (bh + 1) * head_elems);
      h.k.assign(k + bh * head_elems, k + (bh + 1) * head_elems);
      h.v.assign(v + bh * head_elems, v + (bh + 1) * head_elems);
      scheme.rewrite(h);
      scheme.begin_head(h);
      for (int i = 0; i < S; ++i) {
        double m = -std::numeric_limits<double>::infinity();
        for (int j = 0; j < S; ++j) {
          term_values[0] = cs * dot(h.qi(i), h.kj(j), D);
          double logit = term_values[0];
          for (std::size_t t = 1; t < n_terms; ++t) logit += (term_values[t] = scheme.term(t - 1, h, i, j));
          if (want_scores) {
            const std::size_t at = bh * score_head + static_cast<std::size_t>(i) * S + j;
            r.logits[at] = logit;
            for (std::size_t t = 0; t < n_terms; ++t) r.terms[t][at] = term_values[t];
          }
          row[j] = logit;
          if (!masked(key_mask, b, S, causal, i, j, window) && logit > m) m = logit;
        }
        double z = 0;
        for (int j = 0; j < S; ++j) {
          row[j] = masked(key_mask, b, S, causal, i, j, window) ? 0.0 : std::exp(row[j] - m);
          z += row[j];
        }
        if (z == 0) continue;  // fully masked row: p = 0, out = 0
        double* out = r.output.data() + bh * head_elems + static_cast<std::size_t>(i) * D;
        for (int j = 0; j < S; ++j) {
          const double p = row[j] / z;
          if (want_scores) r.probs[bh * score_head + static_cast<std::size_t>(i) * S + j] = p;
          if (p == 0) continue;
          for (int c = 0; c < D; ++c) out[c] += p * h.vj(j)[c];
          scheme.add_value(h, i, j, p, out);
        }
      }
    }
  }
  return r;
}

}  // namespace ref
