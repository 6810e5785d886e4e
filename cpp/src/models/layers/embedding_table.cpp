// EmbeddingTable (embedding_table.h): per-row int8 quantization at load, dequantizing gather.
#include "models/layers/embedding_table.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/dot_rows_f32.h"
#include "kernels/gemm_f32.h"
#include "kernels/gemm_qs8.h"
#include "models/layers/layers.h"
#include "models/layers/load_context.h"
#include "models/layers/streamed_checkpoint.h"
#include "parallel/parallel_for.h"
#include "plan/plan.h"
#include "relpos/error.h"
#include "relpos/positions.h"
#include "relpos/threads.h"

namespace relpos::models {

void EmbeddingTable::quantize_rows(int rows, int dim, const float* values, std::int8_t* q8, float* scales) {
  for (int r = 0; r < rows; ++r) {
    const float* row = values + static_cast<std::size_t>(r) * dim;
    const float amax = kernels::rabsmax_f32(static_cast<std::size_t>(dim), row);
    scales[r] = amax / 127.0f;
    const float inv = amax > 0.0f ? 127.0f / amax : 0.0f;
    std::int8_t* q = q8 + static_cast<std::size_t>(r) * dim;
    std::int32_t wide[256];  // a row at most 256 values at a time
    for (int c0 = 0; c0 < dim; c0 += 256) {
      const int n = std::min(256, dim - c0);
      kernels::vquantize_f32(static_cast<std::size_t>(n), row + c0, inv, 127, wide);
      for (int c = 0; c < n; ++c) q[c0 + c] = static_cast<std::int8_t>(wide[c]);
    }
  }
}

EmbeddingTable EmbeddingTable::load(const Weights& weights, const std::string& name, int rows, int dim) {
  EmbeddingTable t;
  t.rows_ = rows;
  t.dim_ = dim;
  if (const StreamedCheckpoint* streamed = streamed_of(weights)) {
    check_tensor_shape(weights, name, {rows, dim});
    if (std::optional<PreparedTable> p = streamed->take_table(name)) {
      t.gpu_ = p->gpu;
      t.released_ = p->gpu >= 0;  // on the GPU already: gather, project or values here are an Error
      t.was_q8_ = p->q8_gpu;      // … as int8 rows
      t.f32_ = std::move(p->f32);
      t.q8_ = std::move(p->q8);
      t.scales_ = std::move(p->scales);
      replace_held(weights, 0, t.f32_.size() * sizeof(float) + t.q8_.size() + t.scales_.size() * sizeof(float));
      return t;
    }
  }
  std::vector<float> values = load_tensor(weights, name, {rows, dim});
  if (load_options_of(weights).dtype != WeightFormat::Q8) {
    t.f32_ = std::move(values);
    return t;
  }
  t.q8_.resize(values.size());
  t.scales_.resize(static_cast<std::size_t>(rows));
  quantize_rows(rows, dim, values.data(), t.q8_.data(), t.scales_.data());
  replace_held(weights, values.size(), t.q8_.size() + t.scales_.size() * sizeof(float));
  return t;
}

std::size_t EmbeddingTable::release_weights() {
  const std::size_t bytes = f32_.size() * sizeof(float) + q8_.size() + scales_.size() * sizeof(float);
  was_q8_ = is_q8();
  f32_ = {};
  q8_ = {};
  scales_ = {};
  dequantized_ = {};
  released_ = true;
  return bytes;
}

void EmbeddingTable::check_held(const char* what) const {
  if (released_)
    fail_value(std::string(what) + ": this model's weights live on the GPU (device 'webgpu'); their WebAssembly copy was released after the upload");
}

void EmbeddingTable::gather(int count, const std::int32_t* ids, float* out) const {
  check_held("forward");
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

void EmbeddingTable::scale(float s) {
  for (float& v : f32_) v *= s;
  for (float& v : scales_) v *= s;
}

std::vector<float> EmbeddingTable::values() const {
  check_held("plan: weight values");
  if (q8_.empty()) return f32_;
  std::vector<float> v(q8_.size());
  for (int r = 0; r < rows_; ++r)
    for (int c = 0; c < dim_; ++c) v[static_cast<std::size_t>(r) * dim_ + c] = scales_[r] * q8_[static_cast<std::size_t>(r) * dim_ + c];
  return v;
}

void EmbeddingTable::add_row(int row, float* out) const {
  check_held("forward");
  const std::size_t at = static_cast<std::size_t>(row) * dim_;
  if (q8_.empty()) {
    add_inplace(static_cast<std::size_t>(dim_), out, f32_.data() + at);
    return;
  }
  const float s = scales_[row];
  for (int c = 0; c < dim_; ++c) out[c] += s * q8_[at + c];
}

void EmbeddingTable::project(int count, const float* x, float* y, const float* bias) const {
  if (plan::Recorder* rec = plan::active()) {  // one gemm: the table [rows, dim] is W [N, K]
    plan::Op& op = rec->op("gemm");
    rec->ref_attr(op, "a", x);
    rec->ref_attr(op, "c", y);
    op.set("w", rec->weight(*this));
    op.set("bias", rec->weight(bias, bias ? static_cast<std::size_t>(rows_) : 0));
    op.set("M", count);
    op.set("N", rows_);
    op.set("K", dim_);
    return;
  }
  check_held("forward");
  // Table rows per chunk. Up to kFewRows vectors, dot_rows_f32 streams each row once per 4 vectors;
  // more (every token of a batch) pack the chunk's rows once and run the packed GEMM over all of them.
  constexpr parallel::Index kRows = 128;
  constexpr int kFewRows = 8;
  const bool gemm = count > kFewRows;
  const std::size_t block = std::max(static_cast<std::size_t>(kRows) * dim_, kernels::packed_b_floats(dim_, kRows));
  const std::size_t per_thread = (q8_.empty() ? 0 : block) + (gemm ? block : 0);
  dequantized_.resize(per_thread * static_cast<std::size_t>(num_threads()));  // before the region
  parallel::parallel_for(0, rows_, kRows, [&](parallel::Index b, parallel::Index e, int thread) {
    const int n = static_cast<int>(e - b);
    float* scratch = dequantized_.data() + per_thread * static_cast<std::size_t>(thread);
    const float* w = f32_.data() + static_cast<std::size_t>(b) * dim_;
    if (!q8_.empty()) {
      for (int r = 0; r < n; ++r) {
        const float s = scales_[b + r];
        const std::int8_t* q = q8_.data() + static_cast<std::size_t>(b + r) * dim_;
        for (int c = 0; c < dim_; ++c) scratch[static_cast<std::size_t>(r) * dim_ + c] = s * q[c];
      }
      w = scratch;
      scratch += block;
    }
    if (gemm) {
      kernels::pack_b_nk(dim_, n, w, static_cast<std::size_t>(dim_), scratch);
      kernels::gemm_f32_packed(count, n, dim_, 1.0f, x, static_cast<std::size_t>(dim_), scratch, y + b,
                               static_cast<std::size_t>(rows_), false);
    } else {
      kernels::dot_rows_f32(count, n, dim_, x, static_cast<std::size_t>(dim_), w, static_cast<std::size_t>(dim_), y + b,
                            static_cast<std::size_t>(rows_));
    }
    if (bias)
      for (int i = 0; i < count; ++i)
        for (int r = 0; r < n; ++r) y[static_cast<std::size_t>(i) * rows_ + b + r] += bias[b + r];
  }, 2.0 * count * rows_ * dim_);
}

void gather_rows(int rows, const std::int32_t* ids, const EmbeddingTable& table, int, int, float* out) {
  if (plan::Recorder* rec = plan::active()) {
    if (!rec->is_input(ids, "ids")) fail_value("plan: gather_rows reads ids that are not the forward's input_ids");
    plan::Op& op = rec->op("gather");
    rec->ref_attr(op, "out", out);
    op.set("table", rec->weight(table));
    op.set("rows", rows);
    op.set("dim", table.dim());
    op.set("vocab", table.rows());
    return;
  }
  table.gather(rows, ids, out);
}

namespace {
// add_rows op: source 0 = token types (null: all 0), 1 = positions r % seq.
void record_add_rows(plan::Recorder& rec, int table, int source, int rows, int dim, float* out) {
  plan::Op& op = rec.op("add_rows");
  rec.ref_attr(op, "out", out);
  op.set("table", table);
  op.set("source", source);
  op.set("rows", rows);
  op.set("dim", dim);
}
}  // namespace

void add_token_type_rows(int rows, const std::int32_t* types, const std::vector<float>& table, int dim, float* out) {
  if (plan::Recorder* rec = plan::active()) {
    if (types && !rec->is_input(types, "token_types")) fail_value("plan: token type rows read ids that are not the forward's token_type_ids");
    return record_add_rows(*rec, rec->weight(table.data(), table.size()), 0, rows, dim, out);
  }
  for (int t = 0; t < rows; ++t)
    add_inplace(static_cast<std::size_t>(dim), out + static_cast<std::size_t>(t) * dim,
                table.data() + static_cast<std::size_t>(types ? types[t] : 0) * dim);
}

void add_position_rows(int rows, int seq, const EmbeddingTable& table, float* out) {
  if (plan::Recorder* rec = plan::active()) return record_add_rows(*rec, rec->weight(table), 1, rows, table.dim(), out);
  for (int t = 0; t < rows; ++t) table.add_row(t % seq, out + static_cast<std::size_t>(t) * table.dim());
}

void add_padded_position_rows(int batch, int seq, const std::int32_t* ids, int padding_idx, const EmbeddingTable& table,
                              float* out) {
  if (plan::Recorder* rec = plan::active()) {
    if (!rec->is_input(ids, "ids")) fail_value("plan: padded position rows read ids that are not the forward's input_ids");
    record_add_rows(*rec, rec->weight(table), 2, batch * seq, table.dim(), out);
    rec->plan().ops.back().set("padding_idx", padding_idx);
    return;
  }
  const std::vector<std::int32_t> pos = padded_position_ids(ids, batch, seq, padding_idx);
  for (int t = 0; t < batch * seq; ++t) table.add_row(pos[t], out + static_cast<std::size_t>(t) * table.dim());
}

void add_position_rows(int rows, int seq, const std::vector<float>& table, int dim, float* out) {
  if (plan::Recorder* rec = plan::active()) return record_add_rows(*rec, rec->weight(table.data(), table.size()), 1, rows, dim, out);
  for (int t = 0; t < rows; ++t)
    add_inplace(static_cast<std::size_t>(dim), out + static_cast<std::size_t>(t) * dim,
                table.data() + static_cast<std::size_t>(t % seq) * dim);
}

}  // namespace relpos::models
