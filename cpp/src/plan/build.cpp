// plan::build: the plan of a loaded model's forward (ModelBase::plan over placeholder inputs).
#include "models/model_base.h"
#include "plan/plan.h"

namespace relpos::plan {

Plan build(Model& model, int batch, int seq, bool hidden_states) {
  return static_cast<models::ModelBase&>(model).plan(batch, seq, hidden_states);
}

}  // namespace relpos::plan
