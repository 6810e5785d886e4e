// Activations (in place) and the feed-forward blocks built from them.
//   relu(x) = max(x, 0)
//   gelu(x) = x/2 · (1 + erf(x/√2))                                     (HF "gelu", exact)
//   gelu_tanh(x) = x/2 · (1 + tanh(√(2/π) · (x + 0.044715·x³)))         (HF "gelu_new", BLOOM)
//   silu(x) = x / (1 + e^(−x))                                           (HF "silu"/"swish", LLaMA)
// gelu, gelu_tanh and silu are the vector micro-kernels of kernels/vactivation_f32.h.
// FeedForward, x [rows, in] → y [rows, out] through hidden width H:
//   plain: y = W2 · act(W1 x + b1) + b2;   gated: y = W2 · (act(Wg x) ⊙ (W1 x))
#include <cmath>

#include "kernels/vactivation_f32.h"
#include "models/layers/layers.h"
#include "models/layers/parallel_rows.h"
#include "plan/plan.h"
#include "relpos/error.h"

namespace relpos::models {

Activation parse_activation(const std::string& name) {
  if (name == "relu") return Activation::Relu;
  if (name == "gelu") return Activation::Gelu;
  if (name == "gelu_new" || name == "gelu_pytorch_tanh" || name == "gelu_fast") return Activation::GeluTanh;
  if (name == "silu" || name == "swish") return Activation::Silu;
  fail_value("unsupported activation '" + name + "' (supported: relu, gelu, gelu_new, gelu_pytorch_tanh, silu)");
}

namespace {
void activate_span(Activation act, std::size_t n, float* x) {
  switch (act) {
    case Activation::Relu:
      for (std::size_t i = 0; i < n; ++i) x[i] = x[i] > 0.0f ? x[i] : 0.0f;
      break;
    case Activation::Gelu:
      kernels::vgelu_f32(n, x);
      break;
    case Activation::GeluTanh:
      kernels::vgelu_tanh_f32(n, x);
      break;
    case Activation::Silu:
      kernels::vsilu_f32(n, x);
      break;
    case Activation::Tanh:
      for (std::size_t i = 0; i < n; ++i) x[i] = std::tanh(x[i]);
      break;
  }
}
}  // namespace

void activate(Activation act, std::size_t n, float* x) {
  RELPOS_PROFILE_SCOPE(NormAct);
  if (plan::Recorder* rec = plan::active()) {
    plan::Op& op = rec->op("activate");
    rec->ref_attr(op, "x", x);
    op.set("n", static_cast<double>(n));
    op.set("act", static_cast<int>(act));
    return;
  }
  namespace w = work_per_element;
  const double per = act == Activation::Gelu ? w::kGelu : act == Activation::GeluTanh || act == Activation::Tanh ? w::kGeluTanh
                   : act == Activation::Silu ? w::kSilu : w::kRelu;
  // small calls stay inline (parallel_for.h)
  for_each_span(n, kElementGrain, [&](std::size_t i0, std::size_t i1) { activate_span(act, i1 - i0, x + i0); },
                per * static_cast<double>(n));
}

void glu_pairs(Activation act, int rows, int I, float* a, float* y) {
  if (plan::Recorder* rec = plan::active()) {
    plan::Op& op = rec->op("glu");
    rec->ref_attr(op, "x", a);
    rec->ref_attr(op, "y", y);
    op.set("rows", rows);
    op.set("width", I);
    op.set("act", static_cast<int>(act));
    return;
  }
  const std::size_t width = static_cast<std::size_t>(I);
  namespace w = work_per_element;
  const double per = act == Activation::Gelu ? w::kGelu : act == Activation::GeluTanh ? w::kGeluTanh
                   : act == Activation::Silu ? w::kSilu : w::kRelu;
  for_each_span(static_cast<std::size_t>(rows), 8, [&](std::size_t r0, std::size_t r1) {
    for (std::size_t r = r0; r < r1; ++r) {
      float* u = a + r * 2 * width;
      switch (act) {
        case Activation::Gelu: kernels::vgelu_f32(width, u); break;
        case Activation::GeluTanh: kernels::vgelu_tanh_f32(width, u); break;
        case Activation::Silu: kernels::vsilu_f32(width, u); break;
        case Activation::Relu:
          for (std::size_t j = 0; j < width; ++j) u[j] = u[j] > 0.0f ? u[j] : 0.0f;
          break;
        case Activation::Tanh:
          for (std::size_t j = 0; j < width; ++j) u[j] = std::tanh(u[j]);
          break;
      }
      const float* g = u + width;
      float* out = y + r * width;
      for (std::size_t j = 0; j < width; ++j) out[j] = u[j] * g[j];
    }
  }, (per + w::kAdd) * static_cast<double>(rows) * I);
}

std::size_t FeedForward::scratch_floats(int rows) const {
  return 2 * static_cast<std::size_t>(rows) * static_cast<std::size_t>(w1.out());
}

void FeedForward::forward(int rows, const float* x, float* y, float* scratch) const {
  const std::size_t n = static_cast<std::size_t>(rows) * w1.out();
  float* h = scratch;
  w1.forward(rows, x, h);
  if (fused) {  // h [rows, 2I] → scratch + n [rows, I]
    float* g = scratch + n;
    glu_pairs(act, rows, w1.out() / 2, h, g);
    w2.forward(rows, g, y);
    return;
  }
  if (gated) {
    float* g = scratch + n;
    gate.forward(rows, x, g);
    activate(act, n, g);
    multiply_inplace(n, h, g);
  } else {
    activate(act, n, h);
  }
  w2.forward(rows, h, y);
}

}  // namespace relpos::models
