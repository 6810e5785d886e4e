// Results are bitwise identical for 1, 2 and 3 threads: every scheme variant's attention (output,
// probabilities and terms; bidirectional and causal; more slices than threads and fewer; below and above
// the inline threshold parallel::kMinParallelWork), and every
// Hugging Face fixture model's forward (hidden states and attentions), the same with 8-bit weights
// (LoadOptions::dtype = Q8) on the fixtures and on two bench models at 128 tokens (hidden 384 and 512:
// several row and column tiles per linear layer), and the 8-bit linear layer (both of its ways of
// splitting: output tiles under 64 rows, row blocks from 64) and its tiled product against one whole
// kernel call on odd shapes. In single-thread builds
// set_num_threads reports 1 and the comparison still runs (trivially equal) — the threaded builds
// (native, relpos-simd-threads) are the ones this proves. Also: the thread-count API's contract.
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "fixture_files.h"
#include "hf_family_fixture_support.h"
#include "hf_fixture_support.h"
#include "kernels/gemm_f32.h"
#include "kernels/gemm_qs8.h"
#include "models/layers/linear_q8.h"
#include "models/layers/parallel_rows.h"
#include "relpos/model.h"
#include "relpos/safetensors.h"
#include "relpos/threads.h"
#include "test_support.h"

using ts::bitwise_equal;
using ts::ThreadCountGuard;

namespace {

// Runs `model` on the batch with 1, 2 and 3 threads; every output must be bitwise the same.
void check_forward_ignores_thread_count(relpos::Model& model, int B, int L, const std::vector<std::int32_t>& ids,
                                        const std::vector<std::int32_t>& mask) {
  relpos::ForwardOptions options;
  options.output_hidden_states = true;
  options.output_attentions = true;
  std::vector<relpos::ModelOutput> outs;
  for (int threads : {1, 2, 3}) {
    relpos::set_num_threads(threads);
    outs.push_back(model.forward(B, L, ids.data(), mask.data(), options));
  }
  REQUIRE(ts::all_finite(outs[0].last_hidden_state.data));
  for (std::size_t r = 1; r < outs.size(); ++r) {
    INFO("threads " << r + 1 << " vs 1");
    CHECK(bitwise_equal(outs[r].last_hidden_state.data, outs[0].last_hidden_state.data));
    REQUIRE(outs[r].hidden_states.size() == outs[0].hidden_states.size());
    for (std::size_t i = 0; i < outs[0].hidden_states.size(); ++i)
      CHECK(bitwise_equal(outs[r].hidden_states[i].data, outs[0].hidden_states[i].data));
    REQUIRE(outs[r].attentions.size() == outs[0].attentions.size());
    for (std::size_t i = 0; i < outs[0].attentions.size(); ++i)
      CHECK(bitwise_equal(outs[r].attentions[i].data, outs[0].attentions[i].data));
    CHECK(bitwise_equal(outs[r].pooler_output.data, outs[0].pooler_output.data));
  }
}

const char* const kFixtures[] = {"bert-absolute", "bert-relative-key-query", "deberta-v2-b-v3like", "distilbert-sinusoidal",
                                 "roformer-rotary", "t5-b-v1_1-gated-gelu", "bloom-alibi", "mpt-alibi", "llama-rope",
                                 "transfo-xl"};

}  // namespace

TEST_CASE("attention results are bitwise identical for 1, 2 and 3 threads, every scheme", "[threads]") {
  ThreadCountGuard guard;
  REQUIRE(!ts::registry().empty());
  for (const ts::Variant& v : ts::registry()) {
    for (bool causal : {false, true}) {
      // the first two stay under parallel::kMinParallelWork (one region, run inline); 4 × 128² × 32 is above
      // it, so the pool's threads compute the slices
      for (const relpos::AttentionDims dims : {relpos::AttentionDims{2, 3, 45, 16}, relpos::AttentionDims{1, 1, 70, 8},
                                               relpos::AttentionDims{1, 4, 128, 32}}) {
        INFO(v.name() << (causal ? ", causal" : ", bidirectional") << ", batch " << dims.batch << ", heads "
                      << dims.heads << ", seq " << dims.seq);
        auto c = v.instantiate(dims, 17);
        const ts::Inputs in = ts::make_inputs(dims, 18, causal);
        std::vector<ts::KernelRun> runs;
        for (int threads : {1, 2, 3}) {
          relpos::set_num_threads(threads);
          runs.push_back(ts::run_attention(in, *c->kernel, false, false, 16));
          runs.push_back(ts::run_attention(in, *c->kernel, true, true));
        }
        REQUIRE(ts::all_finite(runs[0].output));
        for (std::size_t r = 2; r < runs.size(); ++r) {
          INFO("thread count #" << r / 2 << (r % 2 ? " with probs and terms" : " streaming"));
          const ts::KernelRun& base = runs[r % 2];
          CHECK(bitwise_equal(runs[r].output, base.output));
          CHECK(bitwise_equal(runs[r].probs, base.probs));
          REQUIRE(runs[r].terms.size() == base.terms.size());
          for (std::size_t t = 0; t < base.terms.size(); ++t) CHECK(bitwise_equal(runs[r].terms[t], base.terms[t]));
        }
      }
    }
  }
}

TEST_CASE("model forwards on the Hugging Face fixtures are bitwise identical for 1, 2 and 3 threads", "[threads][hf-fixture]") {
  ThreadCountGuard guard;
  for (const char* name : kFixtures) {
    INFO("fixture " << name);
    const std::string dir = relpos_test::fixture_dir(name);
    const relpos_test::FixtureBatch batch = relpos_test::read_fixture_batch(dir);
    const auto weights = relpos::SafeTensors::read_file(dir + "model.safetensors");
    auto model = relpos::load_model(relpos_test::read_text(dir + "config.json"), weights);
    check_forward_ignores_thread_count(*model, batch.B, batch.L, batch.ids, batch.mask);
  }
}

TEST_CASE("q8 model forwards on the Hugging Face fixtures are bitwise identical for 1, 2 and 3 threads", "[threads][hf-fixture][q8]") {
  ThreadCountGuard guard;
  relpos::LoadOptions q8;
  q8.dtype = relpos::WeightFormat::Q8;
  for (const char* name : kFixtures) {
    INFO("fixture " << name);
    const std::string dir = relpos_test::fixture_dir(name);
    const relpos_test::FixtureBatch batch = relpos_test::read_fixture_batch(dir);
    const auto weights = relpos::SafeTensors::read_file(dir + "model.safetensors");
    auto model = relpos::load_model(relpos_test::read_text(dir + "config.json"), weights, q8);
    REQUIRE(model->dtype() == relpos::WeightFormat::Q8);
    check_forward_ignores_thread_count(*model, batch.B, batch.L, batch.ids, batch.mask);
  }
}

TEST_CASE("q8 bench models at 128 tokens (many tiles per linear layer) are bitwise identical for 1, 2 and 3 threads", "[threads][q8]") {
  ThreadCountGuard guard;
  relpos::LoadOptions q8;
  q8.dtype = relpos::WeightFormat::Q8;
  for (const char* name : {"bert-minilm-layer", "t5-small-encoder-layer"}) {
    INFO("bench model " << name);
    const std::string dir = std::string(RELPOS_SHARED_DIR) + "/bench-models/" + name + "/";
    // The bench input ([1, 128]) twice, the second copy with its last 37 tokens padded: 256 rows, so
    // the 96-row tiles end inside the second sequence.
    const auto input = relpos_test::read_json(dir + "input.json");
    const auto row = input.at("input_ids").at(0).get<std::vector<std::int32_t>>();
    const int L = static_cast<int>(row.size());
    REQUIRE(L == 128);
    std::vector<std::int32_t> ids(row), mask(2 * static_cast<std::size_t>(L), 1);
    ids.insert(ids.end(), row.begin(), row.end());
    for (int l = L - 37; l < L; ++l) mask[static_cast<std::size_t>(L + l)] = 0;
    const auto weights = relpos::SafeTensors::read_file(dir + "model.safetensors");
    auto model = relpos::load_model(relpos_test::read_text(dir + "config.json"), weights, q8);
    REQUIRE(model->dtype() == relpos::WeightFormat::Q8);
    check_forward_ignores_thread_count(*model, 2, L, ids, mask);
  }
}

TEST_CASE("the tiled q8 product equals one whole gemm_qs8_packed call bitwise for 1, 2 and 3 threads", "[threads][q8]") {
  ThreadCountGuard guard;
  using namespace relpos::kernels;
  struct Shape {
    int M, N, K;
  };
  // M across 96-row tiles and not a multiple of any MR; N across 64-column tiles, ending mid-panel; K odd.
  for (const Shape sh : {Shape{131, 200, 77}, Shape{200, 384, 1536}, Shape{1, 1536, 384}, Shape{97, 65, 1}}) {
    INFO("M " << sh.M << ", N " << sh.N << ", K " << sh.K);
    const auto a = ts::random_vector(static_cast<std::size_t>(sh.M) * sh.K, 31, 2.0f);
    const auto w = ts::random_vector(static_cast<std::size_t>(sh.N) * sh.K, 32, 0.5f);
    const auto bias = ts::random_vector(static_cast<std::size_t>(sh.N), 33, 1.0f);
    std::vector<std::int8_t> packed(packed_qs8_bytes(sh.K, sh.N));
    std::vector<float> b_scales(sh.N), a_scales(sh.M);
    const int qmax = pack_qs8_nk(sh.K, sh.N, w.data(), sh.K, packed.data(), b_scales.data());
    const std::size_t ldq = qs8_row_entries(sh.K);
    std::vector<std::int16_t> aq(ldq * sh.M);
    quantize_rows_qs8(sh.M, sh.K, a.data(), sh.K, aq.data(), ldq, a_scales.data(), qmax);
    std::vector<float> whole(static_cast<std::size_t>(sh.M) * sh.N);
    gemm_qs8_packed(sh.M, sh.N, sh.K, aq.data(), ldq, a_scales.data(), packed.data(), b_scales.data(), bias.data(),
                    whole.data(), sh.N);
    REQUIRE(ts::all_finite(whole));
    for (int threads : {1, 2, 3}) {
      INFO("threads " << threads);
      relpos::set_num_threads(threads);
      std::vector<float> tiled(whole.size(), std::nanf(""));
      relpos::models::gemm_qs8_parallel(sh.M, sh.N, sh.K, aq.data(), ldq, a_scales.data(), packed.data(), b_scales.data(),
                                        bias.data(), tiled.data(), sh.N);
      CHECK(bitwise_equal(tiled, whole));
    }
  }
}

TEST_CASE("a group of fp32 products of one input in one region equals one gemm_packed_parallel each, bitwise, for 1, 2 and 3 threads", "[threads][gemm]") {
  ThreadCountGuard guard;
  using namespace relpos::kernels;
  using relpos::models::PackedGemm;
  // a layer's Q, K, V at a sentence's rows and past one 96-row tile; N across 64-column tiles, one ending mid-panel
  for (const int M : {1, 13, 47, 131}) {
    const int K = 384, Ns[] = {384, 200, 64};
    INFO("M " << M);
    const auto a = ts::random_vector(static_cast<std::size_t>(M) * K, 41, 1.0f);
    std::vector<std::vector<float>> packed(3), bias(3), separate(3);
    for (int g = 0; g < 3; ++g) {
      const auto w = ts::random_vector(static_cast<std::size_t>(Ns[g]) * K, 42 + g, 0.1f);
      packed[g].resize(packed_b_floats(K, Ns[g]));
      pack_b_nk(K, Ns[g], w.data(), K, packed[g].data());
      bias[g] = ts::random_vector(static_cast<std::size_t>(Ns[g]), 45 + g, 1.0f);
      separate[g].assign(static_cast<std::size_t>(M) * Ns[g], 0.0f);
      relpos::set_num_threads(1);
      relpos::models::gemm_packed_parallel(M, Ns[g], K, a.data(), K, packed[g].data(), separate[g].data(), Ns[g],
                                           g == 1 ? nullptr : bias[g].data());
    }
    for (int threads : {1, 2, 3}) {
      INFO("threads " << threads);
      relpos::set_num_threads(threads);
      std::vector<std::vector<float>> grouped(3);
      PackedGemm products[3];
      for (int g = 0; g < 3; ++g) {
        grouped[g].assign(separate[g].size(), std::nanf(""));
        products[g] = {Ns[g], packed[g].data(), grouped[g].data(), static_cast<std::size_t>(Ns[g]), g == 1 ? nullptr : bias[g].data()};
      }
      relpos::models::gemm_packed_parallel_group(M, K, a.data(), K, products, 3);
      for (int g = 0; g < 3; ++g) CHECK(bitwise_equal(grouped[g], separate[g]));
    }
  }
}

TEST_CASE("a q8 linear layer's forward equals one whole quantize + gemm_qs8_packed call bitwise for 1 to 16 threads", "[threads][q8]") {
  ThreadCountGuard guard;
  using namespace relpos::kernels;
  struct Shape {
    int M, N, K;
  };
  // 40 rows: quantized rows, then 96×64 output tiles; from 64 rows, in threaded builds, blocks of 32 rows ×
  // all columns or, where they leave threads idle, × column blocks, each piece quantizing its rows in its thread's
  // scratch (single-thread builds: tiles again). 96 rows on 2 threads and 128 on 16 are split in columns.
  for (const Shape sh : {Shape{40, 200, 77}, Shape{131, 200, 77}, Shape{64, 1536, 384}, Shape{131, 384, 1536},
                         Shape{96, 1152, 768}, Shape{128, 1000, 96}, Shape{160, 384, 384}}) {
    INFO("M " << sh.M << ", N " << sh.N << ", K " << sh.K);
    const auto x = ts::random_vector(static_cast<std::size_t>(sh.M) * sh.K, 41, 2.0f);
    const auto w = ts::random_vector(static_cast<std::size_t>(sh.N) * sh.K, 42, 0.5f);
    const auto bias = ts::random_vector(static_cast<std::size_t>(sh.N), 43, 1.0f);
    std::vector<std::int8_t> packed(packed_qs8_bytes(sh.K, sh.N));
    std::vector<float> b_scales(sh.N), a_scales(sh.M);
    const int qmax = pack_qs8_nk(sh.K, sh.N, w.data(), sh.K, packed.data(), b_scales.data());
    const std::size_t ldq = qs8_row_entries(sh.K);
    std::vector<std::int16_t> aq(ldq * sh.M);
    quantize_rows_qs8(sh.M, sh.K, x.data(), sh.K, aq.data(), ldq, a_scales.data(), qmax);
    std::vector<float> whole(static_cast<std::size_t>(sh.M) * sh.N);
    gemm_qs8_packed(sh.M, sh.N, sh.K, aq.data(), ldq, a_scales.data(), packed.data(), b_scales.data(), bias.data(),
                    whole.data(), sh.N);
    REQUIRE(ts::all_finite(whole));
    const relpos::models::QuantizedMatrix layer(sh.K, sh.N, w.data());
    for (int threads : {1, 2, 3, 4, 7, 16}) {
      INFO("threads " << threads);
      relpos::set_num_threads(threads);
      std::vector<float> y(whole.size(), std::nanf(""));
      layer.forward(sh.M, x.data(), y.data(), bias.data());
      CHECK(bitwise_equal(y, whole));
      layer.forward(sh.M, x.data(), y.data(), bias.data());  // again: a thread's scratch may hold a row block already
      CHECK(bitwise_equal(y, whole));
    }
  }
}

TEST_CASE("set_num_threads takes 1 to kMaxThreads and num_threads reports the count in effect", "[threads]") {
  ThreadCountGuard guard;
  CHECK(relpos::set_num_threads(2) == (relpos::threads_available() ? 2 : 1));
  CHECK(relpos::num_threads() == (relpos::threads_available() ? 2 : 1));
  CHECK(relpos::set_num_threads(1) == 1);
  CHECK(relpos::num_threads() == 1);
  for (int bad : {0, -1, relpos::kMaxThreads + 1}) {
    INFO("n = " << bad);
    try {
      relpos::set_num_threads(bad);
      FAIL("no relpos::Error thrown");
    } catch (const relpos::Error& e) {
      CHECK(e.kind() == relpos::ErrorKind::Range);
      CHECK(std::string(e.what()).find("set_num_threads") != std::string::npos);
    }
  }
  CHECK(relpos::num_threads() == 1);  // a rejected count changes nothing
}

TEST_CASE("mpnet forwards on the hf-families fixtures are bitwise identical for 1, 2 and 3 threads, fp32 and q8",
          "[threads][hf-fixture][q8][mpnet]") {
  ThreadCountGuard guard;
  relpos::LoadOptions q8;
  q8.dtype = relpos::WeightFormat::Q8;
  for (const char* name : {"mpnet-a", "mpnet-b"}) {
    INFO("fixture " << name);
    const std::string dir = relpos_test::family_fixture_dir(name);
    const relpos_test::FixtureBatch batch = relpos_test::read_fixture_batch(dir);
    const auto weights = relpos::SafeTensors::read_file(dir + "model.safetensors");
    const std::string config = relpos_test::read_text(dir + "config.json");
    auto model = relpos::load_model(config, weights);
    check_forward_ignores_thread_count(*model, batch.B, batch.L, batch.ids, batch.mask);
    auto quantized = relpos::load_model(config, weights, q8);
    REQUIRE(quantized->dtype() == relpos::WeightFormat::Q8);
    check_forward_ignores_thread_count(*quantized, batch.B, batch.L, batch.ids, batch.mask);
  }
}
