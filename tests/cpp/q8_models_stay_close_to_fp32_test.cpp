// Every Hugging Face fixture and every end-to-end bench model loaded with LoadOptions::dtype = Q8
// stays close to the same checkpoint loaded as float32, on valid (unpadded) positions:
//   last hidden state: max |q8 − fp32| / max |fp32| ≤ 0.15 on the fixtures (hidden 32), ≤ 0.01 on the bench models;
//   mean-pooled embeddings (per sequence): cosine similarity ≥ 0.999;
//   sequence classification (BERT, DeBERTa-v2, DistilBERT, RoFormer, MPNet; a random 3-label head added to
//   the checkpoint): the arg-max label of every sequence is the same;
//   weight bytes: q8 ≤ 0.27× fp32 for the bench models (int8 + scales: linear layers, word embeddings, BERT
//   positions), DeBERTa ≤ 0.40 (its projected relative tables stay float32).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "fixture_files.h"
#include "hf_family_fixture_support.h"
#include "relpos/heads.h"
#include "relpos/model.h"
#include "relpos/safetensors.h"
#include "test_support.h"

namespace {

using relpos_test::read_text;

// A checkpoint plus extra float32 tensors (the random classification head).
class WithExtras final : public relpos::Weights {
 public:
  explicit WithExtras(const relpos::Weights& inner) : inner_(inner) {}
  void add(const std::string& name, std::vector<std::int64_t> shape, unsigned seed) {
    relpos::TensorInfo info;
    info.name = name;
    info.shape = shape;
    std::size_t n = 1;
    for (auto d : shape) n *= static_cast<std::size_t>(d);
    info.nbytes = n * 4;
    infos_[name] = info;
    values_[name] = ts::random_vector(n, seed, 0.3f);
  }
  bool contains(const std::string& name) const override { return infos_.count(name) || inner_.contains(name); }
  const relpos::TensorInfo& info(const std::string& name) const override {
    auto it = infos_.find(name);
    return it != infos_.end() ? it->second : inner_.info(name);
  }
  std::vector<std::string> names() const override {
    auto out = inner_.names();
    for (const auto& kv : infos_) out.push_back(kv.first);
    return out;
  }
  std::vector<float> to_f32(const std::string& name) const override {
    auto it = values_.find(name);
    return it != values_.end() ? it->second : inner_.to_f32(name);
  }
  std::vector<std::int64_t> to_i64(const std::string& name) const override { return inner_.to_i64(name); }
  const std::string& file_name() const override { return inner_.file_name(); }

 private:
  const relpos::Weights& inner_;
  std::map<std::string, relpos::TensorInfo> infos_;
  std::map<std::string, std::vector<float>> values_;
};

struct Input {
  int B = 0, L = 0;
  std::vector<std::int32_t> ids, mask;
  std::vector<int> lengths;
};

Input read_input(const std::string& path) {
  const auto j = relpos_test::read_json(path);
  const auto ids2 = j.at("input_ids").get<std::vector<std::vector<int>>>();
  const auto mask2 = j.at("attention_mask").get<std::vector<std::vector<int>>>();
  Input in;
  in.B = static_cast<int>(ids2.size());
  in.L = static_cast<int>(ids2[0].size());
  for (int b = 0; b < in.B; ++b) {
    int n = 0;
    for (int l = 0; l < in.L; ++l) {
      in.ids.push_back(ids2[b][l]);
      in.mask.push_back(mask2[b][l]);
      n += mask2[b][l] != 0;
    }
    in.lengths.push_back(n);
  }
  return in;
}

// Adds a random 3-label head under the family's names; false when the family has none.
bool add_head(WithExtras& w, const relpos::ModelConfig& c) {
  const std::int64_t H = c.hidden_size;
  const std::string& t = c.model_type;
  if (t == "bert") {
    if (!w.contains("pooler.dense.weight")) return false;
    w.add("classifier.weight", {3, H}, 101);
    w.add("classifier.bias", {3}, 102);
  } else if (t == "distilbert") {
    w.add("pre_classifier.weight", {H, H}, 103);
    w.add("pre_classifier.bias", {H}, 104);
    w.add("classifier.weight", {3, H}, 105);
    w.add("classifier.bias", {3}, 106);
  } else if (t == "roformer") {
    w.add("classifier.dense.weight", {H, H}, 107);
    w.add("classifier.dense.bias", {H}, 108);
    w.add("classifier.out_proj.weight", {3, H}, 109);
    w.add("classifier.out_proj.bias", {3}, 110);
  } else if (t == "mpnet") {
    w.add("classifier.dense.weight", {H, H}, 115);
    w.add("classifier.dense.bias", {H}, 116);
    w.add("classifier.out_proj.weight", {3, H}, 117);
    w.add("classifier.out_proj.bias", {3}, 118);
  } else if (t == "deberta-v2") {
    w.add("pooler.dense.weight", {H, H}, 111);
    w.add("pooler.dense.bias", {H}, 112);
    w.add("classifier.weight", {3, H}, 113);
    w.add("classifier.bias", {3}, 114);
  } else {
    return false;
  }
  return true;
}

struct Accuracy {
  double max_abs = 0, rel = 0, min_cos = 1;
  bool labels_agree = true, has_head = false;
  double bytes_ratio = 0;
};

Accuracy compare(const std::string& dir) {
  const std::string config = read_text(dir + "config.json");
  const auto file = relpos::SafeTensors::read_file(dir + "model.safetensors");
  WithExtras weights(file);
  const Input in = read_input(dir + "input.json");
  relpos::LoadOptions q8;
  q8.dtype = relpos::WeightFormat::Q8;
  auto ref = relpos::load_model(config, weights);
  auto quant = relpos::load_model(config, weights, q8);
  REQUIRE(ref->dtype() == relpos::WeightFormat::F32);
  REQUIRE(quant->dtype() == relpos::WeightFormat::Q8);
  Accuracy a;
  a.has_head = add_head(weights, ref->config());
  a.bytes_ratio = static_cast<double>(quant->weight_bytes()) / static_cast<double>(ref->weight_bytes());

  const auto r = ref->forward(in.B, in.L, in.ids.data(), in.mask.data());
  const auto q = quant->forward(in.B, in.L, in.ids.data(), in.mask.data());
  const int H = r.last_hidden_state.shape[2];
  double ref_max = 0;
  for (int b = 0; b < in.B; ++b) {
    std::vector<double> mr(H, 0.0), mq(H, 0.0);
    for (int l = 0; l < in.lengths[b]; ++l)
      for (int c = 0; c < H; ++c) {
        const std::size_t i = (static_cast<std::size_t>(b) * in.L + l) * H + c;
        const double x = r.last_hidden_state.data[i], y = q.last_hidden_state.data[i];
        a.max_abs = std::isnan(y) ? 1e30 : std::max(a.max_abs, std::fabs(x - y));
        ref_max = std::max(ref_max, std::fabs(x));
        mr[c] += x;
        mq[c] += y;
      }
    double dot = 0, nr = 0, nq = 0;
    for (int c = 0; c < H; ++c) {
      dot += mr[c] * mq[c];
      nr += mr[c] * mr[c];
      nq += mq[c] * mq[c];
    }
    a.min_cos = std::min(a.min_cos, dot / std::sqrt(nr * nq));
  }
  a.rel = a.max_abs / ref_max;

  if (a.has_head) {
    auto head_ref = relpos::load_sequence_classifier(config, ref->config(), weights);
    auto head_q8 = relpos::load_sequence_classifier(config, quant->config(), weights, q8);
    REQUIRE(head_ref);
    REQUIRE(head_q8);
    REQUIRE(head_q8->weight_bytes() < head_ref->weight_bytes());
    const auto lr = head_ref->logits(r), lq = head_q8->logits(q);
    for (int b = 0; b < in.B; ++b) {
      const auto* x = lr.data() + b * 3;
      const auto* y = lq.data() + b * 3;
      a.labels_agree = a.labels_agree && (std::max_element(x, x + 3) - x) == (std::max_element(y, y + 3) - y);
    }
  }
  std::printf("[q8-accuracy %s] %-26s max abs %.3g, rel %.3g, min cosine %.6f, labels %s, bytes %.3f of fp32\n",
              RELPOS_VARIANT, dir.substr(dir.rfind('/', dir.size() - 2) + 1).c_str(), a.max_abs, a.rel, a.min_cos,
              a.has_head ? (a.labels_agree ? "agree" : "DIFFER") : "-", a.bytes_ratio);
  return a;
}

void check_fixture(const std::string& name) {
  const Accuracy a = compare(relpos_test::fixture_dir(name));
  CHECK(a.rel <= 0.15);  // tiny random models (hidden 32): measured up to 0.104 (transfo-xl, embeddings × √d)
  CHECK(a.min_cos >= 0.999);
  CHECK(a.labels_agree);
  CHECK(a.bytes_ratio < 1.0);
}

// The hf-families cases (MPNet, …), same bounds as check_fixture.
Accuracy check_family_fixture(const std::string& name) {
  const Accuracy a = compare(relpos_test::family_fixture_dir(name));
  CHECK(a.rel <= 0.15);
  CHECK(a.min_cos >= 0.999);
  CHECK(a.labels_agree);
  CHECK(a.bytes_ratio < 1.0);
  return a;
}

void check_bench_model(const std::string& name) {
  const Accuracy a = compare(std::string(RELPOS_SHARED_DIR) + "/bench-models/" + name + "/");
  CHECK(a.rel <= 0.01);
  CHECK(a.min_cos >= 0.999);
  CHECK(a.labels_agree);
  // DeBERTa projects its relative-embedding table at load into float32 tables per layer and direction
  // ([heads, 2·span, head_dim] each, 2 × 0.75 MiB here), held in every dtype: 0.378 measured; the
  // other bench models meet 0.27.
  CHECK(a.bytes_ratio <= (name == "deberta-v3-xsmall-layer" ? 0.40 : 0.27));
}

}  // namespace

TEST_CASE("q8 fixture models stay close to fp32", "[q8][hf-fixture]") {
  for (const char* name : {"bert-absolute", "bert-relative-key", "bert-relative-key-query", "deberta-v2-a-v2like",
                           "deberta-v2-b-v3like", "deberta-v2-c-c2p-only", "distilbert-sinusoidal", "roformer-rotary",
                           "t5-a-classic", "t5-b-v1_1-gated-gelu", "transfo-xl", "bloom-alibi", "mpt-alibi", "llama-rope"}) {
    SECTION(name) { check_fixture(name); }
  }
}

TEST_CASE("q8 bench models stay close to fp32 at about a quarter of the weight bytes", "[q8][bench-model]") {
  for (const char* name : {"bert-minilm-layer", "bert-relative-key-layer", "deberta-v3-xsmall-layer", "t5-small-encoder-layer"}) {
    SECTION(name) { check_bench_model(name); }
  }
}

TEST_CASE("q8 NomicBERT fixture models stay close to fp32", "[q8][hf-family][nomic_bert]") {
  for (const char* name : {"nomic-bert-a", "nomic-bert-b"}) {
    SECTION(name) {
      const Accuracy a = compare(std::string(RELPOS_SHARED_DIR) + "/fixtures/hf-families/" + name + "/");
      CHECK(a.rel <= 0.15);
      CHECK(a.min_cos >= 0.999);
      CHECK(a.bytes_ratio < 1.0);
    }
  }
}

TEST_CASE("q8 mpnet fixture models stay close to fp32", "[q8][hf-fixture][mpnet]") {
  for (const char* name : {"mpnet-a", "mpnet-b"}) {
    SECTION(name) { CHECK(check_family_fixture(name).has_head); }
  }
}
