// LayerNorm rows (contract in layernorm.h).
#include "layernorm.h"

#include <cmath>

#include "kernels/simd.h"

namespace relpos::train {

using namespace relpos::simd;
namespace {
constexpr int W = static_cast<int>(width);
}

void layernorm_row_forward(int d, const float* x, const float* g, const float* b, float eps, float* y, float* mean,
                           float* rstd) {
  int i = 0;
  vf acc = splat(0.0f);
  for (; i + W <= d; i += W) acc = acc + load(x + i);
  float s = reduce_add(acc);
  for (; i < d; ++i) s += x[i];
  const float m = s / d;
  const vf vm = splat(m);
  acc = splat(0.0f);
  for (i = 0; i + W <= d; i += W) {
    const vf c = load(x + i) - vm;
    acc = fma(c, c, acc);
  }
  float v = reduce_add(acc);
  for (; i < d; ++i) v += (x[i] - m) * (x[i] - m);
  v /= d;
  const float rs = 1.0f / std::sqrt(v + eps);
  *mean = m;
  *rstd = rs;
  const vf vr = splat(rs);
  for (i = 0; i + W <= d; i += W) store(y + i, fma((load(x + i) - vm) * vr, load(g + i), load(b + i)));
  for (; i < d; ++i) y[i] = (x[i] - m) * rs * g[i] + b[i];
}

void layernorm_row_backward(int d, const float* x, float mean, float rstd, const float* g, const float* dy, float* dx,
                            bool accumulate) {
  const vf vm = splat(mean), vr = splat(rstd);
  vf au = splat(0.0f), aux = splat(0.0f);
  int i = 0;
  for (; i + W <= d; i += W) {
    const vf xh = (load(x + i) - vm) * vr;
    const vf u = load(dy + i) * load(g + i);
    au = au + u;
    aux = fma(u, xh, aux);
  }
  float mu = reduce_add(au), mux = reduce_add(aux);
  for (; i < d; ++i) {
    const float xh = (x[i] - mean) * rstd;
    const float u = dy[i] * g[i];
    mu += u;
    mux += u * xh;
  }
  mu /= d;
  mux /= d;
  const vf vmu = splat(mu), vmux = splat(mux);
  for (i = 0; i + W <= d; i += W) {
    const vf xh = (load(x + i) - vm) * vr;
    vf v = vr * (load(dy + i) * load(g + i) - vmu - xh * vmux);
    if (accumulate) v = v + load(dx + i);
    store(dx + i, v);
  }
  for (; i < d; ++i) {
    const float xh = (x[i] - mean) * rstd;
    const float v = rstd * (dy[i] * g[i] - mu - xh * mux);
    dx[i] = accumulate ? dx[i] + v : v;
  }
}

void layernorm_param_grads(int d, const float* x, float mean, float rstd, const float* dy, float* dg, float* db) {
  const vf vm = splat(mean), vr = splat(rstd);
  int i = 0;
  for (; i + W <= d; i += W) {
    const vf g = load(dy + i);
    store(dg + i, fma(g * (load(x + i) - vm), vr, load(dg + i)));
    store(db + i, load(db + i) + g);
  }
  for (; i < d; ++i) {
    dg[i] += dy[i] * (x[i] - mean) * rstd;
    db[i] += dy[i];
  }
}

}  // namespace relpos::train
