// Qwen3 (qwen3) and bidirectional Gemma3 (gemma3_text) against ../shared/fixtures/hf-llm-embedders, from unmodified
// transformers files at upstream 948bc0fa (README there): on the valid positions of each row (the LAST n columns
// for left padding, the first n for right padding, so both layouts go through one comparison):
//   - hidden_states.0 … n (hidden_states.n = the final-norm output) and last_hidden_state ≤ 1e-4, attention
//     probabilities ≤ 1e-5 (query and key both real), in every layer;
//   - Qwen3-Embedding's pooled embedding (aux.last_token_pooled: the last real token's row) ≤ 1e-4;
//   - Qwen3ForCausalLM (qwen3-reranker, tied lm_head): logits at the last position of each row ≤ 1e-4, and the
//     reranker score softmax(logit[no], logit[yes])[yes] ≤ 1e-5;
//   - Gemma3's sliding layers give exactly 0 to keys with |i − j| > sliding_window // 2;
//   - q8 weights stay close to fp32 (max |Δ| / max |fp32| ≤ 0.15, cosine of the pooled rows ≥ 0.999, fewer bytes);
//   - outputs are bitwise identical for 1, 2 and 3 threads;
//   - configs the families cannot run are refused with an Error naming the field (layer_types of the wrong length or
//     with an unknown kind, rope_scaling, head_dim that does not match the weights, missing q/k norms).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "fixture_files.h"
#include "hf_fixture_support.h"
#include "relpos/error.h"
#include "relpos/heads.h"
#include "relpos/model.h"
#include "relpos/safetensors.h"
#include "relpos/threads.h"
#include "test_support.h"

namespace {

using nlohmann::json;
using relpos_test::read_text;

std::string case_dir(const std::string& name) {
  return std::string(RELPOS_SHARED_DIR) + "/fixtures/hf-llm-embedders/" + name + "/";
}

const std::vector<std::string> kCases = {"qwen3-embed-right", "qwen3-embed-left", "qwen3-reranker",
                                         "gemma3-bidir-a",    "gemma3-bidir-b",   "gemma3-st-embed"};

std::string with(const std::string& config, const json& changes) {
  json j = json::parse(config);
  for (auto it = changes.begin(); it != changes.end(); ++it) {
    if (it.value().is_null()) j.erase(it.key());
    else j[it.key()] = it.value();
  }
  return j.dump();
}

struct Case {
  std::string dir, config;
  relpos_test::FixtureBatch batch;
  bool left = false;
  // valid(b, l): the token at column l of row b is real
  bool valid(int b, int l) const { return batch.mask[static_cast<std::size_t>(b) * batch.L + l] != 0; }
  int last_real(int b) const { return left ? batch.L - 1 : batch.lengths[b] - 1; }
};

Case read_case(const std::string& name) {
  Case c;
  c.dir = case_dir(name);
  c.config = read_text(c.dir + "config.json");
  c.batch = relpos_test::read_fixture_batch(c.dir);
  c.left = relpos_test::read_json(c.dir + "input.json").value("padding_side", "right") == "left";
  return c;
}

relpos::ModelOutput run(relpos::Model& m, const Case& c, bool everything = true) {
  relpos::ForwardOptions o;
  o.output_hidden_states = everything;
  o.output_attentions = everything;
  return m.forward(c.batch.B, c.batch.L, c.batch.ids.data(), c.batch.mask.data(), o);
}

// Max |a − e| over the real tokens of a [B, L, W] tensor.
double hidden_error(const Case& c, const relpos::Tensor& a, const std::vector<float>& e) {
  REQUIRE(a.data.size() == e.size());
  const int W = a.shape[2];
  double worst = 0;
  for (int b = 0; b < c.batch.B; ++b)
    for (int l = 0; l < c.batch.L; ++l)
      if (c.valid(b, l))
        for (int k = 0; k < W; ++k) {
          const std::size_t i = (static_cast<std::size_t>(b) * c.batch.L + l) * W + k;
          const double d = std::fabs(static_cast<double>(a.data[i]) - e[i]);
          worst = std::isnan(d) ? 1e30 : std::max(worst, d);
        }
  return worst;
}

// Max |a − e| over [b, h, i, j] with query i and key j real.
double probs_error(const Case& c, const relpos::Tensor& a, const std::vector<float>& e) {
  REQUIRE(a.data.size() == e.size());
  const int heads = a.shape[1], L = c.batch.L;
  double worst = 0;
  for (int b = 0; b < c.batch.B; ++b)
    for (int h = 0; h < heads; ++h)
      for (int i = 0; i < L; ++i)
        for (int j = 0; j < L; ++j)
          if (c.valid(b, i) && c.valid(b, j)) {
            const std::size_t k = ((static_cast<std::size_t>(b) * heads + h) * L + i) * L + j;
            const double d = std::fabs(static_cast<double>(a.data[k]) - e[k]);
            worst = std::isnan(d) ? 1e30 : std::max(worst, d);
          }
  return worst;
}

std::vector<float> last_rows(const Case& c, const relpos::Tensor& h) {
  const int W = h.shape[2];
  std::vector<float> out;
  for (int b = 0; b < c.batch.B; ++b) {
    const float* row = h.data.data() + (static_cast<std::size_t>(b) * c.batch.L + c.last_real(b)) * W;
    out.insert(out.end(), row, row + W);
  }
  return out;
}

double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  REQUIRE(a.size() == b.size());
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double d = std::fabs(static_cast<double>(a[i]) - b[i]);
    worst = std::isnan(d) ? 1e30 : std::max(worst, d);
  }
  return worst;
}

}  // namespace

TEST_CASE("qwen3 and gemma3_text match transformers on every hidden state and attention map", "[hf-llm][qwen3][gemma3]") {
  for (const std::string& name : kCases) {
    SECTION(name) {
      const Case c = read_case(name);
      const auto weights = relpos::SafeTensors::read_file(c.dir + "model.safetensors");
      const auto expected = relpos::SafeTensors::read_file(c.dir + "expected.safetensors");
      auto model = relpos::load_model(c.config, weights);
      const auto out = run(*model, c);
      const int layers = model->config().num_layers;
      REQUIRE(static_cast<int>(out.hidden_states.size()) == layers + 1);
      REQUIRE(static_cast<int>(out.attentions.size()) == layers);
      double hidden = 0, attention = 0;
      for (int i = 0; i <= layers; ++i) {
        const double e = hidden_error(c, out.hidden_states[i], expected.to_f32("hidden_states." + std::to_string(i)));
        INFO(name << " hidden_states." << i << " max abs error " << e);
        CHECK(e <= 1e-4);
        hidden = std::max(hidden, e);
      }
      const double last = hidden_error(c, out.last_hidden_state, expected.to_f32("last_hidden_state"));
      INFO(name << " last_hidden_state max abs error " << last);
      CHECK(last <= 1e-4);
      for (int i = 0; i < layers; ++i) {
        const double e = probs_error(c, out.attentions[i], expected.to_f32("attentions." + std::to_string(i)));
        INFO(name << " attentions." << i << " max abs error " << e);
        CHECK(e <= 1e-5);
        attention = std::max(attention, e);
      }
      if (expected.contains("aux.last_token_pooled")) {
        const double e = max_abs_diff(last_rows(c, out.last_hidden_state), expected.to_f32("aux.last_token_pooled"));
        INFO(name << " last-token pooled max abs error " << e);
        CHECK(e <= 1e-4);
      }
      if (expected.contains("aux.layer_is_sliding")) {
        // sliding layers: exactly 0 outside |i − j| ≤ sliding_window // 2 (bidirectional rule)
        const auto sliding = expected.to_i64("aux.layer_is_sliding");
        const int half = static_cast<int>(expected.to_i64("aux.sliding_window_effective")[0]) - 1;
        CHECK(half == json::parse(c.config).at("sliding_window").get<int>() / 2);
        int outside = 0;
        for (int i = 0; i < layers; ++i) {
          if (!sliding[i]) continue;
          const auto& p = out.attentions[i];
          const int heads = p.shape[1], L = c.batch.L;
          for (int b = 0; b < c.batch.B; ++b)
            for (int h = 0; h < heads; ++h)
              for (int q = 0; q < L; ++q)
                for (int k = 0; k < L; ++k)
                  if (c.valid(b, q) && std::abs(q - k) > half &&
                      p.data[((static_cast<std::size_t>(b) * heads + h) * L + q) * L + k] != 0.0f)
                    ++outside;
        }
        CHECK(outside == 0);
      }
      std::printf("[hf-llm-embedders %s] %-18s hidden max err %.3g, attention max err %.3g\n", RELPOS_VARIANT,
                  name.c_str(), std::max(hidden, last), attention);
    }
  }
}

TEST_CASE("qwen3 causal-LM head: the reranker's last-token logits and yes/no score match transformers", "[hf-llm][qwen3][heads]") {
  const Case c = read_case("qwen3-reranker");
  const auto weights = relpos::SafeTensors::read_file(c.dir + "model.safetensors");
  const auto expected = relpos::SafeTensors::read_file(c.dir + "expected.safetensors");
  const json input = relpos_test::read_json(c.dir + "input.json");
  const int yes = input.at("reranker_yes_token_id").get<int>(), no = input.at("reranker_no_token_id").get<int>();
  for (relpos::WeightFormat dtype : {relpos::WeightFormat::F32, relpos::WeightFormat::Q8}) {
    relpos::LoadOptions options;
    options.dtype = dtype;
    auto model = relpos::load_model(c.config, weights, options);
    auto head = relpos::load_task_head(c.config, *model, weights, options);
    REQUIRE(head);
    CHECK(head->task() == relpos::HeadTask::CausalLM);
    CHECK(std::string(relpos::head_task_name(head->task())) == "text-generation");
    CHECK(head->outputs() == 100);
    CHECK(head->weight_bytes() == 0);  // tied: reads embed_tokens in place
    const auto out = run(*model, c, false);
    std::vector<int> positions;
    for (int b = 0; b < c.batch.B; ++b) positions.push_back(b * c.batch.L + c.last_real(b));
    const auto logits = head->logits(out, positions);
    REQUIRE(logits.size() == positions.size() * 100);
    const auto ref = expected.to_f32("logits_last");
    const auto score = expected.to_f32("aux.reranker_score");
    const bool fp32 = dtype == relpos::WeightFormat::F32;
    double scale = 1;
    for (float r : ref) scale = std::max(scale, static_cast<double>(std::fabs(r)));
    const double err = max_abs_diff(logits, ref) / (fp32 ? 1.0 : scale);
    INFO(relpos::weight_format_name(dtype) << " logits max error " << err);
    CHECK(err <= (fp32 ? 1e-4 : 0.05));
    for (int b = 0; b < c.batch.B; ++b) {
      const double ly = logits[static_cast<std::size_t>(b) * 100 + yes], ln = logits[static_cast<std::size_t>(b) * 100 + no];
      const double s = 1.0 / (1.0 + std::exp(ln - ly));
      INFO(relpos::weight_format_name(dtype) << " row " << b << " score " << s << " vs " << score[b]);
      CHECK(std::fabs(s - score[b]) <= (fp32 ? 1e-5 : 0.03));
    }
    CHECK_THROWS_WITH(head->logits(out, {c.batch.B * c.batch.L}), Catch::Contains("outside"));
  }
  // untied: lm_head.weight is required and named when missing
  const std::string untied = with(c.config, {{"tie_word_embeddings", false}});
  auto model = relpos::load_model(untied, weights);
  CHECK_THROWS_WITH(relpos::load_task_head(untied, *model, weights), Catch::Contains("lm_head.weight"));
}

TEST_CASE("qwen3 and gemma3_text q8 weights stay close to fp32", "[hf-llm][q8]") {
  for (const std::string& name : kCases) {
    const Case c = read_case(name);
    const auto weights = relpos::SafeTensors::read_file(c.dir + "model.safetensors");
    auto ref = relpos::load_model(c.config, weights);
    relpos::LoadOptions options;
    options.dtype = relpos::WeightFormat::Q8;
    auto quant = relpos::load_model(c.config, weights, options);
    const auto r = run(*ref, c, false), q = run(*quant, c, false);
    double max_abs = 0, ref_max = 0;
    const int H = r.last_hidden_state.shape[2];
    for (int b = 0; b < c.batch.B; ++b)
      for (int l = 0; l < c.batch.L; ++l)
        if (c.valid(b, l))
          for (int k = 0; k < H; ++k) {
            const std::size_t i = (static_cast<std::size_t>(b) * c.batch.L + l) * H + k;
            max_abs = std::max(max_abs, std::fabs(static_cast<double>(r.last_hidden_state.data[i]) - q.last_hidden_state.data[i]));
            ref_max = std::max(ref_max, std::fabs(static_cast<double>(r.last_hidden_state.data[i])));
          }
    double min_cos = 1;
    const auto rr = last_rows(c, r.last_hidden_state), qq = last_rows(c, q.last_hidden_state);
    for (int b = 0; b < c.batch.B; ++b) {
      double dot = 0, nr = 0, nq = 0;
      for (int k = 0; k < H; ++k) {
        const double x = rr[static_cast<std::size_t>(b) * H + k], y = qq[static_cast<std::size_t>(b) * H + k];
        dot += x * y;
        nr += x * x;
        nq += y * y;
      }
      min_cos = std::min(min_cos, dot / std::sqrt(nr * nq));
    }
    std::printf("[q8-accuracy %s] %-18s max abs %.3g, rel %.3g, min cosine %.6f\n", RELPOS_VARIANT, name.c_str(), max_abs,
                max_abs / ref_max, min_cos);
    INFO(name);
    CHECK(max_abs / ref_max <= 0.15);
    CHECK(min_cos >= 0.999);
    CHECK(quant->weight_bytes() < ref->weight_bytes());
  }
}

TEST_CASE("qwen3 and gemma3_text results are bitwise identical for 1, 2 and 3 threads", "[hf-llm][threads]") {
  ts::ThreadCountGuard guard;
  for (const std::string& name : {std::string("qwen3-embed-left"), std::string("gemma3-bidir-b")}) {
    const Case c = read_case(name);
    const auto weights = relpos::SafeTensors::read_file(c.dir + "model.safetensors");
    auto model = relpos::load_model(c.config, weights);
    std::vector<relpos::ModelOutput> outs;
    for (int threads : {1, 2, 3}) {
      relpos::set_num_threads(threads);
      outs.push_back(run(*model, c));
    }
    for (std::size_t t = 1; t < outs.size(); ++t) {
      INFO(name << " threads " << t + 1 << " vs 1");
      CHECK(ts::bitwise_equal(outs[t].last_hidden_state.data, outs[0].last_hidden_state.data));
      for (std::size_t i = 0; i < outs[0].attentions.size(); ++i)
        CHECK(ts::bitwise_equal(outs[t].attentions[i].data, outs[0].attentions[i].data));
    }
  }
}

TEST_CASE("qwen3 and gemma3_text refuse configs and checkpoints they cannot run, naming the field", "[hf-llm][errors]") {
  const Case q = read_case("qwen3-embed-right"), g = read_case("gemma3-bidir-a");
  const auto qw = relpos::SafeTensors::read_file(q.dir + "model.safetensors");
  const auto gw = relpos::SafeTensors::read_file(g.dir + "model.safetensors");
  auto refuses = [](const std::string& config, const relpos::Weights& w, const std::string& words) {
    INFO(words);
    CHECK_THROWS_WITH(relpos::load_model(config, w), Catch::Contains(words));
  };
  refuses(with(g.config, {{"layer_types", {"sliding_attention", "full_attention"}}}), gw, "layer_types");
  refuses(with(g.config, {{"layer_types", {"sliding_attention", "chunked_attention", "sliding_attention"}}}), gw,
          "'full_attention' or 'sliding_attention'");
  refuses(with(q.config, {{"layer_types", {"full_attention", "sliding_attention"}}}), qw, "sliding_window");
  refuses(with(q.config, {{"rope_scaling", {{"rope_type", "yarn"}, {"factor", 4.0}}}}), qw, "rope_scaling");
  refuses(with(g.config, {{"rope_scaling", {{"rope_type", "linear"}, {"factor", 8.0}}}}), gw, "YaRN");
  refuses(with(q.config, {{"head_dim", 8}}), qw, "q_proj.weight");
  refuses(with(g.config, {{"num_key_value_heads", 3}}), gw, "num_key_value_heads");
  refuses(with(g.config, {{"query_pre_attn_scalar", 0}}), gw, "query_pre_attn_scalar");
  refuses(with(q.config, {{"hidden_act", "swish_v2"}}), qw, "swish_v2");

  // a checkpoint without its q/k norms (a LLaMA-style export relabelled qwen3): the missing tensor is named
  class Without final : public relpos::Weights {
   public:
    Without(const relpos::Weights& inner, std::string drop) : inner_(inner), drop_(std::move(drop)) {}
    bool contains(const std::string& n) const override { return n != drop_ && inner_.contains(n); }
    const relpos::TensorInfo& info(const std::string& n) const override {
      if (n == drop_) throw relpos::Error(relpos::ErrorKind::Value, file_name() + ": no tensor named '" + n + "'");
      return inner_.info(n);
    }
    std::vector<std::string> names() const override { return inner_.names(); }
    std::vector<float> to_f32(const std::string& n) const override { return inner_.to_f32(n); }
    std::vector<std::int64_t> to_i64(const std::string& n) const override { return inner_.to_i64(n); }
    const std::string& file_name() const override { return inner_.file_name(); }

   private:
    const relpos::Weights& inner_;
    std::string drop_;
  };
  const std::string qn = qw.contains("layers.0.self_attn.q_norm.weight") ? "layers.0.self_attn.q_norm.weight"
                                                                         : "model.layers.0.self_attn.q_norm.weight";
  refuses(q.config, Without(qw, qn), "q_norm.weight");
  const std::string kn = gw.contains("layers.1.self_attn.k_norm.weight") ? "layers.1.self_attn.k_norm.weight"
                                                                         : "model.layers.1.self_attn.k_norm.weight";
  refuses(g.config, Without(gw, kn), "k_norm.weight");
}

TEST_CASE("gemma3_text without layer_types derives them from sliding_window_pattern; causal when not bidirectional",
          "[hf-llm][gemma3]") {
  const Case g = read_case("gemma3-st-embed");  // layers SSSSSF = the default pattern 6
  const auto w = relpos::SafeTensors::read_file(g.dir + "model.safetensors");
  auto last = [&](const std::string& config) {
    auto m = relpos::load_model(config, w);
    return run(*m, g, false).last_hidden_state.data;
  };
  const auto base = last(g.config);
  CHECK(ts::bitwise_equal(last(with(g.config, {{"layer_types", nullptr}})), base));
  CHECK(!ts::bitwise_equal(last(with(g.config, {{"layer_types", nullptr}, {"_sliding_window_pattern", 2}})), base));
  // causal Gemma3 (Gemma3TextModel with use_bidirectional_attention false): row 0 sees only itself
  auto m = relpos::load_model(with(g.config, {{"use_bidirectional_attention", false}}), w);
  const auto out = run(*m, g);
  const auto& p = out.attentions[0];
  const int L = g.batch.L;
  for (int j = 1; j < L; ++j) CHECK(p.data[j] == 0.0f);
  CHECK(p.data[0] == Approx(1.0f));
  CHECK(!ts::bitwise_equal(out.last_hidden_state.data, base));
}
