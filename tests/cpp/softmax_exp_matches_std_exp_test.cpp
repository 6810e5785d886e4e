// The softmax's vector exp (kernels/exp_f32.h) against std::exp over [−87, 0] (below its cut-off it is
// 0), the softmax's exp-and-sum over [−40, 0] (below kSoftmaxCutoff it writes 0), plus the special values
// softmax relies on: exp(0) = 1, exp(−inf) = 0, NaN propagates.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/exp_f32.h"
#include "kernels/simd.h"
#include "kernels/softmax_f32.h"

TEST_CASE("softmax exp is within 3 ulp-scale relative error of std::exp on [-87, 0]", "[kernels][exp]") {
  using relpos::simd::width;
  std::vector<float> x;
  for (float v = 0.0f; v > -87.0f; v -= 0.0137f) x.push_back(v);
  while (x.size() % width) x.push_back(-87.0f);
  std::vector<float> y(x.size());
  for (std::size_t i = 0; i < x.size(); i += width)
    relpos::simd::store(y.data() + i, relpos::kernels::exp_nonpositive(relpos::simd::load(x.data() + i)));
  double worst = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double ref = std::exp(static_cast<double>(x[i]));
    worst = std::max(worst, std::abs(y[i] - ref) / ref);
  }
  CHECK(worst < 4e-7);
}

TEST_CASE("softmax exp-and-sum is within 3 ulp-scale relative error of std::exp on its range [-40, 0]", "[kernels][exp]") {
  std::vector<float> x;
  for (float v = 0.0f; v >= relpos::kernels::kSoftmaxCutoff; v -= 0.0137f) x.push_back(v);
  std::vector<float> y(x.size());
  const float sum = relpos::kernels::raddstoreexpminusmax_f32(x.size(), x.data(), 0.0f, y.data());
  double worst = 0, ref_sum = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double ref = std::exp(static_cast<double>(x[i]));
    ref_sum += ref;
    worst = std::max(worst, std::abs(y[i] - ref) / ref);
  }
  CHECK(worst < 4e-7);
  CHECK(std::abs(sum - ref_sum) / ref_sum < 1e-6);
}

TEST_CASE("softmax exp maps 0 to 1, -inf and deep negatives to 0, and keeps NaN", "[kernels][exp]") {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> x(32, 0.0f);
  x[1] = -inf;
  x[2] = -1e30f;
  x[3] = -88.0f;
  x[4] = std::numeric_limits<float>::quiet_NaN();
  x[17] = -inf;
  std::vector<float> y(x.size());
  relpos::kernels::raddstoreexpminusmax_f32(x.size(), x.data(), 0.0f, y.data());
  CHECK(y[0] == 1.0f);
  CHECK(y[1] == 0.0f);
  CHECK(y[2] == 0.0f);
  CHECK(y[3] == 0.0f);
  CHECK(std::isnan(y[4]));
  CHECK(y[17] == 0.0f);
  CHECK(y[31] == 1.0f);
}
