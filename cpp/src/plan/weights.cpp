// plan::weight_values: the float32 values of a plan's weight, materialised on request (the executor
// uploads them once and drops them): a Linear's W [out, in] unpacked from its GEMM panels, an
// EmbeddingTable [rows, dim], or a float table as the model holds it. A q8 Linear → q8_values: its int8
// weights, multipliers and scales in the WebGPU q8 GEMM's words (plan.h), never widened to float32.
#include <cstring>

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
    case Weight::Kind::Floats:
    default: {
      const float* p = static_cast<const float*>(w.source);
      return std::vector<float>(p, p + w.elements);
    }
  }
}

bool is_q8(const Weight& w, int* rows, int* cols) {
  if (w.kind != Weight::Kind::Linear) return false;
  const models::QuantizedMatrix* m = static_cast<const models::Linear*>(w.source)->q8();
  if (!m) return false;
  if (rows) *rows = m->out();
  if (cols) *cols = m->in();
  return true;
}

Q8Values q8_values(const Weight& w) {
  if (!is_q8(w)) fail_value("plan: q8_values: this weight is not a q8 Linear (weight_values gives its float32 values)");
  const models::QuantizedMatrix& m = *static_cast<const models::Linear*>(w.source)->q8();
  std::vector<std::int8_t> q;
  std::vector<std::uint8_t> mult;
  m.unpack(q, mult);
  Q8Values out;
  out.rows = m.out();
  out.cols = m.in();
  const std::size_t K = static_cast<std::size_t>(out.cols), words = (K + 3) / 4;
  const std::size_t G = (K + 31) / 32, swords = 1 + (G + 7) / 8;
  out.q.assign(static_cast<std::size_t>(out.rows) * words, 0u);
  out.scales.assign(static_cast<std::size_t>(out.rows) * swords, 0u);
  for (std::size_t n = 0; n < static_cast<std::size_t>(out.rows); ++n) {
    for (std::size_t k = 0; k < K; ++k)
      out.q[n * words + k / 4] |= static_cast<std::uint32_t>(static_cast<std::uint8_t>(q[n * K + k])) << (8 * (k % 4));
    std::uint32_t bits;
    std::memcpy(&bits, &m.scales()[n], sizeof bits);
    out.scales[n * swords] = bits;
    for (std::size_t g = 0; g < G; ++g)
      out.scales[n * swords + 1 + g / 8] |= static_cast<std::uint32_t>(mult[n * G + g] - 1) << (4 * (g % 8));
  }
  return out;
}

}  // namespace relpos::plan
