// libFuzzer target: the restricted unpickler (io::unpickle_state_dict) on arbitrary bytes.
//
// Contract checked (cpp/src/io/pickle.cpp): malformed or hostile input raises relpos::Error and
// nothing else, in memory linear in the input; an accepted state dict has unique tensor names, every
// tensor pointing at an existing storage with as many strides as sizes, none negative.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "io/pickle.h"
#include "relpos/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  relpos::io::StateDict sd;
  try {
    sd = relpos::io::unpickle_state_dict(data, size, "fuzz.pkl");
  } catch (const relpos::Error&) {
    return 0;
  }
  std::set<std::string> names;
  for (const auto& t : sd.tensors) {
    bool ok = names.insert(t.name).second && t.storage < sd.storages.size() && t.shape.size() == t.stride.size();
    for (std::size_t d = 0; d < t.shape.size(); ++d) ok = ok && t.shape[d] >= 0 && t.stride[d] >= 0;
    if (!ok) {
      std::fprintf(stderr, "fuzz_pickle: accepted state dict breaks an invariant (tensor '%s')\n", t.name.c_str());
      std::abort();
    }
  }
  return 0;
}
