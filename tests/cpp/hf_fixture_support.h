// Runs one /work/shared/fixtures/hf case through relpos::load_model and compares it with the
// Hugging Face reference on valid positions only (README "How to compare"):
//   hidden_states.i, last_hidden_state [b, :n_b, :], pooler_output: max abs error ≤ 1e-4;
//   attentions.i [b, :, :n_b, :n_b]: max abs error ≤ 1e-5.
#pragma once

#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "fixture_files.h"
#include "relpos/model.h"
#include "relpos/safetensors.h"

namespace relpos_test {

struct FixtureErrors {
  double hidden = 0, attention = 0;
};

// Max |a − e| over [b, :n_b, …] of a [B, L, W] tensor, or over [b, :, :n_b, :n_b] when attention.
inline double max_error(const relpos::Tensor& actual, const std::vector<float>& expected, const std::vector<int>& lengths,
                        bool attention) {
  double worst = 0;
  const int B = actual.shape[0];
  if (!attention) {
    const int L = actual.shape[1], W = actual.shape[2];
    REQUIRE(expected.size() == actual.data.size());
    for (int b = 0; b < B; ++b)
      for (int l = 0; l < lengths[b]; ++l)
        for (int c = 0; c < W; ++c) {
          const std::size_t i = (static_cast<std::size_t>(b) * L + l) * W + c;
          const double e = std::fabs(static_cast<double>(actual.data[i]) - expected[i]);
          worst = std::isnan(e) ? 1e30 : std::max(worst, e);
        }
  } else {
    const int Hh = actual.shape[1], L = actual.shape[2];
    REQUIRE(expected.size() == actual.data.size());
    for (int b = 0; b < B; ++b)
      for (int h = 0; h < Hh; ++h)
        for (int i = 0; i < lengths[b]; ++i)
          for (int j = 0; j < lengths[b]; ++j) {
            const std::size_t k = ((static_cast<std::size_t>(b) * Hh + h) * L + i) * L + j;
            const double e = std::fabs(static_cast<double>(actual.data[k]) - expected[k]);
            worst = std::isnan(e) ? 1e30 : std::max(worst, e);
          }
  }
  return worst;
}

// A fixture's input.json as flat [B, L] id and mask rows, the way Model::forward takes them.
struct FixtureBatch {
  int B = 0, L = 0;
  std::vector<std::int32_t> ids, mask, types;  // types: token_type_ids when token_type_ids_passed_to_model
  std::vector<int> lengths;  // real tokens per row
  bool pass_mask = true;     // attention_mask_passed_to_model
  const std::int32_t* mask_or_null() const { return pass_mask ? mask.data() : nullptr; }
  const std::int32_t* types_or_null() const { return types.empty() ? nullptr : types.data(); }
};

inline FixtureBatch read_fixture_batch(const std::string& dir) {
  const auto input = nlohmann::json::parse(read_text(dir + "input.json"));
  const auto ids2 = input.at("input_ids").get<std::vector<std::vector<int>>>();
  const auto mask2 = input.at("attention_mask").get<std::vector<std::vector<int>>>();
  FixtureBatch batch;
  batch.lengths = input.at("lengths").get<std::vector<int>>();
  batch.pass_mask = input.value("attention_mask_passed_to_model", true);
  batch.B = static_cast<int>(ids2.size());
  batch.L = static_cast<int>(ids2[0].size());
  for (int b = 0; b < batch.B; ++b)
    for (int l = 0; l < batch.L; ++l) {
      batch.ids.push_back(ids2[b][l]);
      batch.mask.push_back(mask2[b][l]);
    }
  if (input.value("token_type_ids_passed_to_model", false))
    for (const auto& row : input.at("token_type_ids").get<std::vector<std::vector<int>>>())
      batch.types.insert(batch.types.end(), row.begin(), row.end());
  return batch;
}

// The fixture's batch run through `weights` (any checkpoint format) with config.json of the case.
inline relpos::ModelOutput run_fixture_batch(const std::string& name, const relpos::Weights& weights, int* layers = nullptr) {
  const std::string dir = fixture_dir(name);
  const FixtureBatch batch = read_fixture_batch(dir);
  auto model = relpos::load_model(read_text(dir + "config.json"), weights);
  relpos::ForwardOptions options;
  options.output_hidden_states = true;
  options.output_attentions = true;
  if (layers) *layers = model->config().num_layers;
  return model->forward(batch.B, batch.L, batch.ids.data(), batch.mask_or_null(), options, batch.types_or_null());
}

// One case folder `dir` (any fixture set of this format; `name` labels the printout).
inline FixtureErrors run_fixture_in_dir(const std::string& dir, const std::string& name,
                                        const relpos::Weights* weights_override = nullptr) {
  const FixtureBatch batch = read_fixture_batch(dir);
  const auto& lengths = batch.lengths;
  const auto own = relpos::SafeTensors::read_file(dir + "model.safetensors");
  const relpos::Weights& weights = weights_override ? *weights_override : own;
  const auto expected = relpos::SafeTensors::read_file(dir + "expected.safetensors");
  auto model = relpos::load_model(read_text(dir + "config.json"), weights);
  relpos::ForwardOptions options;
  options.output_hidden_states = true;
  options.output_attentions = true;
  const auto out = model->forward(batch.B, batch.L, batch.ids.data(), batch.mask_or_null(), options, batch.types_or_null());

  FixtureErrors err;
  const int layers = model->config().num_layers;
  REQUIRE(static_cast<int>(out.hidden_states.size()) == layers + 1);
  REQUIRE(static_cast<int>(out.attentions.size()) == layers);
  for (int i = 0; i <= layers; ++i) {
    const double e = max_error(out.hidden_states[i], expected.to_f32("hidden_states." + std::to_string(i)), lengths, false);
    INFO("hidden_states." << i << " max abs error " << e);
    CHECK(e <= 1e-4);
    err.hidden = std::max(err.hidden, e);
  }
  {
    const double e = max_error(out.last_hidden_state, expected.to_f32("last_hidden_state"), lengths, false);
    INFO("last_hidden_state max abs error " << e);
    CHECK(e <= 1e-4);
    err.hidden = std::max(err.hidden, e);
  }
  for (int i = 0; i < layers; ++i) {
    const double e = max_error(out.attentions[i], expected.to_f32("attentions." + std::to_string(i)), lengths, true);
    INFO("attentions." << i << " max abs error " << e);
    CHECK(e <= 1e-5);
    err.attention = std::max(err.attention, e);
  }
  if (expected.contains("pooler_output")) {
    const auto pe = expected.to_f32("pooler_output");
    REQUIRE(out.pooler_output.data.size() == pe.size());
    double e = 0;
    for (std::size_t i = 0; i < pe.size(); ++i) e = std::max(e, std::fabs(static_cast<double>(out.pooler_output.data[i]) - pe[i]));
    INFO("pooler_output max abs error " << e);
    CHECK(e <= 1e-4);
    err.hidden = std::max(err.hidden, e);
  }
  std::printf("[hf-fixture %s] %-26s hidden max err %.3g, attention max err %.3g\n", RELPOS_VARIANT, name.c_str(),
              err.hidden, err.attention);
  return err;
}

inline FixtureErrors run_hf_fixture(const std::string& name, const relpos::Weights* weights_override = nullptr) {
  return run_fixture_in_dir(fixture_dir(name), name, weights_override);
}

}  // namespace relpos_test
