// DeBERTa disentangled attention (schemes.h 11) against the reference: c2p + p2c, c2p only, p2c only,
// log buckets and plain clamped distances.
#include "reference/deberta.h"
#include "test_support.h"

namespace {

ts::CaseFactory deberta(bool c2p, bool p2c, int buckets, int max_rel) {
  return [=](ts::SchemeCase& c, const relpos::AttentionDims& d, unsigned seed) {
    relpos::DebertaParams p;
    p.c2p = c2p;
    p.p2c = p2c;
    p.position_buckets = buckets;
    p.max_relative_positions = max_rel;
    const int span = buckets > 0 ? buckets : max_rel;
    const std::size_t n = static_cast<std::size_t>(d.heads) * 2 * span * d.head_dim;
    p.pos_key = c2p ? c.table(n, seed, 1.0f) : nullptr;
    p.pos_query = p2c ? c.table(n, seed + 1, 1.0f) : nullptr;
    c.kernel = relpos::make_scheme(p);
    c.reference = std::make_unique<ref::Deberta>(c2p, p2c, buckets, max_rel, p.pos_key, p.pos_query);
  };
}

const bool registered = ts::register_variants({
    {"deberta", "c2p + p2c, buckets 256, max 512", deberta(true, true, 256, 512)},
    {"deberta", "c2p + p2c, buckets 8, max 32", deberta(true, true, 8, 32)},
    {"deberta", "c2p only, buckets 16, max 128", deberta(true, false, 16, 128)},
    {"deberta", "p2c only, buckets 16, max 128", deberta(false, true, 16, 128)},
    {"deberta", "c2p + p2c, no buckets, max 16", deberta(true, true, -1, 16)},
    {"deberta", "p2c only, no buckets, max 16", deberta(false, true, 0, 16)},
    // log buckets that jump 12 rows at |δ| = 129: the gathers fall back from quads to runs
    {"deberta", "c2p + p2c, buckets 256, max 140", deberta(true, true, 256, 140)},
});

const bool invalid = ts::register_invalid({
    {"deberta: c2p without pos_key", relpos::ErrorKind::Value, {"pos_key"},
     [] {
       std::vector<float> w(2 * 2 * 32 * 16, 0.1f);
       relpos::DebertaParams p;
       p.position_buckets = 16;
       p.pos_query = w.data();
       ts::call_attention(*relpos::make_scheme(p), {1, 2, 4, 16});
     }},
    {"deberta: p2c without pos_query", relpos::ErrorKind::Value, {"pos_query"},
     [] {
       std::vector<float> w(2 * 2 * 32 * 16, 0.1f);
       relpos::DebertaParams p;
       p.position_buckets = 16;
       p.pos_key = w.data();
       ts::call_attention(*relpos::make_scheme(p), {1, 2, 4, 16});
     }},
});

}  // namespace

TEST_CASE("DeBERTa matches the reference, c2p and p2c with log buckets", "[deberta][reference]") {
  ts::check_matches_reference("deberta", "c2p + p2c, buckets 256, max 512", ts::covering_grid());
  ts::check_matches_reference("deberta", "c2p + p2c, buckets 8, max 32", ts::small_grid());
  ts::check_matches_reference("deberta", "c2p + p2c, buckets 8, max 32", {{1000, 8, 3, false}});
  ts::check_matches_reference("deberta", "c2p + p2c, buckets 256, max 140", {{300, 16, 2, false}, {300, 16, 1, true}});
}

TEST_CASE("DeBERTa matches the reference with c2p only and p2c only", "[deberta][reference]") {
  ts::check_matches_reference("deberta", "c2p only, buckets 16, max 128", ts::small_grid());
  ts::check_matches_reference("deberta", "p2c only, buckets 16, max 128", ts::small_grid());
  ts::check_matches_reference("deberta", "p2c only, no buckets, max 16", ts::small_grid());
}

TEST_CASE("DeBERTa matches the reference without log buckets", "[deberta][reference]") {
  ts::check_matches_reference("deberta", "c2p + p2c, no buckets, max 16", ts::small_grid());
  ts::check_matches_reference("deberta", "c2p + p2c, no buckets, max 16", ts::small_grid(true));
}

TEST_CASE("DeBERTa log buckets of the reference follow make_log_bucket_position", "[deberta][reference]") {
  // bucket_size 8, max_position 32: |r| ≤ 4 unchanged; beyond: ceil(log(|r|/4)/log(31/4)·3) + 4.
  CHECK(ref::deberta_bucket(0, 8, 32) == 0);
  CHECK(ref::deberta_bucket(4, 8, 32) == 4);
  CHECK(ref::deberta_bucket(-4, 8, 32) == -4);
  CHECK(ref::deberta_bucket(5, 8, 32) == 5);     // ceil(0.109·3 = 0.33) + 4
  CHECK(ref::deberta_bucket(31, 8, 32) == 7);    // ceil(3.0) + 4 (exactly 3 in float32)
  CHECK(ref::deberta_bucket(-100, 8, 32) == -9);  // ceil(1.558·3 = 4.67) + 4
  CHECK(ref::deberta_bucket(37, -1, 16) == 37);  // no bucketing: plain distance
}
