// Embind: every scheme's parameter struct (relpos/schemes.h) as a value object whose table fields
// are heap addresses, its factory as make<Name>Scheme(params) → Scheme (or a JS Error), and the
// Scheme class itself (name, termNames, check, delete).
//
// A factory is bound only when the library defines it: cmake/wasm_package.cmake scans
// cpp/src for `make_scheme(const <X>Params&` definitions and sets RELPOS_HAS_<X>Params.
// availableSchemes() lists what this build offers.
#include <emscripten/bind.h>

#include "common.h"
#include "relpos/attention.h"
#include "relpos/schemes.h"

namespace relpos::bindings {
namespace {

using namespace emscripten;

template <class P, const float* P::*M>
std::uintptr_t get_table(const P& p) {
  return address(p.*M);
}
template <class P, const float* P::*M>
void set_table(P& p, std::uintptr_t a) {
  p.*M = ptr<const float>(a);
}
#define RELPOS_TABLE_FIELD(P, js, member) field(js, &get_table<P, &P::member>, &set_table<P, &P::member>)

template <class P>
val make(const P& params) {
  return guarded([&] { return val(make_scheme(params)); });
}

val term_names(const Scheme& s) {
  val out = val::array();
  for (const auto& n : s.term_names()) out.call<void>("push", n);
  return out;
}

val check(const Scheme& s, const AttentionDims& dims) {
  return guarded([&] {
    dims.check();
    s.check(dims);
    return val::undefined();
  });
}

val available_schemes() {
  val out = val::array();
  auto add = [&](const char* name) { out.call<void>("push", std::string(name)); };
  add("none");
#ifdef RELPOS_HAS_SinusoidalAbsoluteParams
  add("sinusoidal");
#endif
#ifdef RELPOS_HAS_LearnedAbsoluteParams
  add("learned-absolute");
#endif
#ifdef RELPOS_HAS_MlpPositionParams
  add("mlp");
#endif
#ifdef RELPOS_HAS_ShawParams
  add("shaw");
#endif
#ifdef RELPOS_HAS_BertRelativeParams
  add("bert-relative");
#endif
#ifdef RELPOS_HAS_HuangRelativeParams
  add("huang");
#endif
#ifdef RELPOS_HAS_TransformerXLParams
  add("transformer-xl");
#endif
#ifdef RELPOS_HAS_T5Params
  add("t5");
#endif
#ifdef RELPOS_HAS_TupeParams
  add("tupe");
#endif
#ifdef RELPOS_HAS_DebertaParams
  add("deberta");
#endif
#ifdef RELPOS_HAS_RopeParams
  add("rope");
#endif
#ifdef RELPOS_HAS_AlibiParams
  add("alibi");
#endif
  return out;
}

}  // namespace
}  // namespace relpos::bindings

EMSCRIPTEN_BINDINGS(relpos_schemes) {
  using namespace emscripten;
  using namespace relpos;
  using namespace relpos::bindings;

  class_<Scheme>("Scheme")
      .function("name", optional_override([](const Scheme& s) { return std::string(s.name()); }))
      .function("termNames", &term_names)
      .function("check", &check);

  enum_<SinusoidLayout>("SinusoidLayout")
      .value("Interleaved", SinusoidLayout::Interleaved)
      .value("Concatenated", SinusoidLayout::Concatenated);
  enum_<RopeLayout>("RopeLayout").value("Interleaved", RopeLayout::Interleaved).value("Half", RopeLayout::Half);
  enum_<AlibiSlopes>("AlibiSlopes")
      .value("Bloom", AlibiSlopes::Bloom)
      .value("Mpt", AlibiSlopes::Mpt)
      .value("Custom", AlibiSlopes::Custom);

  function("availableSchemes", &available_schemes);

  function("makeNoneScheme", optional_override([] { return make(NoneParams{}); }));

#ifdef RELPOS_HAS_SinusoidalAbsoluteParams
  value_object<SinusoidalAbsoluteParams>("SinusoidalAbsoluteParams")
      .field("layout", &SinusoidalAbsoluteParams::layout)
      .field("base", &SinusoidalAbsoluteParams::base);
  function("makeSinusoidalAbsoluteScheme", &make<SinusoidalAbsoluteParams>);
#endif
#ifdef RELPOS_HAS_LearnedAbsoluteParams
  value_object<LearnedAbsoluteParams>("LearnedAbsoluteParams")
      .RELPOS_TABLE_FIELD(LearnedAbsoluteParams, "table", table)
      .field("tableRows", &LearnedAbsoluteParams::table_rows);
  function("makeLearnedAbsoluteScheme", &make<LearnedAbsoluteParams>);
#endif
#ifdef RELPOS_HAS_MlpPositionParams
  value_object<MlpPositionParams>("MlpPositionParams")
      .field("featureDim", &MlpPositionParams::feature_dim)
      .field("hidden", &MlpPositionParams::hidden)
      .RELPOS_TABLE_FIELD(MlpPositionParams, "w1", w1)
      .RELPOS_TABLE_FIELD(MlpPositionParams, "b1", b1)
      .RELPOS_TABLE_FIELD(MlpPositionParams, "w2", w2)
      .RELPOS_TABLE_FIELD(MlpPositionParams, "b2", b2);
  function("makeMlpPositionScheme", &make<MlpPositionParams>);
#endif
#ifdef RELPOS_HAS_ShawParams
  value_object<ShawParams>("ShawParams")
      .field("maxDistance", &ShawParams::max_distance)
      .RELPOS_TABLE_FIELD(ShawParams, "keyTable", key_table)
      .RELPOS_TABLE_FIELD(ShawParams, "valueTable", value_table);
  function("makeShawScheme", &make<ShawParams>);
#endif
#ifdef RELPOS_HAS_BertRelativeParams
  value_object<BertRelativeParams>("BertRelativeParams")
      .field("maxPositions", &BertRelativeParams::max_positions)
      .field("keyQuery", &BertRelativeParams::key_query)
      .RELPOS_TABLE_FIELD(BertRelativeParams, "table", table);
  function("makeBertRelativeScheme", &make<BertRelativeParams>);
#endif
#ifdef RELPOS_HAS_HuangRelativeParams
  value_object<HuangRelativeParams>("HuangRelativeParams")
      .field("maxDistance", &HuangRelativeParams::max_distance)
      .RELPOS_TABLE_FIELD(HuangRelativeParams, "table", table);
  function("makeHuangRelativeScheme", &make<HuangRelativeParams>);
#endif
#ifdef RELPOS_HAS_TransformerXLParams
  value_object<TransformerXLParams>("TransformerXLParams")
      .field("dModel", &TransformerXLParams::d_model)
      .field("clampLen", &TransformerXLParams::clamp_len)
      .RELPOS_TABLE_FIELD(TransformerXLParams, "u", u)
      .RELPOS_TABLE_FIELD(TransformerXLParams, "v", v)
      .RELPOS_TABLE_FIELD(TransformerXLParams, "wKR", w_kr);
  function("makeTransformerXLScheme", &make<TransformerXLParams>);
#endif
#ifdef RELPOS_HAS_T5Params
  value_object<T5Params>("T5Params")
      .field("numBuckets", &T5Params::num_buckets)
      .field("maxDistance", &T5Params::max_distance)
      .field("bidirectional", &T5Params::bidirectional)
      .RELPOS_TABLE_FIELD(T5Params, "biasTable", bias_table);
  function("makeT5Scheme", &make<T5Params>);
#endif
#ifdef RELPOS_HAS_TupeParams
  value_object<TupeParams>("TupeParams")
      .RELPOS_TABLE_FIELD(TupeParams, "positions", positions)
      .field("tableRows", &TupeParams::table_rows)
      .field("posDim", &TupeParams::pos_dim)
      .RELPOS_TABLE_FIELD(TupeParams, "uQ", u_q)
      .RELPOS_TABLE_FIELD(TupeParams, "uK", u_k);
  function("makeTupeScheme", &make<TupeParams>);
#endif
#ifdef RELPOS_HAS_DebertaParams
  value_object<DebertaParams>("DebertaParams")
      .field("c2p", &DebertaParams::c2p)
      .field("p2c", &DebertaParams::p2c)
      .field("positionBuckets", &DebertaParams::position_buckets)
      .field("maxRelativePositions", &DebertaParams::max_relative_positions)
      .RELPOS_TABLE_FIELD(DebertaParams, "posKey", pos_key)
      .RELPOS_TABLE_FIELD(DebertaParams, "posQuery", pos_query);
  function("makeDebertaScheme", &make<DebertaParams>);
#endif
#ifdef RELPOS_HAS_RopeParams
  value_object<RopeParams>("RopeParams")
      .field("layout", &RopeParams::layout)
      .field("theta", &RopeParams::theta)
      .field("rotaryDim", &RopeParams::rotary_dim);
  function("makeRopeScheme", &make<RopeParams>);
#endif
#ifdef RELPOS_HAS_AlibiParams
  value_object<AlibiParams>("AlibiParams")
      .field("slopes", &AlibiParams::slopes)
      .field("mptBiasMax", &AlibiParams::mpt_bias_max)
      .RELPOS_TABLE_FIELD(AlibiParams, "custom", custom)
      .field("symmetric", &AlibiParams::symmetric);
  function("makeAlibiScheme", &make<AlibiParams>);
#endif
}
