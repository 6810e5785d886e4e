// Deterministic random numbers for init and task batches: splitmix64 (Steele et al.), identical on
// every platform and build (no std:: distributions, whose output is implementation-defined).
//   next()      64 uniform bits
//   uniform()   double in [0, 1) from the top 53 bits
//   below(n)    integer in [0, n), n ≥ 1 (multiply-shift on 32 high bits; bias < n/2³² is irrelevant here)
//   normal()    standard normal by Box–Muller (one draw per call, cos branch)
#pragma once

#include <cmath>
#include <cstdint>

namespace relpos::train {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : s_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  int below(int n) { return static_cast<int>(((next() >> 32) * static_cast<std::uint64_t>(n)) >> 32); }
  double normal() {
    const double u1 = 1.0 - uniform();  // (0, 1]
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  std::uint64_t s_;
};

}  // namespace relpos::train
