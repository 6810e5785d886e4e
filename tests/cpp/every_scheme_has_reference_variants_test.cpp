// Every scheme of schemes.h is checked against the reference: each has registered variants, so the
// cross-cutting tests (terms, paths, identical tokens, masking, extreme logits) cover all 13.
#include <set>

#include "test_support.h"

TEST_CASE("every scheme in schemes.h has reference variants", "[reference]") {
  std::set<std::string> registered;
  for (const ts::Variant& v : ts::registry()) registered.insert(v.scheme);
  for (const char* scheme : {"none", "sinusoidal_absolute", "learned_absolute", "mlp_position", "shaw", "bert_relative",
                             "huang_relative", "transformer_xl", "t5", "tupe", "deberta", "rope", "alibi"}) {
    INFO(scheme);
    CHECK(registered.count(scheme) == 1);
  }
  CHECK(registered.size() == 13);
}
