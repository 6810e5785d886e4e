// relpos_golden: writes the native build's attention results for every scheme to a JSON file, the
// reference the npm package's tests (tests/js/golden.test.mjs) compare both WebAssembly builds to.
//
//   relpos_golden out.json
//
// Each case holds the scheme object exactly as the JS API takes it (tables as number arrays, named
// in "float32"), the sizes, q/k/v (deterministic pseudo-random), and the native output, probs and
// terms. A scheme is included only when the library defines its factory (RELPOS_HAS_<XParams>,
// set by cmake/golden.cmake the same way cmake/wasm_package.cmake does for the bindings).
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "relpos/attention.h"
#include "relpos/error.h"
#include "relpos/schemes.h"

namespace {

using json = nlohmann::json;
using relpos::AttentionDims;

struct Rng {
  std::uint32_t state;
  float next() {  // uniform in [-1, 1)
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(state >> 8) / static_cast<float>(1u << 23) - 1.0f;
  }
  std::vector<float> vec(std::size_t n, float scale = 1.0f) {
    std::vector<float> v(n);
    for (auto& x : v) x = scale * next();
    return v;
  }
};

struct Case {
  std::string name;
  json scheme;                      // JS scheme object (tables filled in by table())
  std::vector<std::string> float32;  // keys of `scheme` that are Float32Arrays
  std::vector<std::vector<float>> storage;
  AttentionDims dims{2, 3, 6, 8};
  bool causal = false;
  bool masked = false;

  const float* table(const std::string& key, std::vector<float> values) {
    scheme[key] = values;
    float32.push_back(key);
    storage.push_back(std::move(values));
    return storage.back().data();
  }
};

json run(Case& c, const relpos::Scheme& scheme, std::uint32_t seed) {
  const AttentionDims& d = c.dims;
  Rng rng{seed};
  const std::size_t n = d.qkv_elements(), s = d.score_elements();
  const auto q = rng.vec(n, 1.5f), k = rng.vec(n, 1.5f), v = rng.vec(n);
  std::vector<std::uint8_t> mask;
  if (c.masked) {
    mask.assign(static_cast<std::size_t>(d.batch) * d.seq, 1);
    mask[1] = 0;                                   // batch 0: key 1 hidden
    if (d.batch > 1) mask[d.seq + d.seq - 1] = 0;  // batch 1: last key hidden
  }
  const std::size_t n_terms = 1 + scheme.term_names().size();
  std::vector<float> out(n), probs(s);
  std::vector<std::vector<float>> terms(n_terms, std::vector<float>(s));
  relpos::AttentionInputs in{q.data(), k.data(), v.data(), c.masked ? mask.data() : nullptr, c.causal};
  relpos::AttentionOutputs o;
  o.output = out.data();
  o.probs = probs.data();
  for (auto& t : terms) o.terms.push_back(t.data());
  relpos::Workspace ws;
  relpos::attention(d, in, scheme, o, ws);

  json j;
  j["name"] = c.name;
  j["scheme"] = c.scheme;
  j["float32"] = c.float32;
  j["batch"] = d.batch;
  j["heads"] = d.heads;
  j["seqLen"] = d.seq;
  j["headDim"] = d.head_dim;
  j["causal"] = c.causal;
  if (c.masked) j["mask"] = mask;
  j["q"] = q;
  j["k"] = k;
  j["v"] = v;
  j["output"] = out;
  j["probs"] = probs;
  json tj = json::object();
  std::vector<std::string> names{"content"};
  for (const auto& t : scheme.term_names()) names.push_back(t);
  for (std::size_t t = 0; t < n_terms; ++t) tj[names[t]] = terms[t];
  j["terms"] = tj;
  return j;
}

template <class P>
void add(json& cases, Case c, const P& params, std::uint32_t seed) {
  auto scheme = relpos::make_scheme(params);
  cases.push_back(run(c, *scheme, seed));
}

Case make_case(const std::string& name, json scheme) {
  Case c;
  c.name = name;
  c.scheme = std::move(scheme);
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: relpos_golden out.json\n";
    return 2;
  }
  json cases = json::array();
  std::uint32_t seed = 1;
  try {
    {
      Case c = make_case("none, key mask", {{"type", "none"}});
      c.masked = true;
      add(cases, c, relpos::NoneParams{}, seed++);
      Case c2 = make_case("none, causal, batch 1 head 1, seq 37 > a 4×8 tile", {{"type", "none"}});
      c2.dims = {1, 1, 37, 20};
      c2.causal = true;
      add(cases, c2, relpos::NoneParams{}, seed++);
    }
#ifdef RELPOS_HAS_SinusoidalAbsoluteParams
    for (auto layout : {relpos::SinusoidLayout::Interleaved, relpos::SinusoidLayout::Concatenated}) {
      const bool inter = layout == relpos::SinusoidLayout::Interleaved;
      Case c = make_case(std::string("sinusoidal ") + (inter ? "interleaved" : "concatenated"),
                         {{"type", "sinusoidal"}, {"layout", inter ? "interleaved" : "concatenated"}, {"base", 100.0}});
      add(cases, c, relpos::SinusoidalAbsoluteParams{layout, 100.0f}, seed++);
    }
#endif
#ifdef RELPOS_HAS_LearnedAbsoluteParams
    {
      Case c = make_case("learned-absolute, 9-row table", {{"type", "learned-absolute"}});
      Rng r{seed * 77};
      relpos::LearnedAbsoluteParams p;
      p.table = c.table("table", r.vec(9 * 8, 0.5f));
      p.table_rows = 9;
      add(cases, c, p, seed++);
    }
#endif
#ifdef RELPOS_HAS_MlpPositionParams
    {
      Case c = make_case("mlp, sinusoid features", {{"type", "mlp"}, {"featureDim", 4}, {"hidden", 5}});
      Rng r{seed * 77};
      relpos::MlpPositionParams p;
      p.feature_dim = 4;
      p.hidden = 5;
      p.w1 = c.table("w1", r.vec(5 * 4, 0.5f));
      p.b1 = c.table("b1", r.vec(5, 0.5f));
      p.w2 = c.table("w2", r.vec(8 * 5, 0.5f));
      p.b2 = c.table("b2", r.vec(8, 0.5f));
      add(cases, c, p, seed++);
    }
#endif
#ifdef RELPOS_HAS_ShawParams
    {
      Case c = make_case("shaw, key and value tables, k=2", {{"type", "shaw"}, {"maxDistance", 2}});
      Rng r{seed * 77};
      relpos::ShawParams p;
      p.max_distance = 2;
      p.key_table = c.table("keyTable", r.vec(5 * 8, 0.5f));
      p.value_table = c.table("valueTable", r.vec(5 * 8, 0.5f));
      c.masked = true;
      add(cases, c, p, seed++);
    }
#endif
#ifdef RELPOS_HAS_BertRelativeParams
    {
      Case c = make_case("bert-relative, key_query", {{"type", "bert-relative"}, {"maxPositions", 8}, {"keyQuery", true}});
      Rng r{seed * 77};
      relpos::BertRelativeParams p;
      p.max_positions = 8;
      p.key_query = true;
      p.table = c.table("table", r.vec(15 * 8, 0.5f));
      add(cases, c, p, seed++);
    }
#endif
#ifdef RELPOS_HAS_HuangRelativeParams
    {
      Case c = make_case("huang, learned table m=3", {{"type", "huang"}, {"maxDistance", 3}});
      Rng r{seed * 77};
      relpos::HuangRelativeParams p;
      p.max_distance = 3;
      p.table = c.table("table", r.vec(7 * 8, 0.5f));
      c.causal = true;
      add(cases, c, p, seed++);
      Case c2 = make_case("huang, sinusoid", {{"type", "huang"}});
      add(cases, c2, relpos::HuangRelativeParams{}, seed++);
    }
#endif
#ifdef RELPOS_HAS_TransformerXLParams
    {
      Case c = make_case("transformer-xl, clamp 4, causal", {{"type", "transformer-xl"}, {"dModel", 12}, {"clampLen", 4}});
      Rng r{seed * 77};
      relpos::TransformerXLParams p;
      p.d_model = 12;
      p.clamp_len = 4;
      p.u = c.table("u", r.vec(3 * 8, 0.5f));
      p.v = c.table("v", r.vec(3 * 8, 0.5f));
      p.w_kr = c.table("wKR", r.vec(3 * 8 * 12, 0.5f));
      c.causal = true;
      add(cases, c, p, seed++);
    }
#endif
#ifdef RELPOS_HAS_T5Params
    for (bool bidirectional : {true, false}) {
      Case c = make_case(std::string("t5 ") + (bidirectional ? "bidirectional" : "unidirectional, causal"),
                         {{"type", "t5"}, {"numBuckets", 8}, {"maxDistance", 16}, {"bidirectional", bidirectional}});
      Rng r{seed * 77};
      relpos::T5Params p;
      p.num_buckets = 8;
      p.max_distance = 16;
      p.bidirectional = bidirectional;
      p.bias_table = c.table("biasTable", r.vec(8 * 3));
      c.causal = !bidirectional;
      c.dims.seq = 20;
      add(cases, c, p, seed++);
    }
#endif
#ifdef RELPOS_HAS_TupeParams
    {
      Case c = make_case("tupe", {{"type", "tupe"}, {"posDim", 6}});
      Rng r{seed * 77};
      relpos::TupeParams p;
      p.table_rows = 7;
      p.pos_dim = 6;
      p.positions = c.table("positions", r.vec(7 * 6, 0.5f));
      p.u_q = c.table("uQ", r.vec(3 * 8 * 6, 0.5f));
      p.u_k = c.table("uK", r.vec(3 * 8 * 6, 0.5f));
      add(cases, c, p, seed++);
    }
#endif
#ifdef RELPOS_HAS_DebertaParams
    for (int variant = 0; variant < 3; ++variant) {
      // 0: both terms, log buckets; 1: c2p only, no buckets; 2: p2c only
      const int buckets = variant == 0 ? 4 : -1;
      const int max_rel = variant == 0 ? 8 : 5;
      const int span = buckets > 0 ? buckets : max_rel;
      json terms = variant == 0 ? json{"c2p", "p2c"} : variant == 1 ? json{"c2p"} : json{"p2c"};
      Case c = make_case("deberta " + terms.dump(),
                         {{"type", "deberta"}, {"buckets", buckets}, {"maxRelative", max_rel}, {"terms", terms}});
      Rng r{seed * 77};
      relpos::DebertaParams p;
      p.c2p = variant != 2;
      p.p2c = variant != 1;
      p.position_buckets = buckets;
      p.max_relative_positions = max_rel;
      c.dims.seq = 12;
      if (p.c2p) p.pos_key = c.table("posKey", r.vec(3 * 2 * span * 8, 0.5f));
      if (p.p2c) p.pos_query = c.table("posQuery", r.vec(3 * 2 * span * 8, 0.5f));
      add(cases, c, p, seed++);
    }
#endif
#ifdef RELPOS_HAS_RopeParams
    {
      Case c = make_case("rope half", {{"type", "rope"}, {"layout", "half"}, {"theta", 10000.0}});
      relpos::RopeParams p;
      p.layout = relpos::RopeLayout::Half;
      add(cases, c, p, seed++);
      Case c2 = make_case("rope interleaved, rotaryDim 4, causal",
                          {{"type", "rope"}, {"layout", "interleaved"}, {"theta", 500.0}, {"rotaryDim", 4}});
      c2.causal = true;
      relpos::RopeParams p2;
      p2.layout = relpos::RopeLayout::Interleaved;
      p2.theta = 500.0f;
      p2.rotary_dim = 4;
      add(cases, c2, p2, seed++);
    }
#endif
#ifdef RELPOS_HAS_AlibiParams
    {
      Case c = make_case("alibi bloom, causal", {{"type", "alibi"}, {"slopes", "bloom"}});
      c.causal = true;
      relpos::AlibiParams p;
      add(cases, c, p, seed++);
      Case c2 = make_case("alibi mpt, symmetric", {{"type", "alibi"}, {"slopes", "mpt"}, {"biasMax", 6.0}, {"symmetric", true}});
      relpos::AlibiParams p2;
      p2.slopes = relpos::AlibiSlopes::Mpt;
      p2.mpt_bias_max = 6.0f;
      p2.symmetric = true;
      add(cases, c2, p2, seed++);
      Case c3 = make_case("alibi custom slopes", {{"type", "alibi"}});
      relpos::AlibiParams p3;
      p3.slopes = relpos::AlibiSlopes::Custom;
      p3.custom = c3.table("slopes", {0.5f, 0.25f, 0.125f});
      add(cases, c3, p3, seed++);
    }
#endif
  } catch (const relpos::Error& e) {
    std::cerr << "relpos_golden: " << e.what() << "\n";
    return 1;
  }
  std::ofstream f(argv[1]);
  f << json{{"generator", "relpos_golden (native build)"}, {"cases", cases}}.dump() << "\n";
  if (!f) {
    std::cerr << "relpos_golden: cannot write " << argv[1] << "\n";
    return 1;
  }
  std::cout << "relpos_golden: " << cases.size() << " cases → " << argv[1] << "\n";
  return 0;
}
