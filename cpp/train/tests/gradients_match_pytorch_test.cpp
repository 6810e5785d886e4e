// Loss and every gradient of the training core match PyTorch autograd (float64) for every scheme,
// pre- and post-LN, causal and bidirectional, within 1e-4 relative: per tensor,
// max_i |g_i − g_ref,i| ≤ 1e-4 · max_i |g_ref,i| + 1e-6 · G, G = the largest |g_ref| of the whole model
// (the floor is for tensors whose exact gradient is 0 — key biases, which softmax ignores: in float
// their gradient is a cancelling sum of size ≈ 1e-8·G); loss within 1e-5 relative.
// Reference: build/train-reference/reference.json written by scripts/make-train-reference.py (Debian's
// python3-torch); the test runs the script when the file is missing and fails if it still is.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "model.h"

using namespace relpos::train;

TEST_CASE("gradients match PyTorch autograd within 1e-4 relative for every scheme", "[train][gradients][pytorch]") {
  const std::string path = std::string(RELPOS_TRAIN_REFERENCE_DIR) + "/reference.json";
  if (!std::ifstream(path)) {
    const std::string cmd = "/usr/bin/python3 " + std::string(RELPOS_SOURCE_DIR) + "/scripts/make-train-reference.py " +
                            RELPOS_TRAIN_REFERENCE_DIR + " > /dev/null";
    (void)std::system(cmd.c_str());
  }
  std::ifstream in(path);
  INFO("reference " << path << " (scripts/make-train-reference.py)");
  REQUIRE(in.good());
  nlohmann::json ref;
  in >> ref;
  const auto& cfg = ref["config"];
  REQUIRE(ref["cases"].size() == 32);
  for (const auto& k : ref["cases"]) {
    ModelConfig c;
    c.vocab = cfg["vocab"];
    c.classes = cfg["classes"];
    c.d_model = cfg["d_model"];
    c.heads = cfg["heads"];
    c.layers = cfg["layers"];
    c.ff_mult = cfg["ff_mult"];
    c.max_len = cfg["max_len"];
    c.shaw_k = cfg["shaw_k"];
    c.t5_buckets = cfg["t5_buckets"];
    c.t5_max_distance = cfg["t5_max_distance"];
    c.deberta_buckets = cfg["deberta_buckets"];
    c.deberta_max_rel = cfg["deberta_max_rel"];
    c.scheme = parse_scheme(k["scheme"].get<std::string>());
    c.pre_ln = k["pre_ln"];
    c.causal = k["causal"];
    const int B = cfg["batch"], L = cfg["len"];
    Trainer tr(c, B, L);
    const auto& layout = tr.layout();
    std::vector<float> params = k["params"].get<std::vector<float>>();
    const std::vector<double> gref = k["grads"].get<std::vector<double>>();
    REQUIRE(static_cast<long>(params.size()) == layout.total);
    REQUIRE(k["tensors"].size() == layout.tensors.size());
    Batch batch;
    batch.batch = B;
    batch.len = L;
    batch.tokens = k["tokens"].get<std::vector<std::int32_t>>();
    batch.labels = k["labels"].get<std::vector<std::int32_t>>();
    const double loss = tr.forward(params, batch);
    std::vector<float> grads;
    tr.backward(params, batch, grads);
    const std::string label = k["scheme"].get<std::string>() + (c.pre_ln ? " pre-LN" : " post-LN") +
                              (c.causal ? " causal" : " bidirectional");
    {
      INFO(label << " loss " << loss << " reference " << k["loss"].get<double>());
      CHECK(std::abs(loss - k["loss"].get<double>()) <= 1e-5 * std::abs(k["loss"].get<double>()));
    }
    double G = 0;
    for (double g : gref) G = std::max(G, std::abs(g));
    REQUIRE(G > 0);
    for (std::size_t t = 0; t < layout.tensors.size(); ++t) {
      const auto& ten = layout.tensors[t];
      REQUIRE(ten.name == k["tensors"][t].get<std::string>());
      double worst = 0, scale = 0;
      for (long i = 0; i < ten.size; ++i) {
        worst = std::max(worst, std::abs(grads[ten.offset + i] - gref[ten.offset + i]));
        scale = std::max(scale, std::abs(gref[ten.offset + i]));
      }
      INFO(label << " tensor " << ten.name << " max |error| " << worst << " max |reference| " << scale);
      CHECK(worst <= 1e-4 * scale + 1e-6 * G);
    }
  }
}
