// PENDING: DeBERTa-v2 and Transformer-XL wait for their schemes (DebertaParams, TransformerXLParams).
#include "models/model_base.h"
#include "relpos/error.h"

namespace relpos::models {
std::unique_ptr<Model> make_deberta_v2(const ModelConfig&, const SafeTensors&) {
  fail_value("deberta-v2: the DeBERTa scheme is not available yet");
}
std::unique_ptr<Model> make_transfo_xl(const ModelConfig&, const SafeTensors&) {
  fail_value("transfo-xl: the Transformer-XL scheme is not available yet");
}
}  // namespace relpos::models
