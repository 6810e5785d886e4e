// plan::build: the plan of a loaded model's forward and, optionally, its task head's logits
// (ModelBase::plan over placeholder inputs).
#include "models/model_base.h"
#include "plan/plan.h"

namespace relpos::plan {

Plan build(Model& model, int batch, int seq, bool hidden_states, const TaskHead* head, int positions) {
  return static_cast<models::ModelBase&>(model).plan(batch, seq, hidden_states, head, positions);
}

}  // namespace relpos::plan
