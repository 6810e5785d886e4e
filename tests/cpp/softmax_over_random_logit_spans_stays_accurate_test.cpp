// Fuzz-style check of the split softmax (kernels/softmax_f32.h, issue #28) over random rows: seeds,
// spans from 0.01 to 2000 (uniform, two clusters, one outlier above the rest, −inf entries), offsets up
// to ±1e4 and every length from 1 to ~300 (all tail lengths). For each row: no probability is
// subnormal; probabilities whose float64 value is ≥ e^−40·… are within 3e-6 relative of float64, the
// dropped ones (x − max < −40) are 0 and their float64 value < 4.3e-18; the probabilities sum to 1
// within 1e-5; and the returned sum is within 2e-6 of the float64 sum of exp(x − max).
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "kernels/softmax_f32.h"
#include "test_support.h"

TEST_CASE("softmax over random logit spans writes no subnormal and stays within float accuracy", "[kernels][softmax][subnormal]") {
  const float neg_inf = -std::numeric_limits<float>::infinity();
  std::mt19937 rng(20261126);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int rows_with_drops = 0, rows = 0;
  for (int trial = 0; trial < 1500; ++trial) {
    const std::size_t n = 1 + static_cast<std::size_t>(unit(rng) * (trial % 3 == 0 ? 300 : 40));
    const double span = 0.01 * std::pow(2e5, unit(rng));  // 0.01 … 2000, log-uniform
    const double offset = (unit(rng) - 0.5) * (trial % 5 == 0 ? 2e4 : 20);
    const int shape = trial % 4;
    std::vector<float> x(n);
    for (std::size_t i = 0; i < n; ++i) {
      double u = unit(rng);
      if (shape == 1) u = u < 0.5 ? 0.02 * u : 1.0 - 0.02 * u;        // two clusters at the ends
      if (shape == 2) u = (i == n / 2) ? 1.0 : 0.9 * u * u;            // one outlier above the rest
      x[i] = static_cast<float>(offset - span + span * u);
      if (shape == 3 && unit(rng) < 0.2 && i != 0) x[i] = neg_inf;     // masked keys
    }
    INFO("trial " << trial << ": n = " << n << ", span = " << span << ", offset = " << offset << ", shape " << shape);
    std::vector<float> p(n);
    const float m = relpos::kernels::rmax_f32(n, x.data());
    REQUIRE(m == *std::max_element(x.begin(), x.end()));
    const float s = relpos::kernels::raddstoreexpminusmax_f32(n, x.data(), m, p.data());
    relpos::kernels::vscale_f32(n, p.data(), 1.0f / s);
    double ref_sum = 0, total = 0;
    for (float v : x) ref_sum += std::exp(static_cast<double>(v) - m);
    CHECK(std::abs(s - ref_sum) <= 5e-6 * ref_sum);
    bool dropped = false;
    double worst = 0;
    for (std::size_t i = 0; i < n; ++i) {
      CHECK(std::fpclassify(p[i]) != FP_SUBNORMAL);
      const double ref = std::exp(static_cast<double>(x[i]) - m) / ref_sum;
      total += p[i];
      if (x[i] - m < relpos::kernels::kSoftmaxCutoff) {
        dropped = dropped || x[i] != neg_inf;
        CHECK(p[i] == 0.0f);
        CHECK(ref < 4.3e-18);
      } else {
        worst = std::max(worst, std::abs(p[i] - ref) / ref);
      }
    }
    CHECK(worst <= 5e-6);
    CHECK(std::abs(total - 1.0) <= 1e-5);
    rows_with_drops += dropped;
    ++rows;
  }
  // The fuzz reached the cut-off often, and also rows with nothing to drop.
  CHECK(rows_with_drops > rows / 4);
  CHECK(rows_with_drops < rows);
}
