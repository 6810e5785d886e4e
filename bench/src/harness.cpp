// Bench-only WebAssembly harness: calls relpos::attention directly for every scheme the library
// currently defines (bench/run.sh passes -DHAVE_<Params> for each make_scheme overload it finds in
// cpp/src), so kernel time is measured without the npm package's marshalling.
// JS (bench/lib/harness.mjs) fills the buffers with seeded random data, then calls make_schemes()
// and run(i) interleaved over schemes. Layout as relpos/attention.h: [batch=1, heads, seq, head_dim].
#include <malloc.h>
#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#else  // native build for profiling (bench/src/profile_main.cpp)
#include <chrono>
#define EMSCRIPTEN_KEEPALIVE
static double emscripten_get_now() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
#endif

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "relpos/attention.h"
#include "relpos/error.h"
#include "relpos/schemes.h"

using namespace relpos;

namespace {

// Buffers JS fills (index = enum value; sizes from buf_len).
enum Buf {
  Q, K, V, OUT,
  ABS_TABLE,       // [seq, d]              learned absolute
  MLP_W1, MLP_B1, MLP_W2, MLP_B2,  // feature 16, hidden 64
  SHAW_K, SHAW_V,  // [2·128+1, d]
  BERT_TABLE,      // [2·seq − 1, d]
  HUANG_TABLE,     // [2·128+1, d]
  TXL_U, TXL_V, TXL_W,  // [H, d], [H, d], [H·d, H·d]
  T5_BIAS,         // [32, H]
  TUPE_POS, TUPE_UQ, TUPE_UK,  // [seq, 128], [H·d, 128] ×2
  DEB_POSK, DEB_POSQ,  // [H, 512, d]
  NBUF
};

struct Entry {
  std::string name;
  std::unique_ptr<Scheme> scheme;
  Workspace ws;
  std::string error;
};

struct Ctx {
  int seq, heads, d;
  std::vector<std::vector<float>> bufs;
  std::vector<Entry> entries;
  std::string last_error;
};

constexpr int kShawK = 128, kHuangM = 128, kMlpF = 16, kMlpH = 64, kTupeP = 128;

std::size_t buf_size(const Ctx& c, int which) {
  const std::size_t s = c.seq, h = c.heads, d = c.d;
  switch (which) {
    case Q: case K: case V: case OUT: return h * s * d;
    case ABS_TABLE: return s * d;
    case MLP_W1: return kMlpH * kMlpF;
    case MLP_B1: return kMlpH;
    case MLP_W2: return d * kMlpH;
    case MLP_B2: return d;
    case SHAW_K: case SHAW_V: return (2 * kShawK + 1) * d;
    case BERT_TABLE: return (2 * s - 1) * d;
    case HUANG_TABLE: return (2 * kHuangM + 1) * d;
    case TXL_U: case TXL_V: return h * d;
    case TXL_W: return h * d * h * d;
    case T5_BIAS: return 32 * h;
    case TUPE_POS: return s * kTupeP;
    case TUPE_UQ: case TUPE_UK: return h * d * kTupeP;
    case DEB_POSK: case DEB_POSQ: return h * 512 * d;
  }
  return 0;
}

}  // namespace

extern "C" {

EMSCRIPTEN_KEEPALIVE Ctx* setup(int seq, int heads, int d) {
  auto* c = new Ctx{seq, heads, d, {}, {}, {}};
  c->bufs.resize(NBUF);
  for (int i = 0; i < NBUF; ++i) c->bufs[i].assign(buf_size(*c, i), 0.0f);
  return c;
}
EMSCRIPTEN_KEEPALIVE int nbuf() { return NBUF; }
EMSCRIPTEN_KEEPALIVE float* buf(Ctx* c, int which) { return c->bufs[which].data(); }
EMSCRIPTEN_KEEPALIVE int buf_len(Ctx* c, int which) { return static_cast<int>(c->bufs[which].size()); }

// Creates every scheme compiled in; returns how many. Variants: "shaw" = keys + values with k = 16
// (rows 112..144 of the k = 128 tables), "shaw_k128" = keys + values with k = 128, "shaw_keys" =
// keys only with k = 128 (the ORT comparison), "alibi" = BLOOM slopes, d = j − i.
EMSCRIPTEN_KEEPALIVE int make_schemes(Ctx* c) {
  auto f = [&](int b) { return c->bufs[b].data(); };
  auto add = [&](const char* name, auto make) {
    Entry e;
    e.name = name;
    try {
      e.scheme = make();
    } catch (const std::exception& ex) {
      e.error = ex.what();
    }
    c->entries.push_back(std::move(e));
  };
  (void)f;
  add("none", [&] { return make_scheme(NoneParams{}); });
#ifdef HAVE_SinusoidalAbsoluteParams
  add("sinusoidal", [&] { return make_scheme(SinusoidalAbsoluteParams{}); });
#endif
#ifdef HAVE_LearnedAbsoluteParams
  add("learned_absolute", [&] { LearnedAbsoluteParams p; p.table = f(ABS_TABLE); p.table_rows = c->seq; return make_scheme(p); });
#endif
#ifdef HAVE_MlpPositionParams
  add("mlp", [&] {
    MlpPositionParams p; p.feature_dim = kMlpF; p.hidden = kMlpH;
    p.w1 = f(MLP_W1); p.b1 = f(MLP_B1); p.w2 = f(MLP_W2); p.b2 = f(MLP_B2);
    return make_scheme(p);
  });
#endif
#ifdef HAVE_ShawParams
  // Shaw et al. used k = 16; k = 128 doubles as the ORT comparison's clipping (keys only there).
  add("shaw", [&] { ShawParams p; p.max_distance = 16; p.key_table = f(SHAW_K) + (kShawK - 16) * c->d; p.value_table = f(SHAW_V) + (kShawK - 16) * c->d; return make_scheme(p); });
  add("shaw_k128", [&] { ShawParams p; p.max_distance = kShawK; p.key_table = f(SHAW_K); p.value_table = f(SHAW_V); return make_scheme(p); });
  add("shaw_keys", [&] { ShawParams p; p.max_distance = kShawK; p.key_table = f(SHAW_K); return make_scheme(p); });
#endif
#ifdef HAVE_BertRelativeParams
  add("bert_relative_key", [&] { BertRelativeParams p; p.max_positions = c->seq; p.table = f(BERT_TABLE); return make_scheme(p); });
#endif
#ifdef HAVE_HuangRelativeParams
  add("huang", [&] { HuangRelativeParams p; p.max_distance = kHuangM; p.table = f(HUANG_TABLE); return make_scheme(p); });
#endif
#ifdef HAVE_TransformerXLParams
  add("transformer_xl", [&] {
    TransformerXLParams p; p.d_model = c->heads * c->d; p.u = f(TXL_U); p.v = f(TXL_V); p.w_kr = f(TXL_W);
    return make_scheme(p);
  });
#endif
#ifdef HAVE_T5Params
  add("t5", [&] { T5Params p; p.bias_table = f(T5_BIAS); return make_scheme(p); });
#endif
#ifdef HAVE_TupeParams
  add("tupe", [&] {
    TupeParams p; p.positions = f(TUPE_POS); p.table_rows = c->seq; p.pos_dim = kTupeP; p.u_q = f(TUPE_UQ); p.u_k = f(TUPE_UK);
    return make_scheme(p);
  });
#endif
#ifdef HAVE_DebertaParams
  add("deberta", [&] { DebertaParams p; p.pos_key = f(DEB_POSK); p.pos_query = f(DEB_POSQ); return make_scheme(p); });
#endif
#ifdef HAVE_RopeParams
  add("rope", [&] { return make_scheme(RopeParams{}); });
#endif
#ifdef HAVE_AlibiParams
  add("alibi", [&] { return make_scheme(AlibiParams{}); });
#endif
  return static_cast<int>(c->entries.size());
}

EMSCRIPTEN_KEEPALIVE const char* scheme_name(Ctx* c, int i) { return c->entries[i].name.c_str(); }
EMSCRIPTEN_KEEPALIVE const char* scheme_error(Ctx* c, int i) { return c->entries[i].error.c_str(); }

// One attention call with scheme i into OUT; returns milliseconds, or −1 (see scheme_error).
EMSCRIPTEN_KEEPALIVE double run(Ctx* c, int i) {
  Entry& e = c->entries[i];
  if (!e.scheme) return -1.0;
  AttentionDims dims;
  dims.batch = 1;
  dims.heads = c->heads;
  dims.seq = c->seq;
  dims.head_dim = c->d;
  AttentionInputs in;
  in.q = c->bufs[Q].data();
  in.k = c->bufs[K].data();
  in.v = c->bufs[V].data();
  AttentionOutputs out;
  out.output = c->bufs[OUT].data();
  const double t0 = emscripten_get_now();
  try {
    attention(dims, in, *e.scheme, out, e.ws);
  } catch (const std::exception& ex) {
    e.error = ex.what();
    e.scheme.reset();
    return -1.0;
  }
  return emscripten_get_now() - t0;
}

// Scratch bytes scheme i's workspace holds (its peak: the workspace only grows).
EMSCRIPTEN_KEEPALIVE double scratch_bytes(Ctx* c, int i) { return static_cast<double>(c->entries[i].ws.capacity_bytes()); }
EMSCRIPTEN_KEEPALIVE void release_scratch(Ctx* c, int i) { c->entries[i].ws.release(); }
EMSCRIPTEN_KEEPALIVE double heap_in_use() { return static_cast<double>(mallinfo().uordblks); }
EMSCRIPTEN_KEEPALIVE void teardown(Ctx* c) { delete c; }
}
