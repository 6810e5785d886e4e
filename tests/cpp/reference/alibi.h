// Reference ALiBi (schemes.h 13): logit = q·k / sqrt(d) + m_h · (j − i)   (symmetric: −m_h · |i − j|).
// Slopes as Hugging Face 4.34.1 builds them:
//   BLOOM (build_alibi_tensor): n = largest power of two ≤ heads, m_k = 2^(−8/n)^(k+1) for k < n, then
//     extra slopes 2^(−4/n)^(1, 3, 5, …) for the heads − n remaining heads;
//   MPT (build_mpt_alibi_tensor): n' = smallest power of two ≥ heads, s_k = 2^(−(k+1)·bias_max/n'),
//     when n' ≠ heads: s[1::2] followed by s[0::2], truncated to heads.
#pragma once

#include <cstdlib>

#include "reference/attention.h"

namespace ref {

inline std::vector<double> bloom_slopes(int heads) {
  int n = 1;
  while (n * 2 <= heads) n *= 2;
  std::vector<double> m;
  const double base = std::pow(2.0, -8.0 / n);
  for (int k = 1; k <= n; ++k) m.push_back(std::pow(base, k));
  if (n != heads) {
    const double extra = std::pow(2.0, -4.0 / n);
    for (int k = 0; k < heads - n; ++k) m.push_back(std::pow(extra, 2 * k + 1));
  }
  return m;
}

inline std::vector<double> mpt_slopes(int heads, double bias_max) {
  int n = 1;
  while (n < heads) n *= 2;
  std::vector<double> s;
  for (int k = 1; k <= n; ++k) s.push_back(1.0 / std::pow(2.0, k * bias_max / n));
  if (n == heads) return s;
  std::vector<double> m;
  for (int k = 1; k < n; k += 2) m.push_back(s[k]);
  for (int k = 0; k < n; k += 2) m.push_back(s[k]);
  m.resize(heads);
  return m;
}

class Alibi : public Scheme {
 public:
  Alibi(std::vector<double> slopes, bool symmetric) : m_(std::move(slopes)), symmetric_(symmetric) {}
  std::vector<std::string> term_names() const override { return {"alibi"}; }
  double term(std::size_t, const Head& h, int i, int j) const override {
    const double m = m_[h.head];
    return symmetric_ ? -m * std::abs(i - j) : m * (j - i);
  }

 private:
  std::vector<double> m_;
  bool symmetric_;
};

}  // namespace ref
