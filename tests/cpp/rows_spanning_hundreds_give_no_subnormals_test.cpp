// Issue #28: on Intel CPUs every operation that reads or produces a subnormal float takes a microcode
// assist (WebAssembly cannot flush them to zero), so softmax rows whose logits span more than ~87 made
// attention up to 5× slower. The kernels keep them out: given rows and inputs spanning ±200, the exp,
// the softmax pieces, the activations and a whole ALiBi attention call (slope 0.5: logits down to −250
// below each row's best) write no subnormal value, and stay accurate against float64.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/exp_f32.h"
#include "kernels/simd.h"
#include "kernels/softmax_f32.h"
#include "kernels/vactivation_f32.h"
#include "relpos/attention.h"
#include "relpos/schemes.h"
#include "test_support.h"

namespace {

bool subnormal(float x) { return std::fpclassify(x) == FP_SUBNORMAL; }

std::size_t count_subnormal(const std::vector<float>& v) {
  return static_cast<std::size_t>(std::count_if(v.begin(), v.end(), subnormal));
}

// −200 … 200 in steps of 1/64, plus the arguments where exp crosses FLT_MIN and its cut-off.
std::vector<float> span_200() {
  std::vector<float> x;
  for (int i = -200 * 64; i <= 200 * 64; ++i) x.push_back(static_cast<float>(i) / 64.0f);
  for (float v = -87.5f; v < -86.5f; v += 1.0f / 4096) x.push_back(v);
  for (float v : {-0x1.5D589Ep6f, -87.0f, std::nextafter(-87.0f, 0.0f), std::nextafter(-87.0f, -100.0f), -40.0f,
                  std::nextafter(-40.0f, 0.0f), std::nextafter(-40.0f, -100.0f), -265.0f, -264.9f, -442.3f})
    x.push_back(v);
  return x;
}

}  // namespace

TEST_CASE("exp_nonpositive over [-200, 0] writes no subnormal and matches std::exp above its cut-off", "[kernels][exp][subnormal]") {
  using relpos::simd::width;
  std::vector<float> x;
  for (float v : span_200())
    if (v <= 0) x.push_back(v);
  while (x.size() % width) x.push_back(0.0f);
  std::vector<float> y(x.size());
  for (std::size_t i = 0; i < x.size(); i += width)
    relpos::simd::store(y.data() + i, relpos::kernels::exp_nonpositive(relpos::simd::load(x.data() + i)));
  CHECK(count_subnormal(y) == 0);
  double worst = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    INFO("x = " << x[i]);
    if (x[i] < relpos::kernels::kExpCutoff) {
      CHECK(y[i] == 0.0f);
    } else {
      const double ref = std::exp(static_cast<double>(x[i]));
      worst = std::max(worst, std::abs(y[i] - ref) / ref);
    }
  }
  CHECK(worst < 4e-7);
}

TEST_CASE("softmax pieces over a row spanning -200 to 200 write no subnormal probability", "[kernels][softmax][subnormal]") {
  const std::vector<float> x = span_200();
  for (std::size_t n : {x.size(), x.size() - 3, std::size_t{200 * 64 + 7}}) {  // every tail length class
    CAPTURE(n);
    std::vector<float> p(x.begin(), x.begin() + static_cast<long>(n));
    const float m = relpos::kernels::rmax_f32(n, p.data());
    const float s = relpos::kernels::raddstoreexpminusmax_f32(n, p.data(), m, p.data());
    CHECK(count_subnormal(p) == 0);
    relpos::kernels::vscale_f32(n, p.data(), 1.0f / s);
    CHECK(count_subnormal(p) == 0);
    double ref_sum = 0;
    const double dm = *std::max_element(x.begin(), x.begin() + static_cast<long>(n));
    for (std::size_t i = 0; i < n; ++i) ref_sum += std::exp(x[i] - dm);
    CHECK(std::abs(s - ref_sum) / ref_sum < 1e-6);
    double worst = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double ref = std::exp(x[i] - dm) / ref_sum;
      if (x[i] - m < relpos::kernels::kSoftmaxCutoff) {
        INFO("i = " << i << ", x − max = " << x[i] - m);
        CHECK(p[i] == 0.0f);
        CHECK(ref < 4.3e-18);
      } else {
        worst = std::max(worst, std::abs(p[i] - ref) / ref);
      }
    }
    CHECK(worst < 2e-6);
  }
}

TEST_CASE("activations over [-200, 200] write no subnormal", "[kernels][activations][subnormal]") {
  const std::vector<float> x = span_200();
  for (auto* kernel : {relpos::kernels::vgelu_f32, relpos::kernels::vgelu_tanh_f32, relpos::kernels::vsilu_f32}) {
    std::vector<float> y = x;
    kernel(y.size(), y.data());
    CHECK(count_subnormal(y) == 0);
    CHECK(std::all_of(y.begin(), y.end(), [](float v) { return std::isfinite(v); }));
  }
}

TEST_CASE("ALiBi attention with slope 0.5 over 500 tokens writes no subnormal probability or output", "[subnormal]") {
  const relpos::AttentionDims dims{1, 2, 500, 16};
  const std::vector<float> slopes = {0.5f, 0.25f};
  relpos::AlibiParams params;
  params.slopes = relpos::AlibiSlopes::Custom;
  params.custom = slopes.data();
  params.symmetric = true;
  const auto scheme = relpos::make_scheme(params);
  std::vector<float> q = ts::random_vector(dims.qkv_elements(), 281), k = ts::random_vector(dims.qkv_elements(), 282),
                     v = ts::random_vector(dims.qkv_elements(), 283);
  std::vector<float> out(dims.qkv_elements()), probs(dims.score_elements());
  relpos::AttentionInputs in;
  in.q = q.data();
  in.k = k.data();
  in.v = v.data();
  relpos::Workspace ws;
  for (bool materialise : {false, true}) {
    INFO((materialise ? "materialised" : "streaming"));
    relpos::AttentionOutputs o;
    o.output = out.data();
    if (materialise) o.probs = probs.data();
    relpos::attention(dims, in, *scheme, o, ws);
    CHECK(count_subnormal(out) == 0);
    if (materialise) {
      CHECK(count_subnormal(probs) == 0);
      // Row 0 of head 0: logits q·k/4 − 0.5·j; the far keys (j ≳ 80) are exactly 0, the row sums to 1.
      double z = 0;
      for (int j = 0; j < dims.seq; ++j) z += probs[static_cast<std::size_t>(j)];
      CHECK(std::abs(z - 1.0) < 1e-5);
      CHECK(probs[static_cast<std::size_t>(dims.seq - 1)] == 0.0f);
    }
  }
}
