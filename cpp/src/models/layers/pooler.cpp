// FirstTokenPooler (layers.h): pooled[b] = tanh(W · h[b·seq] + bias), BERT's and MPNet's pooler, written
// with the layer primitives (first_token_rows, Linear, activate) so that a recorded plan sees every step.
#include "models/layers/layers.h"
#include "models/model_base.h"

namespace relpos::models {

FirstTokenPooler FirstTokenPooler::load(const Weights& weights, const std::string& prefix, int hidden) {
  return {Linear::load(weights, prefix, hidden, hidden, true)};
}

const float* FirstTokenPooler::forward(int batch, int seq, const float* h, std::vector<float>& scratch) const {
  const int H = dense.out();
  const std::size_t n = static_cast<std::size_t>(batch) * H;
  float* first = grow(scratch, 2 * n);
  float* pooled = first + n;
  first_token_rows(batch, seq, H, h, first);
  dense.forward(batch, first, pooled);
  activate(Activation::Tanh, n, pooled);
  return pooled;
}

}  // namespace relpos::models
