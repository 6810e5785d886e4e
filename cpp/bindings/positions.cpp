// Embind: the position tables and index maps of relpos/positions.h. Tables come back as fresh JS
// typed arrays (copies the caller owns); failures come back as JS Error objects (common.h).
//
// A function is bound only when the library defines it: cmake/wasm_package.cmake scans cpp/src
// and sets RELPOS_HAS_<function>. availablePositions() lists what this build offers.
#include <emscripten/bind.h>

#include "common.h"
#include "relpos/positions.h"

namespace relpos::bindings {
namespace {

using namespace emscripten;

val available_positions() {
  val out = val::array();
  auto add = [&](const char* name) { out.call<void>("push", std::string(name)); };
#ifdef RELPOS_HAS_sinusoid_table
  add("sinusoidTable");
#endif
#ifdef RELPOS_HAS_sinusoid_row
  add("sinusoidRow");
#endif
#ifdef RELPOS_HAS_shaw_index_table
  add("shawIndexTable");
#endif
#ifdef RELPOS_HAS_bert_relative_index_table
  add("bertRelativeIndexTable");
#endif
#ifdef RELPOS_HAS_t5_relative_bucket
  add("t5RelativeBucket");
#endif
#ifdef RELPOS_HAS_t5_bucket_table
  add("t5BucketTable");
#endif
#ifdef RELPOS_HAS_deberta_relative_position
  add("debertaRelativePosition");
#endif
#ifdef RELPOS_HAS_deberta_relative_table
  add("debertaRelativeTable");
#endif
#ifdef RELPOS_HAS_deberta_span
  add("debertaSpan");
#endif
#ifdef RELPOS_HAS_alibi_slopes
  add("alibiSlopes");
#endif
#ifdef RELPOS_HAS_rope_tables
  add("ropeTables");
#endif
  return out;
}

}  // namespace
}  // namespace relpos::bindings

EMSCRIPTEN_BINDINGS(relpos_positions) {
  using namespace emscripten;
  using namespace relpos;
  using namespace relpos::bindings;

  function("availablePositions", &available_positions);

#ifdef RELPOS_HAS_sinusoid_table
  function("sinusoidTable", optional_override([](int length, int dim, SinusoidLayout layout, float base,
                                                 float first_position) {
             return guarded([&] { return to_js(sinusoid_table(length, dim, layout, base, first_position)); });
           }));
#endif
#ifdef RELPOS_HAS_sinusoid_row
  function("sinusoidRow", optional_override([](float position, int dim, SinusoidLayout layout, float base) {
             return guarded([&] {
               if (dim < 2 || dim % 2 != 0)
                 fail_range("sinusoid_row: dim must be a positive even integer, got " + std::to_string(dim));
               std::vector<float> row(static_cast<std::size_t>(dim));
               sinusoid_row(position, dim, layout, base, row.data());
               return to_js(row);
             });
           }));
#endif
#ifdef RELPOS_HAS_shaw_index_table
  function("shawIndexTable", optional_override([](int seq, int max_distance) {
             return guarded([&] { return to_js(shaw_index_table(seq, max_distance)); });
           }));
#endif
#ifdef RELPOS_HAS_bert_relative_index_table
  function("bertRelativeIndexTable", optional_override([](int seq, int max_positions) {
             return guarded([&] { return to_js(bert_relative_index_table(seq, max_positions)); });
           }));
#endif
#ifdef RELPOS_HAS_t5_relative_bucket
  function("t5RelativeBucket",
           optional_override([](int relative_position, bool bidirectional, int num_buckets, int max_distance) {
             return guarded(
                 [&] { return val(t5_relative_bucket(relative_position, bidirectional, num_buckets, max_distance)); });
           }));
#endif
#ifdef RELPOS_HAS_t5_bucket_table
  function("t5BucketTable", optional_override([](int seq, bool bidirectional, int num_buckets, int max_distance) {
             return guarded([&] { return to_js(t5_bucket_table(seq, bidirectional, num_buckets, max_distance)); });
           }));
#endif
#ifdef RELPOS_HAS_deberta_relative_position
  function("debertaRelativePosition", optional_override([](int relative_position, int buckets, int max_relative) {
             return guarded([&] { return val(deberta_relative_position(relative_position, buckets, max_relative)); });
           }));
#endif
#ifdef RELPOS_HAS_deberta_relative_table
  function("debertaRelativeTable", optional_override([](int seq, int buckets, int max_relative) {
             return guarded([&] { return to_js(deberta_relative_table(seq, buckets, max_relative)); });
           }));
#endif
#ifdef RELPOS_HAS_deberta_span
  function("debertaSpan", optional_override([](int buckets, int max_relative) {
             return guarded([&] { return val(deberta_span(buckets, max_relative)); });
           }));
#endif
#ifdef RELPOS_HAS_alibi_slopes
  function("alibiSlopes", optional_override([](int heads, AlibiSlopes rule, float mpt_bias_max) {
             return guarded([&] { return to_js(alibi_slopes(heads, rule, mpt_bias_max)); });
           }));
#endif
#ifdef RELPOS_HAS_rope_tables
  function("ropeTables", optional_override([](int length, int rotary_dim, RopeLayout layout, float theta) {
             return guarded([&] {
               std::vector<float> cos_table, sin_table;
               rope_tables(length, rotary_dim, layout, theta, cos_table, sin_table);
               val out = val::object();
               out.set("cos", to_js(cos_table));
               out.set("sin", to_js(sin_table));
               return out;
             });
           }));
#endif
}
