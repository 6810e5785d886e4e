// Multi-head attention over token-major projections, plus small shared helpers.
//   q, k, v (b, l, h, e) → head-major [B, heads, L, d] copies → relpos::attention(scheme)
//   → context [B, heads, L, d] → token-major ctx[(b·L + l), h·d + e].
// Grouped-query attention: query head h reads key/value head h / (heads / kv_heads).
// Gathers, scatters and element-wise helpers run in parallel pieces (parallel_rows.h).
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "models/layers/layers.h"
#include "models/layers/parallel_rows.h"
#include "plan/plan.h"
#include "relpos/error.h"
#include "relpos/scheme.h"

namespace relpos::models {

std::vector<float> load_tensor(const Weights& weights, const std::string& name, const std::vector<std::int64_t>& shape) {
  check_tensor_shape(weights, name, shape);
  return weights.to_f32(name);
}

void check_tensor_shape(const Weights& weights, const std::string& name, const std::vector<std::int64_t>& shape) {
  const TensorInfo& info = weights.info(name);  // Error if missing
  if (info.shape != shape) {
    auto text = [](const std::vector<std::int64_t>& s) {
      std::string out = "[";
      for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
      return out + "]";
    };
    fail_value(weights.file_name() + ": tensor '" + name + "' has shape " + text(info.shape) + ", expected " +
               text(shape) + " from config.json");
  }
}

void add_inplace(std::size_t n, float* x, const float* y) {
  RELPOS_PROFILE_SCOPE(NormAct);
  if (plan::Recorder* rec = plan::active()) {
    plan::Op& op = rec->op("add");
    rec->ref_attr(op, "x", x);
    rec->ref_attr(op, "y", y);
    op.set("n", static_cast<double>(n));
    return;
  }
  for_each_span(n, kElementGrain, [&](std::size_t i0, std::size_t i1) {
    for (std::size_t i = i0; i < i1; ++i) x[i] += y[i];
  }, work_per_element::kAdd * static_cast<double>(n));
}

void first_token_rows(int batch, int seq, int width, const float* x, float* out) {
  if (plan::Recorder* rec = plan::active()) {
    plan::Op& op = rec->op("first_rows");
    rec->ref_attr(op, "x", x);
    rec->ref_attr(op, "out", out);
    op.set("batch", batch);
    op.set("seq", seq);
    op.set("width", width);
    return;
  }
  for (int b = 0; b < batch; ++b)
    std::memcpy(out + static_cast<std::size_t>(b) * width, x + static_cast<std::size_t>(b) * seq * width,
                sizeof(float) * static_cast<std::size_t>(width));
}

void zero_masked_rows(int rows, int width, const std::uint8_t* key_mask, float* x) {
  if (plan::Recorder* rec = plan::active()) {
    if (!rec->is_input(key_mask, "mask")) fail_value("plan: zero_masked_rows reads a key mask that is not the forward's");
    plan::Op& op = rec->op("mask_rows");
    rec->ref_attr(op, "x", x);
    op.set("rows", rows);
    op.set("width", width);
    return;
  }
  for (int r = 0; r < rows; ++r)
    if (!key_mask[r]) std::memset(x + static_cast<std::size_t>(r) * width, 0, sizeof(float) * static_cast<std::size_t>(width));
}

void select_rows(int count, const std::int32_t* rows, int limit, int width, const float* x, float* out) {
  if (plan::Recorder* rec = plan::active()) {
    if (!rec->is_input(rows, "positions")) fail_value("plan: select_rows reads rows that are not the plan's positions input");
    plan::Op& op = rec->op("select_rows");
    rec->ref_attr(op, "x", x);
    rec->ref_attr(op, "out", out);
    op.set("rows", count);
    op.set("width", width);
    op.set("limit", limit);
    return;
  }
  for (int i = 0; i < count; ++i) {
    if (rows[i] < 0 || rows[i] >= limit)
      fail_range("select_rows: row " + std::to_string(rows[i]) + " is outside [0, " + std::to_string(limit) + ")");
    std::memcpy(out + static_cast<std::size_t>(i) * width, x + static_cast<std::size_t>(rows[i]) * width,
                sizeof(float) * static_cast<std::size_t>(width));
  }
}

void mean_rows(int batch, int seq, int width, const float* x, const std::uint8_t* mask, float* out) {
  if (plan::Recorder* rec = plan::active()) {
    if (mask && !rec->is_input(mask, "mask")) fail_value("plan: mean_rows reads a mask that is not the forward's");
    plan::Op& op = rec->op("mean_rows");
    rec->ref_attr(op, "x", x);
    rec->ref_attr(op, "out", out);
    op.set("batch", batch);
    op.set("seq", seq);
    op.set("width", width);
    op.set("mask", mask ? 1 : 0);
    return;
  }
  std::vector<double> sum(static_cast<std::size_t>(width));
  for (int b = 0; b < batch; ++b) {
    std::fill(sum.begin(), sum.end(), 0.0);
    const float* xb = x + static_cast<std::size_t>(b) * seq * width;
    int count = 0;
    for (int l = 0; l < seq; ++l) {
      if (mask && !mask[static_cast<std::size_t>(b) * seq + l]) continue;
      ++count;
      for (int c = 0; c < width; ++c) sum[c] += xb[static_cast<std::size_t>(l) * width + c];
    }
    if (count == 0)
      fail_value("mean_rows: sequence " + std::to_string(b) + " has no real token to average (its attention mask is all 0)");
    float* ob = out + static_cast<std::size_t>(b) * width;
    for (int c = 0; c < width; ++c) ob[c] = static_cast<float>(sum[c] / count);
  }
}

void multiply_inplace(std::size_t n, float* x, const float* y) {
  if (plan::Recorder* rec = plan::active()) {
    plan::Op& op = rec->op("multiply");
    rec->ref_attr(op, "x", x);
    rec->ref_attr(op, "y", y);
    op.set("n", static_cast<double>(n));
    return;
  }
  for_each_span(n, kElementGrain, [&](std::size_t i0, std::size_t i1) {
    for (std::size_t i = i0; i < i1; ++i) x[i] *= y[i];
  }, work_per_element::kAdd * static_cast<double>(n));
}

void gather_rows(int rows, const std::int32_t* ids, const std::vector<float>& table, int vocab, int dim, float* out) {
  if (plan::Recorder* rec = plan::active()) {
    if (!rec->is_input(ids, "ids")) fail_value("plan: gather_rows reads ids that are not the forward's input_ids");
    plan::Op& op = rec->op("gather");
    rec->ref_attr(op, "out", out);
    op.set("table", rec->weight(table.data(), table.size()));
    op.set("rows", rows);
    op.set("dim", dim);
    op.set("vocab", vocab);
    return;
  }
  for (int r = 0; r < rows; ++r) {
    const std::int32_t id = ids[r];
    if (id < 0 || id >= vocab)
      fail_range("input_ids: token id " + std::to_string(id) + " at position " + std::to_string(r) +
                 " is outside the vocabulary [0, " + std::to_string(vocab) + ")");
  }
  for_each_span(static_cast<std::size_t>(rows), 64, [&](std::size_t r0, std::size_t r1) {
    for (std::size_t r = r0; r < r1; ++r)
      std::memcpy(out + r * dim, table.data() + static_cast<std::size_t>(ids[r]) * dim,
                  sizeof(float) * static_cast<std::size_t>(dim));
  }, work_per_element::kCopy * static_cast<double>(rows) * dim);
}

void multi_head_attention(int batch, int seq, int heads, int kv_heads, int head_dim, const HeadsView& q,
                          const HeadsView& k, const HeadsView& v, const std::uint8_t* key_mask, bool causal,
                          const Scheme& scheme, float* probs, float* ctx, AttentionScratch& s, int window) {
  RELPOS_PROFILE_SCOPE(Attention);
  if (plan::Recorder* rec = plan::active()) {
    SchemeDescription d;
    if (!scheme.describe(AttentionDims{batch, heads, seq, head_dim}, d)) fail_value(std::string("plan: position scheme '") + scheme.name() + "' has no GPU description yet");
    if (probs) fail_value("plan: attention probabilities are not available from the plan");
    plan::Op& op = rec->op("attention");
    op.set("batch", batch);
    op.set("seq", seq);
    op.set("heads", heads);
    op.set("kv_heads", kv_heads);
    op.set("head_dim", head_dim);
    for (const auto& [name, view] : {std::pair<const char*, const HeadsView*>{"q", &q}, {"k", &k}, {"v", &v}}) {
      rec->ref_attr(op, name, view->data);
      op.set(std::string(name) + "_row", static_cast<double>(view->row_stride));
      op.set(std::string(name) + "_head", static_cast<double>(view->head_stride));
    }
    rec->ref_attr(op, "ctx", ctx);
    if (key_mask && !rec->is_input(key_mask, "mask")) fail_value("plan: attention reads a key mask that is not the forward's");
    op.set("mask", key_mask ? 1 : 0);
    op.set("causal", causal ? 1 : 0);
    op.set("window", window);
    op.set("scale", scheme.content_scale(head_dim));
    op.kind = d.kind;
    for (const auto& [key, value] : d.numbers) op.set("scheme_" + key, value);
    op.set("scheme_floats", d.floats.empty() ? -1 : rec->constant({std::move(d.floats), {}}));
    op.set("scheme_ints", d.ints.empty() ? -1 : rec->constant({{}, std::move(d.ints)}));
    op.set("scheme_table", rec->weight(d.table, d.table_floats));
    op.set("scheme_table2", rec->weight(d.table2, d.table2_floats));
    return;
  }
  AttentionDims dims{batch, heads, seq, head_dim};
  const std::size_t n = dims.qkv_elements();
  if (s.q.size() < n) {
    s.q.resize(n);
    s.k.resize(n);
    s.v.resize(n);
    s.ctx.resize(n);
  }
  const int group = heads / kv_heads;
  const std::size_t row_bytes = sizeof(float) * static_cast<std::size_t>(head_dim);
  for_each_span(static_cast<std::size_t>(batch) * heads, 1, [&](std::size_t s0, std::size_t s1) {
    for (std::size_t slice = s0; slice < s1; ++slice) {
      const int b = static_cast<int>(slice / heads), h = static_cast<int>(slice % heads);
      for (int l = 0; l < seq; ++l) {
        const std::size_t token = static_cast<std::size_t>(b) * seq + l;
        const std::size_t dst = ((static_cast<std::size_t>(b) * heads + h) * seq + l) * head_dim;
        std::memcpy(s.q.data() + dst, q.data + token * q.row_stride + h * q.head_stride, row_bytes);
        std::memcpy(s.k.data() + dst, k.data + token * k.row_stride + (h / group) * k.head_stride, row_bytes);
        std::memcpy(s.v.data() + dst, v.data + token * v.row_stride + (h / group) * v.head_stride, row_bytes);
      }
    }
  }, 3.0 * work_per_element::kCopy * static_cast<double>(n));  // three copies: inline unless large (parallel_for.h)
  AttentionOutputs out;
  out.output = s.ctx.data();
  out.probs = probs;
  attention(dims, {s.q.data(), s.k.data(), s.v.data(), key_mask, causal, window}, scheme, out, s.workspace);
  const std::size_t width = static_cast<std::size_t>(heads) * head_dim;
  for_each_span(static_cast<std::size_t>(batch) * heads, 1, [&](std::size_t s0, std::size_t s1) {
    for (std::size_t slice = s0; slice < s1; ++slice) {
      const int b = static_cast<int>(slice / heads), h = static_cast<int>(slice % heads);
      for (int l = 0; l < seq; ++l) {
        const std::size_t token = static_cast<std::size_t>(b) * seq + l;
        const std::size_t src = ((static_cast<std::size_t>(b) * heads + h) * seq + l) * head_dim;
        std::memcpy(ctx + token * width + static_cast<std::size_t>(h) * head_dim, s.ctx.data() + src, row_bytes);
      }
    }
  }, work_per_element::kCopy * static_cast<double>(n));
}

}  // namespace relpos::models
