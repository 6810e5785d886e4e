// The cases of /work/shared/fixtures/hf-families (MPNet, ModernBERT, NomicBERT): same folder format and
// comparison rules as ../hf (hf_fixture_support.h): hidden states ≤ 1e-4, attention probabilities
// ≤ 1e-5 on valid positions.
#pragma once

#include <string>

#include "hf_fixture_support.h"

namespace relpos_test {

inline std::string family_fixture_dir(const std::string& name) {
  return std::string(RELPOS_SHARED_DIR) + "/fixtures/hf-families/" + name + "/";
}

inline FixtureErrors run_hf_family_fixture(const std::string& name, const relpos::Weights* weights_override = nullptr) {
  return run_fixture_in_dir(family_fixture_dir(name), name, weights_override);
}

}  // namespace relpos_test
