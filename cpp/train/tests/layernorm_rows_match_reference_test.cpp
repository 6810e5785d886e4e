// layernorm.h's vector rows against element-order scalar transcriptions of model.cpp's loops
// (the native path), for widths with and without a vector tail, written and accumulated.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "layernorm.h"
#include "rng.h"

using namespace relpos::train;

TEST_CASE("LayerNorm rows match the scalar reference", "[train][layernorm]") {
  Rng rng(42);
  for (int d : {1, 3, 4, 7, 8, 16, 17, 64, 67}) {
    std::vector<float> x(d), g(d), b(d), dy(d), y(d), dx(d), dx0(d), dg(d, 0.25f), db(d, -0.5f);
    for (int i = 0; i < d; ++i) {
      x[i] = static_cast<float>(2.0 * rng.normal() + 0.7);
      g[i] = static_cast<float>(1.0 + 0.1 * rng.normal());
      b[i] = static_cast<float>(0.1 * rng.normal());
      dy[i] = static_cast<float>(rng.normal());
      dx0[i] = static_cast<float>(rng.normal());
    }
    // Reference (double).
    double m = 0, v = 0;
    for (int i = 0; i < d; ++i) m += x[i];
    m /= d;
    for (int i = 0; i < d; ++i) v += (x[i] - m) * (x[i] - m);
    v /= d;
    const double rs = 1.0 / std::sqrt(v + 1e-5);
    float mean = 0, rstd = 0;
    layernorm_row_forward(d, x.data(), g.data(), b.data(), 1e-5f, y.data(), &mean, &rstd);
    CHECK(mean == Approx(m).margin(1e-6));
    CHECK(rstd == Approx(rs).epsilon(1e-5));
    for (int i = 0; i < d; ++i) CHECK(y[i] == Approx((x[i] - m) * rs * g[i] + b[i]).margin(1e-5));
    double mu = 0, mux = 0;
    for (int i = 0; i < d; ++i) {
      const double u = static_cast<double>(dy[i]) * g[i];
      mu += u;
      mux += u * (x[i] - m) * rs;
    }
    mu /= d;
    mux /= d;
    for (bool acc : {false, true}) {
      dx = dx0;
      layernorm_row_backward(d, x.data(), mean, rstd, g.data(), dy.data(), dx.data(), acc);
      for (int i = 0; i < d; ++i) {
        const double ref = rs * (static_cast<double>(dy[i]) * g[i] - mu - (x[i] - m) * rs * mux) + (acc ? dx0[i] : 0.0);
        CHECK(dx[i] == Approx(ref).margin(1e-4));
      }
    }
    layernorm_param_grads(d, x.data(), mean, rstd, dy.data(), dg.data(), db.data());
    for (int i = 0; i < d; ++i) {
      CHECK(dg[i] == Approx(0.25 + dy[i] * (x[i] - mean) * rstd).margin(1e-5));
      CHECK(db[i] == -0.5f + dy[i]);
    }
  }
}
