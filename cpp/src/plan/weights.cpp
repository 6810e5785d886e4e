// plan::weight_values: the float32 values of a plan's weight, materialised on request (the executor
// uploads them once and drops them): a Linear's W [out, in] unpacked from its GEMM panels, an
// EmbeddingTable [rows, dim], or a float table as the model holds it. A q8 Linear → q8_values: its int8
// weights, multipliers and scales in the WebGPU q8 words (plan.h), never widened to float32; a q8
// EmbeddingTable the same words with multipliers 1 (its per-row scale), for the GPU's q8 gather.
#include <cstring>
#include <string>

#include "models/layers/embedding_table.h"
#include "models/layers/layers.h"
#include "plan/plan.h"
#include "relpos/error.h"

namespace relpos::plan {

std::vector<float> weight_values(const Weight& w) {
  switch (w.kind) {
    case Weight::Kind::Linear:
      return static_cast<const models::Linear*>(w.source)->weight_f32();
    case Weight::Kind::Table:
      return static_cast<const models::EmbeddingTable*>(w.source)->values();
    case Weight::Kind::Derived:
      fail_value("plan: weight values: this table is derived from weights " + std::to_string(w.from) + " and " +
                 std::to_string(w.linear) + " of the plan by its executor (the projection's weights live on the GPU)");
    case Weight::Kind::Floats:
    default: {
      const float* p = static_cast<const float*>(w.source);
      return std::vector<float>(p, p + w.elements);
    }
  }
}

FloatSpan weight_data(const Weight& w) {
  if (w.kind == Weight::Kind::Floats) return {static_cast<const float*>(w.source), w.elements};
  if (w.kind != Weight::Kind::Table) return {};
  const auto* t = static_cast<const models::EmbeddingTable*>(w.source);
  const float* p = t->f32_data();
  return p ? FloatSpan{p, static_cast<std::size_t>(t->rows()) * t->dim()} : FloatSpan{};
}

int gpu_buffer(const Weight& w) {
  if (w.kind == Weight::Kind::Linear) return static_cast<const models::Linear*>(w.source)->gpu_buffer();
  if (w.kind == Weight::Kind::Table) return static_cast<const models::EmbeddingTable*>(w.source)->gpu_buffer();
  return -1;
}

bool is_q8(const Weight& w, int* rows, int* cols) {
  int r = 0, c = 0;
  if (w.kind == Weight::Kind::Linear) {
    const models::QuantizedMatrix* m = static_cast<const models::Linear*>(w.source)->q8();
    if (!m) return false;
    r = m->out();
    c = m->in();
  } else if (w.kind == Weight::Kind::Table) {
    const auto* t = static_cast<const models::EmbeddingTable*>(w.source);
    if (!t->is_q8()) return false;
    r = t->rows();
    c = t->dim();
  } else {
    return false;
  }
  if (rows) *rows = r;
  if (cols) *cols = c;
  return true;
}

void q8_words(int rows, int cols, const std::int8_t* q, const std::uint8_t* mult, const float* scales, Q8Values& out) {
  out.rows = rows;
  out.cols = cols;
  const std::size_t K = static_cast<std::size_t>(cols), words = (K + 3) / 4;
  const std::size_t G = (K + 31) / 32, swords = 1 + (G + 7) / 8;
  out.q.assign(static_cast<std::size_t>(rows) * words, 0u);
  out.scales.assign(static_cast<std::size_t>(rows) * swords, 0u);
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "byte b of a word is q[4w + b]: the row's bytes as they are");
  for (std::size_t n = 0; n < static_cast<std::size_t>(rows); ++n) {
    if (K > 0) std::memcpy(out.q.data() + n * words, q + n * K, K);  // the rest of the last word stays 0
    std::uint32_t bits;
    std::memcpy(&bits, &scales[n], sizeof bits);
    out.scales[n * swords] = bits;
    if (mult)
      for (std::size_t g = 0; g < G; ++g)
        out.scales[n * swords + 1 + g / 8] |= static_cast<std::uint32_t>(mult[n * G + g] - 1) << (4 * (g % 8));
  }
}

Q8Values q8_values(const Weight& w) {
  if (!is_q8(w)) fail_value("plan: q8_values: this weight is not a q8 Linear or table (weight_values gives its float32 values)");
  const bool released = w.kind == Weight::Kind::Table ? static_cast<const models::EmbeddingTable*>(w.source)->released()
                                                       : static_cast<const models::Linear*>(w.source)->released();
  if (released)
    fail_value("plan: q8_values: this model's weights live on the GPU (device 'webgpu'); their WebAssembly copy was released after the upload");
  if (w.kind == Weight::Kind::Table) {  // one scale per row, multipliers 1
    const auto& t = *static_cast<const models::EmbeddingTable*>(w.source);
    Q8Values out;
    q8_words(t.rows(), t.dim(), t.q8().data(), nullptr, t.scales().data(), out);
    return out;
  }
  const models::QuantizedMatrix& m = *static_cast<const models::Linear*>(w.source)->q8();
  std::vector<std::int8_t> q;
  std::vector<std::uint8_t> mult;
  m.unpack(q, mult);
  Q8Values out;
  q8_words(m.out(), m.in(), q.data(), mult.data(), m.scales().data(), out);
  return out;
}

std::size_t release_weights(const Plan& plan) {
  std::size_t bytes = 0;
  for (const Weight& w : plan.weights) {
    // the plan holds const pointers into the model, which owns these objects and lends them to the executor
    if (w.kind == Weight::Kind::Linear) bytes += const_cast<models::Linear*>(static_cast<const models::Linear*>(w.source))->release_weights();
    if (w.kind == Weight::Kind::Table)
      bytes += const_cast<models::EmbeddingTable*>(static_cast<const models::EmbeddingTable*>(w.source))->release_weights();
  }
  return bytes;
}

}  // namespace relpos::plan
