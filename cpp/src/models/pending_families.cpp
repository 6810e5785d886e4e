// PENDING: DeBERTa-v2 waits for its scheme (DebertaParams).
#include "models/model_base.h"
#include "relpos/error.h"

namespace relpos::models {
std::unique_ptr<Model> make_deberta_v2(const ModelConfig&, const SafeTensors&) {
  fail_value("deberta-v2: the DeBERTa scheme is not available yet");
}
}  // namespace relpos::models
