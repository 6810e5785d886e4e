// Bench-only: the per-call profile (cpp/src/profile/profile.h) to JS, in builds with RELPOS_PROFILE
// (bench/run.sh's build/g-wasm-prof); an empty file otherwise. Module.profileReset(),
// Module.profileRead() → { embeddings: ms, gemm: ms, …, calls: { … } }. web/ cannot reach the Module,
// so the profiled Module also puts itself on globalThis.__relposProfiledModules.
#ifdef RELPOS_PROFILE
#include <emscripten.h>
#include <emscripten/bind.h>

#include "../src/profile/profile.h"

using namespace emscripten;

namespace {
val profile_read() {
  val out = val::object(), calls = val::object();
  for (int i = 0; i < relpos::profile::kParts; ++i) {
    out.set(relpos::profile::name(i), relpos::profile::total_ms(i));
    calls.set(relpos::profile::name(i), static_cast<double>(relpos::profile::calls(i)));
  }
  out.set("calls", calls);
  val layers = val::array();
  for (int l = 0; l < relpos::profile::kMaxLayers; ++l) {
    val row = val::object();
    double sum = 0;
    for (int i = 0; i < relpos::profile::kParts; ++i) {
      row.set(relpos::profile::name(i), relpos::profile::layer_ms(l, i));
      sum += relpos::profile::layer_ms(l, i);
    }
    if (sum == 0) break;
    layers.call<void>("push", row);
  }
  out.set("layers", layers);
  return out;
}
void publish() {
  EM_ASM({ (globalThis.__relposProfiledModules = globalThis.__relposProfiledModules || []).push(Module); });
}
}  // namespace

EMSCRIPTEN_BINDINGS(relpos_profile) {
  function("profileReset", &relpos::profile::reset);
  function("profileRead", &profile_read);
  publish();
}
#endif
