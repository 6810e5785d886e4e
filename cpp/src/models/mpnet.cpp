// Placeholder while the family is written (issue #26): replaced before this lands.
#include "models/model_base.h"
#include "relpos/error.h"

namespace relpos::models {

std::unique_ptr<Model> make_mpnet(const ModelConfig&, const Weights&) { fail_value("mpnet: not implemented yet"); }

}  // namespace relpos::models
