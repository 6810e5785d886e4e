// gelu.h's array kernels against the std::erf / std::exp reference (gelu_reference,
// gelu_grad_reference) over a dense range, every tail length, and in-place use; each element's
// result does not depend on where the array is cut (chunking by parallel_for grains).
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "gelu.h"

using namespace relpos::train;

TEST_CASE("GELU kernels match the erf reference within A-S 7.1.26's error", "[train][gelu]") {
  std::vector<float> u;
  for (float x = -12.0f; x <= 12.0f; x += 0.00390625f) u.push_back(x);
  u.push_back(0.0f);
  u.push_back(-0.0f);
  u.push_back(1e-20f);
  u.push_back(-90.0f);
  u.push_back(90.0f);
  std::vector<float> y(u.size()), dy(u.size(), 1.0f), dy3(u.size(), 3.0f);
  gelu_forward(u.size(), u.data(), y.data());
  gelu_backward(u.size(), u.data(), dy.data());
  gelu_backward(u.size(), u.data(), dy3.data());
  double worst_y = 0, worst_g = 0;
  for (std::size_t i = 0; i < u.size(); ++i) {
    const double ry = gelu_reference(u[i]), rg = gelu_grad_reference(u[i]);
    worst_y = std::max(worst_y, std::abs(y[i] - ry) / (1.0 + std::abs(ry)));
    worst_g = std::max(worst_g, std::abs(dy[i] - rg));
    REQUIRE(dy3[i] == dy[i] * 3.0f);
  }
  CHECK(worst_y < 1e-6);
  CHECK(worst_g < 1e-6);
}

TEST_CASE("GELU kernels give the same bits for any cut of the array and in place", "[train][gelu]") {
  const std::size_t n = 37;
  std::vector<float> u(n), whole(n), gwhole(n, 0.5f);
  for (std::size_t i = 0; i < n; ++i) u[i] = -4.0f + 0.23f * static_cast<float>(i);
  gelu_forward(n, u.data(), whole.data());
  gelu_backward(n, u.data(), gwhole.data());
  for (std::size_t cut = 0; cut <= n; ++cut) {
    std::vector<float> part(n), g(n, 0.5f);
    gelu_forward(cut, u.data(), part.data());
    gelu_forward(n - cut, u.data() + cut, part.data() + cut);
    gelu_backward(cut, u.data(), g.data());
    gelu_backward(n - cut, u.data() + cut, g.data() + cut);
    for (std::size_t i = 0; i < n; ++i) {
      REQUIRE(part[i] == whole[i]);
      REQUIRE(g[i] == gwhole[i]);
    }
  }
  std::vector<float> inplace = u;
  gelu_forward(n, inplace.data(), inplace.data());
  for (std::size_t i = 0; i < n; ++i) REQUIRE(inplace[i] == whole[i]);
}
