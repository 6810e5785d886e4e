// Results are bitwise identical for 1, 2 and 3 threads: every scheme variant's attention (output,
// probabilities and terms; bidirectional and causal; more slices than threads and fewer), and every
// Hugging Face fixture model's forward (hidden states and attentions). In single-thread builds
// set_num_threads reports 1 and the comparison still runs (trivially equal) — the threaded builds
// (native, relpos-simd-threads) are the ones this proves. Also: the thread-count API's contract.
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "fixture_files.h"
#include "hf_fixture_support.h"
#include "relpos/model.h"
#include "relpos/safetensors.h"
#include "relpos/threads.h"
#include "test_support.h"

namespace {

bool bitwise_equal(const std::vector<float>& a, const std::vector<float>& b) {
  // memcmp of an empty vector's data() (null) is undefined behaviour (UBSan): compare sizes first
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

// Restores the suite's thread count when a test ends.
struct ThreadCountGuard {
  int saved = relpos::num_threads();
  ~ThreadCountGuard() { relpos::set_num_threads(saved); }
};

}  // namespace

TEST_CASE("attention results are bitwise identical for 1, 2 and 3 threads, every scheme", "[threads]") {
  ThreadCountGuard guard;
  REQUIRE(!ts::registry().empty());
  for (const ts::Variant& v : ts::registry()) {
    for (bool causal : {false, true}) {
      for (const relpos::AttentionDims dims : {relpos::AttentionDims{2, 3, 45, 16}, relpos::AttentionDims{1, 1, 70, 8}}) {
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
  for (const char* name : {"bert-absolute", "bert-relative-key-query", "deberta-v2-b-v3like", "distilbert-sinusoidal",
                           "roformer-rotary", "t5-b-v1_1-gated-gelu", "bloom-alibi", "mpt-alibi", "llama-rope",
                           "transfo-xl"}) {
    INFO("fixture " << name);
    const std::string dir = relpos_test::fixture_dir(name);
    const relpos_test::FixtureBatch batch = relpos_test::read_fixture_batch(dir);
    const auto weights = relpos::SafeTensors::read_file(dir + "model.safetensors");
    auto model = relpos::load_model(relpos_test::read_text(dir + "config.json"), weights);
    relpos::ForwardOptions options;
    options.output_hidden_states = true;
    options.output_attentions = true;
    std::vector<relpos::ModelOutput> outs;
    for (int threads : {1, 2, 3}) {
      relpos::set_num_threads(threads);
      outs.push_back(model->forward(batch.B, batch.L, batch.ids.data(), batch.mask.data(), options));
    }
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
