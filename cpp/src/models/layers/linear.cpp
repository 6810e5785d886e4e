// Linear layer: y[rows, out] = x[rows, in] · Wᵀ + b with W [out, in] (nn.Linear layout).
// Wᵀ is the GEMM's B (K = in, N = out); since W is Bᵀ row-major, it is packed with pack_b_nk once at
// load, and forward is one packed GEMM with the bias, split over output tiles (gemm_packed_parallel).
#include <string>

#include "kernels/gemm_f32.h"
#include "kernels/unpack_b_nk.h"
#include "models/layers/layers.h"
#include "models/layers/parallel_rows.h"
#include "models/layers/load_context.h"
#include "models/layers/streamed_checkpoint.h"
#include "plan/plan.h"
#include "relpos/error.h"

namespace relpos::models {

Linear::Linear(int in, int out, const float* weight, const float* bias) : in_(in), out_(out) {
  packed_.resize(kernels::packed_b_floats(in, out));
  kernels::pack_b_nk(in, out, weight, static_cast<std::size_t>(in), packed_.data());
  if (bias) bias_.assign(bias, bias + out);
}

Linear Linear::load(const Weights& weights, const std::string& prefix, int in, int out, bool with_bias) {
  if (const StreamedCheckpoint* streamed = streamed_of(weights)) {  // converted as it streamed in
    check_tensor_shape(weights, prefix + ".weight", {out, in});
    if (std::optional<PreparedLinear> p = streamed->take_linear(prefix + ".weight")) {
      Linear l;
      l.in_ = in;
      l.out_ = out;
      l.gpu_ = p->gpu;
      l.released_ = p->gpu >= 0 && p->packed.empty();  // its rows went straight to the GPU (WeightSink), none kept
      l.packed_ = std::move(p->packed);
      l.q8_ = std::move(p->q8);
      if (with_bias) l.bias_ = load_tensor(weights, prefix + ".bias", {out});
      replace_held(weights, 0, l.q8_.empty() ? l.packed_.size() * sizeof(float) : l.q8_.bytes());
      return l;
    }
  }
  const auto w = load_tensor(weights, prefix + ".weight", {out, in});
  std::vector<float> b;
  if (with_bias) b = load_tensor(weights, prefix + ".bias", {out});
  if (load_options_of(weights).dtype == WeightFormat::Q8) {
    Linear q;
    q.in_ = in;
    q.out_ = out;
    q.q8_ = QuantizedMatrix(in, out, w.data());
    q.bias_ = std::move(b);
    replace_held(weights, w.size(), q.q8_.bytes());
    return q;
  }
  Linear l(in, out, w.data(), with_bias ? b.data() : nullptr);
  replace_held(weights, w.size(), l.packed_.size() * sizeof(float));  // panels padded to NR columns
  return l;
}

std::size_t Linear::release_weights() {
  const std::size_t bytes = released_ ? 0 : (q8_.empty() ? packed_.size() * sizeof(float) : q8_.bytes());
  packed_ = {};
  if (!q8_.empty()) q8_.release();
  released_ = true;
  return bytes;
}

namespace {
[[noreturn]] void fail_released(const char* what) {
  fail_value(std::string(what) + ": this model's weights live on the GPU (device 'webgpu'); their WebAssembly copy was released after the upload");
}
}  // namespace

std::vector<float> Linear::weight_f32() const {
  if (released_) fail_released("plan: weight values");
  if (!q8_.empty()) fail_value("plan: int8 (q8) linear weights have no float32 form (plan::q8_values gives their int8 layout)");
  std::vector<float> w(static_cast<std::size_t>(in_) * out_);
  kernels::unpack_b_nk(in_, out_, packed_.data(), w.data());
  return w;
}

void Linear::forward(int rows, const float* x, float* y) const {
  RELPOS_PROFILE_SCOPE(Gemm);
  if (plan::Recorder* rec = plan::active()) {
    plan::Op& op = rec->op("gemm");
    rec->ref_attr(op, "a", x);
    rec->ref_attr(op, "c", y);
    op.set("w", rec->weight(*this));
    op.set("bias", rec->weight(bias_.empty() ? nullptr : bias_.data(), bias_.size()));
    op.set("M", rows);
    op.set("N", out_);
    op.set("K", in_);
    return;
  }
  if (released_) fail_released("forward");
  if (!q8_.empty()) return q8_.forward(rows, x, y, bias_.empty() ? nullptr : bias_.data());
  gemm_packed_parallel(rows, out_, in_, x, static_cast<std::size_t>(in_), packed_.data(), y,
                       static_cast<std::size_t>(out_), bias_.empty() ? nullptr : bias_.data());
}

void Linear::derive_per_head(const float* key, int rows, const float* x, int heads) const {
  if (plan::Recorder* rec = plan::active()) rec->derive(key, x, rows, *this, heads);
}

void Linear::forward_group(int rows, const float* x, const Linear* const* layers, float* const* ys, int count) {
  constexpr int kMaxGroup = 4;
  bool fused = count <= kMaxGroup && plan::active() == nullptr;
  for (int i = 0; i < count && fused; ++i)
    fused = !layers[i]->released_ && layers[i]->q8_.empty() && layers[i]->in_ == layers[0]->in_;
  if (!fused) {
    for (int i = 0; i < count; ++i) layers[i]->forward(rows, x, ys[i]);
    return;
  }
  RELPOS_PROFILE_SCOPE(Gemm);
  PackedGemm products[kMaxGroup];
  for (int i = 0; i < count; ++i) {
    const Linear& l = *layers[i];
    products[i] = {l.out_, l.packed_.data(), ys[i], static_cast<std::size_t>(l.out_), l.bias_.empty() ? nullptr : l.bias_.data()};
  }
  gemm_packed_parallel_group(rows, layers[0]->in_, x, static_cast<std::size_t>(layers[0]->in_), products, count);
}

}  // namespace relpos::models
