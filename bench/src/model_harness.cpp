// Bench-only WebAssembly harness over relpos's C++ model layer (relpos/model.h), used for the
// end-to-end comparison while the npm package has no loadModel yet. JS passes config.json text and
// the safetensors bytes (copied into the heap), then times forward(): token ids in, last_hidden_state
// out (JS copies it into a fresh Float32Array, as onnxruntime-web's session.run does).
#include <emscripten.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "relpos/model.h"
#include "relpos/safetensors.h"

namespace {
struct ModelCtx {
  std::unique_ptr<relpos::Model> model;
  relpos::ModelOutput out;
  std::string error;
};
std::string g_error;
}  // namespace

extern "C" {
// Takes ownership of nothing: config (NUL-terminated) and the safetensors bytes are copied.
EMSCRIPTEN_KEEPALIVE ModelCtx* model_load(const char* config, const std::uint8_t* bytes, int nbytes) {
  try {
    auto c = new ModelCtx;
    std::vector<std::uint8_t> v(bytes, bytes + nbytes);
    auto st = relpos::SafeTensors::parse(std::move(v), "model.safetensors");
    c->model = relpos::load_model(config, st);
    return c;
  } catch (const std::exception& e) {
    g_error = e.what();
    return nullptr;
  }
}
EMSCRIPTEN_KEEPALIVE const char* last_error() { return g_error.c_str(); }

// Returns a pointer to last_hidden_state [1, seq, hidden] (valid until the next call), or 0.
EMSCRIPTEN_KEEPALIVE float* model_forward(ModelCtx* c, const std::int32_t* ids, const std::int32_t* mask, int seq) {
  try {
    c->out = c->model->forward(1, seq, ids, mask);
    return c->out.last_hidden_state.data.data();
  } catch (const std::exception& e) {
    g_error = e.what();
    return nullptr;
  }
}
EMSCRIPTEN_KEEPALIVE int model_out_len(ModelCtx* c) { return static_cast<int>(c->out.last_hidden_state.data.size()); }
}
