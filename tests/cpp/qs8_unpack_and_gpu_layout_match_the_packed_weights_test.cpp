// kernels::unpack_qs8_nk reads back exactly the int8 weights and group multipliers pack_qs8_nk packed
// (checked against the documented layout, qs8_packed_reader.h), and plan::q8_values' WebGPU words
// (plan.h Q8Values: 4 int8 per u32, a row's float32 scale then its 4-bit multipliers) hold those same
// numbers, so a GPU GEMM that decodes them multiplies by the CPU's q8 weights; a q8 embedding table's words
// (multipliers 1) decode to exactly the rows the CPU's q8 gather gives. Odd shapes: K not a multiple of 4
// or 32, N not a multiple of the panel width, more than 8 groups per row.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <vector>

#include "hf_fixture_support.h"
#include "kernels/gemm_qs8.h"
#include "plan/plan.h"
#include "qs8_packed_reader.h"
#include "relpos/error.h"
#include "test_support.h"

TEST_CASE("unpack_qs8_nk returns the packed int8 weights and group multipliers", "[qs8][kernels][plan]") {
  unsigned seed = 5;
  for (const auto& [K, N] : {std::pair{1, 1}, std::pair{29, 13}, std::pair{300, 37}, std::pair{64, 8}}) {
    CAPTURE(K, N);
    auto Wt = ts::random_vector(static_cast<std::size_t>(N) * K, seed++, 0.05f);
    for (int k = 0; k < K; k += 3) Wt[k] *= 0.01f;  // small groups: multipliers below 16 on row 0
    std::vector<std::int8_t> packed(relpos::kernels::packed_qs8_bytes(K, N));
    std::vector<float> scales(static_cast<std::size_t>(N));
    relpos::kernels::pack_qs8_nk(K, N, Wt.data(), static_cast<std::size_t>(K), packed.data(), scales.data());
    const int G = (K + 31) / 32;
    std::vector<std::int8_t> q(static_cast<std::size_t>(N) * K, 99);
    std::vector<std::uint8_t> m(static_cast<std::size_t>(N) * G, 99);
    relpos::kernels::unpack_qs8_nk(K, N, packed.data(), q.data(), m.data());
    int mismatches = 0;
    for (int n = 0; n < N; ++n)
      for (int k = 0; k < K; ++k) {
        const auto w = relpos_test::packed_weight(packed, K, k, n);
        mismatches += w.q != q[static_cast<std::size_t>(n) * K + k] || w.m != m[static_cast<std::size_t>(n) * G + k / 32];
      }
    CHECK(mismatches == 0);
  }
}

namespace {
// Row n, column k of Q8Values decoded as the WebGPU kernels do: s[n] · m[n][k / 32] · q[n][k] (in float32).
float decode(const relpos::plan::Q8Values& v, int n, int k) {
  const std::size_t words = (v.cols + 3) / 4, G = (v.cols + 31) / 32, swords = 1 + (G + 7) / 8;
  float s;
  std::memcpy(&s, &v.scales[n * swords], sizeof s);
  const int q = static_cast<std::int8_t>((v.q[n * words + k / 4] >> (8 * (k % 4))) & 255u);
  const int m = static_cast<int>((v.scales[n * swords + 1 + k / 32 / 8] >> (4 * (k / 32 % 8))) & 15u) + 1;
  return s * static_cast<float>(m) * static_cast<float>(q);
}
}  // namespace

TEST_CASE("q8_values holds a q8 model's Linear and table weights in the WebGPU words; fp32 weights are not q8", "[plan][q8]") {
  const std::string dir = relpos_test::fixture_dir("bert-absolute");
  const auto weights = relpos::SafeTensors::read_file(dir + "model.safetensors");
  const std::string config = relpos_test::read_text(dir + "config.json");
  relpos::LoadOptions q8;
  q8.dtype = relpos::WeightFormat::Q8;
  auto fp32 = relpos::load_model(config, weights);
  auto quant = relpos::load_model(config, weights, q8);
  const auto plan32 = relpos::plan::build(*fp32, 1, 3, false);
  const auto plan8 = relpos::plan::build(*quant, 1, 3, false);
  REQUIRE(plan32.weights.size() == plan8.weights.size());
  int linears = 0, tables = 0;
  for (std::size_t i = 0; i < plan8.weights.size(); ++i) {
    const auto& w8 = plan8.weights[i];
    CHECK_FALSE(relpos::plan::is_q8(plan32.weights[i]));
    if (w8.kind == relpos::plan::Weight::Kind::Floats) {
      CHECK_FALSE(relpos::plan::is_q8(w8));
      continue;
    }
    if (w8.kind == relpos::plan::Weight::Kind::Table) {
      int rows = 0, cols = 0;
      REQUIRE(relpos::plan::is_q8(w8, &rows, &cols));
      const auto v = relpos::plan::q8_values(w8);
      const auto dequantized = relpos::plan::weight_values(w8);  // the CPU's q8 gather rows
      REQUIRE(dequantized.size() == static_cast<std::size_t>(rows) * cols);
      int mismatches = 0;
      for (int n = 0; n < rows; ++n)
        for (int k = 0; k < cols; ++k) mismatches += decode(v, n, k) != dequantized[static_cast<std::size_t>(n) * cols + k];
      CHECK(mismatches == 0);
      ++tables;
      continue;
    }
    ++linears;
    int rows = 0, cols = 0;
    REQUIRE(relpos::plan::is_q8(w8, &rows, &cols));
    CHECK_THROWS_AS(relpos::plan::weight_values(w8), relpos::Error);
    const auto v = relpos::plan::q8_values(w8);
    const auto ref = relpos::plan::weight_values(plan32.weights[i]);  // W [rows, cols] float32
    REQUIRE(v.rows == rows);
    REQUIRE(v.cols == cols);
    const std::size_t words = (cols + 3) / 4, G = (cols + 31) / 32, swords = 1 + (G + 7) / 8;
    REQUIRE(v.q.size() == rows * words);
    REQUIRE(v.scales.size() == rows * swords);
    double worst = 0;  // |decoded − fp32| in units of the decoded weight's half step
    for (int n = 0; n < rows; ++n) {
      float s;
      std::memcpy(&s, &v.scales[n * swords], sizeof s);
      for (int k = 0; k < cols; ++k) {
        const int q = static_cast<std::int8_t>((v.q[n * words + k / 4] >> (8 * (k % 4))) & 255u);
        const int m = static_cast<int>((v.scales[n * swords + 1 + k / 32 / 8] >> (4 * (k / 32 % 8))) & 15u) + 1;
        const double step = static_cast<double>(s) * m;
        const double err = std::abs(step * q - ref[static_cast<std::size_t>(n) * cols + k]);
        if (step > 0) worst = std::max(worst, err / (0.5 * step));
        else CHECK(ref[static_cast<std::size_t>(n) * cols + k] == 0.0f);
      }
      for (std::size_t k = cols; k < 4 * words; ++k) CHECK(((v.q[n * words + k / 4] >> (8 * (k % 4))) & 255u) == 0u);
    }
    CHECK(worst <= 1.0 + 1e-3);  // float rounding of the scale and its inverse
  }
  CHECK(linears > 0);
  CHECK(tables > 0);
}
