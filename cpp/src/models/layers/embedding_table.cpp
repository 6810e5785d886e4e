// EmbeddingTable (embedding_table.h): per-row int8 quantization at load, dequantizing gather.
#include "models/layers/embedding_table.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/gemm_qs8.h"
#include "models/layers/layers.h"
#include "models/layers/load_context.h"
#include "relpos/error.h"

namespace relpos::models {

EmbeddingTable EmbeddingTable::load(const Weights& weights, const std::string& name, int rows, int dim) {
  EmbeddingTable t;
  t.rows_ = rows;
  t.dim_ = dim;
  std::vector<float> values = load_tensor(weights, name, {rows, dim});
  if (load_options_of(weights).dtype != WeightFormat::Q8) {
    t.f32_ = std::move(values);
    return t;
  }
  t.q8_.resize(values.size());
  t.scales_.resize(static_cast<std::size_t>(rows));
  for (int r = 0; r < rows; ++r) {
    const float* row = values.data() + static_cast<std::size_t>(r) * dim;
    float amax = 0.0f;
    for (int c = 0; c < dim; ++c) amax = std::max(amax, std::fabs(row[c]));
    t.scales_[r] = amax / 127.0f;
    const float inv = amax > 0.0f ? 127.0f / amax : 0.0f;
    std::int8_t* q = t.q8_.data() + static_cast<std::size_t>(r) * dim;
    for (int c = 0; c < dim; ++c) q[c] = static_cast<std::int8_t>(kernels::quantize_value(row[c], inv, 127));
  }
  replace_held(weights, values.size(), t.q8_.size() + t.scales_.size() * sizeof(float));
  return t;
}

void EmbeddingTable::gather(int count, const std::int32_t* ids, float* out) const {
  for (int r = 0; r < count; ++r) {
    const std::int32_t id = ids[r];
    if (id < 0 || id >= rows_)
      fail_range("input_ids: token id " + std::to_string(id) + " at position " + std::to_string(r) +
                 " is outside the vocabulary [0, " + std::to_string(rows_) + ")");
    float* dst = out + static_cast<std::size_t>(r) * dim_;
    const std::size_t at = static_cast<std::size_t>(id) * dim_;
    if (q8_.empty()) {
      std::memcpy(dst, f32_.data() + at, sizeof(float) * static_cast<std::size_t>(dim_));
    } else {
      const float s = scales_[id];
      for (int c = 0; c < dim_; ++c) dst[c] = s * q8_[at + c];
    }
  }
}

void EmbeddingTable::add_row(int row, float* out) const {
  const std::size_t at = static_cast<std::size_t>(row) * dim_;
  if (q8_.empty()) {
    add_inplace(static_cast<std::size_t>(dim_), out, f32_.data() + at);
    return;
  }
  const float s = scales_[row];
  for (int c = 0; c < dim_; ++c) out[c] += s * q8_[at + c];
}

void gather_rows(int rows, const std::int32_t* ids, const EmbeddingTable& table, int, int, float* out) {
  table.gather(rows, ids, out);
}

}  // namespace relpos::models
