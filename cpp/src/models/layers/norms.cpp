// LayerNorm and RMS norm over the last dimension of [rows, dim].
//   LayerNorm: y = (x − μ) / sqrt(σ² + eps) · γ + β,  μ = mean(x), σ² = mean((x − μ)²)  (biased)
//   RmsNorm:   y = x / sqrt(mean(x²) + eps) · w          (T5LayerNorm / LlamaRMSNorm, no mean removal)
// Sums accumulate in double so eps as small as 1e-12 stays meaningful. Rows in parallel pieces.
#include <cmath>

#include "models/layers/layers.h"
#include "models/layers/parallel_rows.h"
#include "plan/plan.h"

namespace {
constexpr std::size_t kNormRows = 16;  // rows per parallel piece (each row is normalised alone)
}

namespace relpos::models {

LayerNorm LayerNorm::load(const Weights& weights, const std::string& prefix, int dim, float eps, bool with_bias) {
  LayerNorm n;
  n.gamma = load_tensor(weights, prefix + ".weight", {dim});
  if (with_bias) n.beta = load_tensor(weights, prefix + ".bias", {dim});
  n.eps = eps;
  return n;
}

void LayerNorm::forward(int rows, const float* x, float* y) const {
  RELPOS_PROFILE_SCOPE(NormAct);
  const int dim = static_cast<int>(gamma.size());
  if (plan::Recorder* rec = plan::active()) {
    plan::Op& op = rec->op("norm");
    op.set("kind", 0);
    rec->ref_attr(op, "x", x);
    rec->ref_attr(op, "y", y);
    op.set("gamma", rec->weight(gamma.data(), gamma.size()));
    op.set("beta", rec->weight(beta.empty() ? nullptr : beta.data(), beta.size()));
    op.set("rows", rows);
    op.set("dim", dim);
    op.set("eps", eps);
    return;
  }
  for_each_span(static_cast<std::size_t>(rows), kNormRows, [&](std::size_t r0, std::size_t r1) {
  for (std::size_t r = r0; r < r1; ++r) {
    const float* xr = x + static_cast<std::size_t>(r) * dim;
    float* yr = y + static_cast<std::size_t>(r) * dim;
    double sum = 0;
    for (int i = 0; i < dim; ++i) sum += xr[i];
    const double mean = sum / dim;
    double var = 0;
    for (int i = 0; i < dim; ++i) var += (xr[i] - mean) * (xr[i] - mean);
    const double inv = 1.0 / std::sqrt(var / dim + static_cast<double>(eps));
    for (int i = 0; i < dim; ++i) {
      const float v = static_cast<float>((xr[i] - mean) * inv) * gamma[i];
      yr[i] = beta.empty() ? v : v + beta[i];
    }
  }
  }, work_per_element::kLayerNorm * rows * dim);  // small calls stay inline (parallel_for.h)
}

RmsNorm RmsNorm::load(const Weights& weights, const std::string& name, int dim, float eps) {
  RmsNorm n;
  n.weight = load_tensor(weights, name, {dim});
  n.eps = eps;
  return n;
}

RmsNorm RmsNorm::load_unit_offset(const Weights& weights, const std::string& name, int dim, float eps) {
  RmsNorm n = load(weights, name, dim, eps);
  for (float& w : n.weight) w = 1.0f + w;
  return n;
}

void RmsNorm::forward(int rows, const float* x, float* y) const {
  RELPOS_PROFILE_SCOPE(NormAct);
  const int dim = static_cast<int>(weight.size());
  if (plan::Recorder* rec = plan::active()) {
    plan::Op& op = rec->op("norm");
    op.set("kind", 1);
    rec->ref_attr(op, "x", x);
    rec->ref_attr(op, "y", y);
    op.set("gamma", rec->weight(weight.data(), weight.size()));
    op.set("beta", -1);
    op.set("rows", rows);
    op.set("dim", dim);
    op.set("eps", eps);
    return;
  }
  for_each_span(static_cast<std::size_t>(rows), kNormRows, [&](std::size_t r0, std::size_t r1) {
  for (std::size_t r = r0; r < r1; ++r) {
    const float* xr = x + static_cast<std::size_t>(r) * dim;
    float* yr = y + static_cast<std::size_t>(r) * dim;
    double ss = 0;
    for (int i = 0; i < dim; ++i) ss += static_cast<double>(xr[i]) * xr[i];
    const float inv = static_cast<float>(1.0 / std::sqrt(ss / dim + static_cast<double>(eps)));
    for (int i = 0; i < dim; ++i) yr[i] = weight[i] * (xr[i] * inv);
  }
  }, work_per_element::kRmsNorm * rows * dim);
}

}  // namespace relpos::models
