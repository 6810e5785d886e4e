// The activation micro-kernels (kernels/vactivation_f32.h) against their float64 formulas: on a
// dense grid over [−12, 12], large magnitudes and every tail length, the error is at most
// 4e-7·max(1, |x|); ±0, ±inf and NaN give what the float64 formula gives.
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "kernels/vactivation_f32.h"
#include "test_support.h"

namespace {

struct Activation {
  std::string name;
  void (*kernel)(std::size_t, float*);
  std::function<double(double)> exact;
};

const std::vector<Activation>& activations() {
  static const std::vector<Activation> all = {
      {"gelu", relpos::kernels::vgelu_f32, [](double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }},
      {"gelu_tanh", relpos::kernels::vgelu_tanh_f32,
       [](double x) { return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x))); }},
      {"silu", relpos::kernels::vsilu_f32, [](double x) { return x / (1.0 + std::exp(-x)); }},
  };
  return all;
}

std::vector<float> inputs() {
  std::vector<float> x;
  for (int i = -120000; i <= 120000; ++i) x.push_back(static_cast<float>(i) * 1e-4f);  // step 1e-4 over [−12, 12]
  for (float v : {1e-30f, -1e-30f, 1e-8f, -1e-8f, 30.0f, -30.0f, 100.0f, -100.0f, 1e4f, -1e4f, 1e20f, -1e20f, 3e38f, -3e38f})
    x.push_back(v);
  return x;
}

}  // namespace

TEST_CASE("activation kernels stay within 4e-7·max(1, |x|) of float64", "[kernels][activations]") {
  const std::vector<float> x = inputs();
  for (const Activation& a : activations()) {
    INFO(a.name);
    std::vector<float> y = x;
    a.kernel(y.size(), y.data());
    double worst = 0;
    float at = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double ref = a.exact(x[i]);
      const double err = std::abs(double(y[i]) - ref) / std::max(1.0, std::abs(double(x[i])));
      if (!(err <= worst)) {
        worst = err;
        at = x[i];
      }
    }
    CAPTURE(worst, at);
    CHECK(worst <= 4e-7);
  }
}

TEST_CASE("activation kernels treat every tail length alike", "[kernels][activations]") {
  for (const Activation& a : activations()) {
    for (std::size_t n = 0; n <= 37; ++n) {
      INFO(a.name << ", n " << n);
      std::vector<float> x(n + 1);
      for (std::size_t i = 0; i < n; ++i) x[i] = std::sin(static_cast<float>(i)) * 4.0f;
      x[n] = 12345.0f;  // past the end: must stay untouched
      std::vector<float> whole(64, 0.0f);
      std::copy(x.begin(), x.begin() + n, whole.begin());
      a.kernel(n, x.data());
      a.kernel(whole.size(), whole.data());
      for (std::size_t i = 0; i < n; ++i) CHECK(x[i] == whole[i]);
      CHECK(x[n] == 12345.0f);
    }
  }
}

TEST_CASE("activation kernels give the float64 formula's ±0, ±inf and NaN", "[kernels][activations]") {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  for (const Activation& a : activations()) {
    std::vector<float> x = {0.0f, -0.0f, inf, -inf, nan};
    std::vector<float> y = x;
    a.kernel(y.size(), y.data());
    for (std::size_t i = 0; i < x.size(); ++i) {
      INFO(a.name << "(" << x[i] << ") = " << y[i]);
      const double ref = a.exact(x[i]);
      if (std::isnan(ref))
        CHECK(std::isnan(y[i]));
      else
        CHECK(double(y[i]) == ref);
    }
  }
}
