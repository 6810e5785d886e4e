// The bench-only profile (profile.h): exclusive time per part on a per-thread stack of open scopes.
#ifdef RELPOS_PROFILE
#include "profile/profile.h"

#include <chrono>

namespace relpos::profile {
namespace {
constexpr int kDepth = 32;
struct State {
  double total[kParts] = {};
  double layer[kMaxLayers][kParts] = {};
  int current_layer = -1;
  long long count[kParts] = {};
  int stack[kDepth] = {};
  int depth = 0;
  double last = 0;
};
thread_local State st;
double now() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
const char* const kNames[kParts] = {"embeddings", "gemm", "attention", "norms_activations", "pooling", "thread_wakeups", "other"};

// Adds `ms` to `part`, and to the current layer's row when inside one.
void charge(int part, double ms) {
  st.total[part] += ms;
  if (st.current_layer >= 0 && st.current_layer < kMaxLayers) st.layer[st.current_layer][part] += ms;
}
}  // namespace

void set_layer(int layer) {
  const double t = now();
  if (st.depth > 0) charge(st.stack[st.depth < kDepth ? st.depth - 1 : kDepth - 1], t - st.last);
  st.last = t;
  st.current_layer = layer;
}

void enter(Part p) {
  const double t = now();
  if (st.depth == 0) st.current_layer = -1;
  if (st.depth > 0) {
    const int outer = st.stack[st.depth < kDepth ? st.depth - 1 : kDepth - 1];
    charge(outer, t - st.last);
    if (outer == Embeddings || outer == Pooling) p = static_cast<Part>(outer);  // they enclose what they call
  }
  if (st.depth < kDepth) st.stack[st.depth] = p;
  ++st.depth;
  ++st.count[p];
  st.last = t;
}

void leave() {
  const double t = now();
  if (st.depth <= 0) return;
  --st.depth;
  charge(st.stack[st.depth < kDepth ? st.depth : kDepth - 1], t - st.last);
  st.last = t;
}

void reset() {
  for (int i = 0; i < kParts; ++i) st.total[i] = 0, st.count[i] = 0;
  for (auto& row : st.layer)
    for (double& x : row) x = 0;
}
double layer_ms(int layer, int part) {
  return layer >= 0 && layer < kMaxLayers && part >= 0 && part < kParts ? st.layer[layer][part] : 0;
}
double total_ms(int part) { return part >= 0 && part < kParts ? st.total[part] : 0; }
long long calls(int part) { return part >= 0 && part < kParts ? st.count[part] : 0; }
const char* name(int part) { return part >= 0 && part < kParts ? kNames[part] : ""; }

}  // namespace relpos::profile
#endif
