// plan::weight_values: the float32 values of a plan's weight, materialised on request (the executor
// uploads them once and drops them): a Linear's W [out, in] unpacked from its GEMM panels, an
// EmbeddingTable [rows, dim], or a float table as the model holds it. int8 (q8) weights → Error.
#include "models/layers/embedding_table.h"
#include "models/layers/layers.h"
#include "plan/plan.h"

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

}  // namespace relpos::plan
