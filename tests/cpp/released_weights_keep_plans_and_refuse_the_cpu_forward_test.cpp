// plan::release_weights (a WebGPU model after its upload): the Linear layers' and embedding tables' storage is freed,
// the model still records plans of any shape with the same weights and the same q8-ness (the executor's uploaded
// copies are keyed by them), and what would read the freed values — the CPU forward, weight_values, q8_values — is a
// relpos::Error naming the reason instead of reading freed memory.
#include <catch2/catch.hpp>

#include <string>

#include "fixture_files.h"
#include "hf_fixture_support.h"
#include "plan/plan.h"
#include "relpos/error.h"
#include "relpos/heads.h"
#include "relpos/model.h"
#include "relpos/safetensors.h"

TEST_CASE("released weights keep plans recording and refuse the CPU forward", "[plan]") {
  for (const char* name : {"llama-rope", "bert-absolute"}) {
    const std::string dir = relpos_test::fixture_dir(name);
    const std::string config = relpos_test::read_text(dir + "config.json");
    const auto weights = relpos::SafeTensors::read_file(dir + "model.safetensors");
    for (relpos::WeightFormat dtype : {relpos::WeightFormat::F32, relpos::WeightFormat::Q8}) {
      INFO(name << " " << relpos::weight_format_name(dtype));
      relpos::LoadOptions options;
      options.dtype = dtype;
      auto model = relpos::load_model(config, weights, options);
      const std::vector<std::int32_t> ids = {5, 6, 7, 8};
      REQUIRE_NOTHROW(model->forward(1, 4, ids.data(), nullptr));
      const relpos::plan::Plan before = relpos::plan::build(*model, 1, 1, false);
      std::size_t q8_before = 0;
      for (const auto& w : before.weights) q8_before += relpos::plan::is_q8(w) ? 1 : 0;
      CHECK((dtype == relpos::WeightFormat::Q8) == (q8_before > 0));
      const std::size_t freed = relpos::plan::release_weights(before);
      CHECK(freed >= model->weight_bytes() * 3 / 4);  // all but norms, biases and small float tables
      CHECK(relpos::plan::release_weights(before) == 0);  // once
      const relpos::plan::Plan after = relpos::plan::build(*model, 2, 7, true);
      REQUIRE(after.weights.size() == before.weights.size());
      std::size_t q8_after = 0;
      for (std::size_t i = 0; i < after.weights.size(); ++i) {
        CHECK(after.weights[i].source == before.weights[i].source);
        q8_after += relpos::plan::is_q8(after.weights[i]) ? 1 : 0;
        if (after.weights[i].kind == relpos::plan::Weight::Kind::Floats) continue;
        if (relpos::plan::is_q8(after.weights[i]))
          CHECK_THROWS_WITH(relpos::plan::q8_values(after.weights[i]), Catch::Contains("live on the GPU"));
        else
          CHECK_THROWS_WITH(relpos::plan::weight_values(after.weights[i]), Catch::Contains("live on the GPU"));
      }
      CHECK(q8_after == q8_before);
      CHECK_THROWS_WITH(model->forward(1, 4, ids.data(), nullptr), Catch::Contains("live on the GPU"));
    }
  }
}
