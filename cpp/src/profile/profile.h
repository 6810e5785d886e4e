// Bench-only per-call profile of a model forward (issue #19): where the time of one call goes.
// Compiled to nothing unless RELPOS_PROFILE is defined (the shipped package never defines it;
// bench/run.sh builds a profiled copy of the package in build/g-wasm-prof, cmake -DRELPOS_PROFILE=ON).
//
//   RELPOS_PROFILE_SCOPE(Gemm);   // in a model-layer function: its time until the end of the block
//   RELPOS_PROFILE_LAYER(i);      // in a family's layer loop: what follows is encoder layer i (−1 after)
//
// Time is exclusive: a scope opened inside another pauses the outer one, so the parts add up to the
// time of the outermost scope (ModelBase::forward's Other). Recorded per calling thread (the thread
// that runs forward; workers of parallel_for record nothing, their time is inside the caller's scope).
// Parts: embeddings (lookups, adds, the embedding LayerNorm / projection: scopes nested in an
// embeddings or pooling scope count as that part), GEMMs (every Linear, fp32 or q8), attention (head gathers,
// relpos::attention, scatter), norms + activations + residual adds, pooling, thread wake-ups (a
// parallel region's notify and its join wait, threads build only) and other (the rest of forward:
// validation, masks, output copies).
#pragma once

#ifdef RELPOS_PROFILE
namespace relpos::profile {
enum Part { Embeddings, Gemm, Attention, NormAct, Pooling, Wake, Other, kParts };
void enter(Part p);
void leave();
struct Scope {
  explicit Scope(Part p) { enter(p); }
  ~Scope() { leave(); }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;
};
void set_layer(int layer);  // time from here on belongs to encoder layer `layer` (−1: outside the layers)
void reset();
double total_ms(int part);   // this thread's exclusive time in `part` since reset()
double layer_ms(int layer, int part);  // … of it inside encoder layer `layer` (< kMaxLayers)
constexpr int kMaxLayers = 64;
long long calls(int part);   // scopes of `part` entered since reset()
const char* name(int part);
}  // namespace relpos::profile
#define RELPOS_PROFILE_CAT2(a, b) a##b
#define RELPOS_PROFILE_CAT(a, b) RELPOS_PROFILE_CAT2(a, b)
#define RELPOS_PROFILE_SCOPE(part) \
  ::relpos::profile::Scope RELPOS_PROFILE_CAT(relpos_profile_scope_, __LINE__)(::relpos::profile::part)
#define RELPOS_PROFILE_LAYER(i) ::relpos::profile::set_layer(static_cast<int>(i))
#else
#define RELPOS_PROFILE_SCOPE(part) static_cast<void>(0)
#define RELPOS_PROFILE_LAYER(i) static_cast<void>(0)
#endif
