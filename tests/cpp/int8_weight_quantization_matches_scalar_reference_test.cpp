// The int8 weight formats (pack_qs8_nk: row scale, 4-bit group multipliers, int8 in panels; EmbeddingTable::
// quantize_rows: row scale, int8) are made by vector code (rabsmax_f32) and a branch-free quantize_value. They must
// give the bytes the scalar loops they replaced gave — written out below as the reference — for every width, K not
// a multiple of the group or of a vector, and rows holding zeros, halves that round away, NaN, ±inf and −0.
// The activations of a q8 linear layer (quantize_rows_qs8 → vquantize_f32_s16, int16) likewise.
#include <catch2/catch.hpp>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "kernels/gemm_qs8.h"
#include "models/layers/embedding_table.h"

namespace {

using relpos::kernels::kQs8Group;
using relpos::kernels::kQs8MaxMultiplier;

int ref_quantize_value(float x, float inv, int qmax) {
  float v = x * inv;
  const float m = static_cast<float>(qmax);
  if (!(v >= -m)) v = v != v ? 0.0f : -m;
  if (v > m) v = m;
  return static_cast<int>(v + (v >= 0.0f ? 0.5f : -0.5f));
}

// pack_qs8_nk before: the weights and multipliers unpacked (q [N, K], m [N, groups]), the scales and the range.
int ref_quantize(int K, int N, const float* Bt, std::vector<std::int8_t>& q, std::vector<std::uint8_t>& mult, std::vector<float>& scales) {
  const int G = (K + kQs8Group - 1) / kQs8Group, Mx = kQs8MaxMultiplier;
  q.assign(static_cast<std::size_t>(N) * K, 0);
  mult.assign(static_cast<std::size_t>(N) * G, 1);
  scales.assign(N, 0.0f);
  long long l1_max = 0;
  for (int n = 0; n < N; ++n) {
    const float* row = Bt + static_cast<std::size_t>(n) * K;
    float amax = 0.0f;
    for (int k = 0; k < K; ++k) amax = std::max(amax, std::fabs(row[k]));
    scales[n] = amax / (127.0f * Mx);
    if (amax == 0.0f) continue;
    long long l1 = 0;
    for (int k0 = 0; k0 < K; k0 += kQs8Group) {
      const int k1 = std::min(K, k0 + kQs8Group);
      float gmax = 0.0f;
      for (int k = k0; k < k1; ++k) gmax = std::max(gmax, std::fabs(row[k]));
      const float r = std::ceil(Mx * (gmax / amax));
      const int m = r >= 1.0f ? (r < static_cast<float>(Mx) ? static_cast<int>(r) : Mx) : 1;
      const float inv = (127.0f * Mx) / (amax * static_cast<float>(m));
      for (int k = k0; k < k1; ++k) {
        const int v = ref_quantize_value(row[k], inv, 127);
        q[static_cast<std::size_t>(n) * K + k] = static_cast<std::int8_t>(v);
        l1 += static_cast<long long>(std::abs(v)) * m;
      }
      mult[static_cast<std::size_t>(n) * G + k0 / kQs8Group] = static_cast<std::uint8_t>(m);
    }
    l1_max = std::max(l1_max, l1);
  }
  return static_cast<int>(std::clamp(static_cast<long long>(INT_MAX) / std::max(1LL, l1_max), 1LL, 32767LL));
}

std::vector<float> rows_with_specials(int K, int N, unsigned seed) {
  std::mt19937 g(seed);
  std::normal_distribution<float> d(0.0f, 0.05f);
  std::vector<float> w(static_cast<std::size_t>(N) * K);
  for (auto& x : w) x = d(g);
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  for (int n = 0; n < N; ++n) {
    float* row = w.data() + static_cast<std::size_t>(n) * K;
    switch (n % 7) {
      case 0: std::fill(row, row + K, 0.0f); break;                         // an all-zero row
      case 1: row[g() % K] = nan; break;                                    // NaN among finite values
      case 2: row[g() % K] = (g() & 1) ? inf : -inf; break;                 // an infinite weight
      case 3: for (int k = 0; k < K; ++k) row[k] = 0.25f * (k % 9) - 1.0f; break;  // exact halves after scaling
      case 4: row[0] = -0.0f; row[K - 1] = nan; break;
      case 5: for (int k = 0; k < K; k += 2) row[k] = -row[k]; break;
      default: break;
    }
  }
  return w;
}

}  // namespace

TEST_CASE("int8 weight packing gives the scalar reference's weights, multipliers, scales and range bit for bit") {
  for (const int K : {1, 3, 31, 32, 33, 64, 100, 384, 769}) {
    for (const int N : {1, 7, 33}) {
      INFO("K " << K << " N " << N);
      const auto w = rows_with_specials(K, N, static_cast<unsigned>(K * 131 + N));
      std::vector<std::int8_t> q_ref;
      std::vector<std::uint8_t> m_ref;
      std::vector<float> s_ref;
      const int range_ref = ref_quantize(K, N, w.data(), q_ref, m_ref, s_ref);

      std::vector<std::int8_t> packed(relpos::kernels::packed_qs8_bytes(K, N));
      std::vector<float> scales(N);
      const int range = relpos::kernels::pack_qs8_nk(K, N, w.data(), K, packed.data(), scales.data());
      std::vector<std::int8_t> q(static_cast<std::size_t>(N) * K);
      const int G = (K + kQs8Group - 1) / kQs8Group;
      std::vector<std::uint8_t> m(static_cast<std::size_t>(N) * G);
      relpos::kernels::unpack_qs8_nk(K, N, packed.data(), q.data(), m.data());
      CHECK(range == range_ref);
      CHECK(q == q_ref);
      CHECK(m == m_ref);
      CHECK(std::memcmp(scales.data(), s_ref.data(), sizeof(float) * N) == 0);
    }
  }
}

TEST_CASE("int8 embedding rows give the scalar reference's values and scales bit for bit") {
  for (const int dim : {1, 5, 16, 300, 769}) {
    const int rows = 15;
    const auto w = rows_with_specials(dim, rows, static_cast<unsigned>(dim));
    std::vector<std::int8_t> q(w.size()), q_ref(w.size());
    std::vector<float> scales(rows), s_ref(rows);
    relpos::models::EmbeddingTable::quantize_rows(rows, dim, w.data(), q.data(), scales.data());
    for (int r = 0; r < rows; ++r) {
      const float* row = w.data() + static_cast<std::size_t>(r) * dim;
      float amax = 0.0f;
      for (int c = 0; c < dim; ++c) amax = std::max(amax, std::fabs(row[c]));
      s_ref[r] = amax / 127.0f;
      const float inv = amax > 0.0f ? 127.0f / amax : 0.0f;
      for (int c = 0; c < dim; ++c) q_ref[static_cast<std::size_t>(r) * dim + c] = static_cast<std::int8_t>(ref_quantize_value(row[c], inv, 127));
    }
    INFO("dim " << dim);
    CHECK(q == q_ref);
    CHECK(std::memcmp(scales.data(), s_ref.data(), sizeof(float) * rows) == 0);
  }
}

TEST_CASE("quantize_value and vquantize_f32 equal the branching form on every sign, tie, bound and non-finite input") {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> xs = {0.0f, -0.0f, 0.5f, -0.5f, 1.5f, -1.5f, 126.5f, -126.5f, 127.0f, 127.4999f, 127.5f, -127.5f,
                                 128.0f, -1e30f, 1e30f, inf, -inf, nan, -nan, 1e-45f, -1e-45f, 0.49999997f, -0.49999997f};
  for (const float x : xs)
    for (const float inv : {1.0f, 0.0f, 3.0f, 0.5f, inf})
      for (const int qmax : {127, 32767}) {
        INFO(x << " · " << inv << " within " << qmax);
        CHECK(relpos::kernels::quantize_value(x, inv, qmax) == ref_quantize_value(x, inv, qmax));
      }
  std::mt19937 g(9);
  std::vector<float> any(200003);  // any bit pattern, and the vector form over all of them (a scalar tail too)
  for (float& x : any) {
    const std::uint32_t bits = g();
    std::memcpy(&x, &bits, 4);
  }
  any.insert(any.end(), xs.begin(), xs.end());
  for (const float inv : {1.0f, 1e-30f, 1e30f}) {
    std::vector<std::int32_t> q(any.size());
    relpos::kernels::vquantize_f32(any.size(), any.data(), inv, 127, q.data());
    int differ = 0;
    for (std::size_t i = 0; i < any.size(); ++i)
      differ += q[i] != ref_quantize_value(any[i], inv, 127) || relpos::kernels::quantize_value(any[i], inv, 127) != q[i];
    CHECK(differ == 0);
  }
}

TEST_CASE("vquantize_f32_s16 gives vquantize_f32's values as int16 for any bit pattern and range") {
  std::mt19937 g(11);
  std::vector<float> any(100003);
  for (float& x : any) {
    const std::uint32_t bits = g();
    std::memcpy(&x, &bits, 4);
  }
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  any.insert(any.end(), {0.0f, -0.0f, 0.5f, -0.5f, 32766.5f, -32766.5f, 32767.4999f, 32767.5f, -32767.5f, inf, -inf, nan});
  for (const int qmax : {127, 16383, 32767})
    for (const float inv : {1.0f, 1e-30f, 1e30f, 0.0f}) {
      INFO("qmax " << qmax << ", inv " << inv);
      std::vector<std::int32_t> wide(any.size());
      std::vector<std::int16_t> q(any.size() + 1, 77);
      relpos::kernels::vquantize_f32(any.size(), any.data(), inv, qmax, wide.data());
      relpos::kernels::vquantize_f32_s16(any.size(), any.data(), inv, qmax, q.data());
      int differ = 0;
      for (std::size_t i = 0; i < any.size(); ++i) differ += q[i] != wide[i] || wide[i] != ref_quantize_value(any[i], inv, qmax);
      CHECK(differ == 0);
      CHECK(q.back() == 77);  // nothing written past n
    }
}

TEST_CASE("quantize_rows_qs8 gives each row the scalar loop's scale and int16 values, odd K padded with 0") {
  std::mt19937 g(12);
  std::normal_distribution<float> d(0.0f, 3.0f);
  for (const int K : {1, 7, 8, 31, 384, 1025}) {
    const int M = 5;
    std::vector<float> a(static_cast<std::size_t>(M) * K);
    for (float& x : a) x = d(g);
    for (int k = 0; k < K; k += 3) a[k] = 0.5f * std::round(2.0f * a[k]);  // halves
    std::fill(a.begin() + K, a.begin() + 2 * K, 0.0f);                     // a zero row
    a[2 * static_cast<std::size_t>(K)] = -0.0f;
    const std::size_t ldq = relpos::kernels::qs8_row_entries(K);
    for (const int qmax : {127, 3000, 32767}) {
      INFO("K " << K << ", qmax " << qmax);
      std::vector<std::int16_t> q(ldq * M, 77);
      std::vector<float> scales(M);
      relpos::kernels::quantize_rows_qs8(M, K, a.data(), K, q.data(), ldq, scales.data(), qmax);
      for (int r = 0; r < M; ++r) {
        const float* row = a.data() + static_cast<std::size_t>(r) * K;
        float amax = 0.0f;
        for (int k = 0; k < K; ++k) amax = std::max(amax, std::fabs(row[k]));
        CHECK(scales[r] == amax / static_cast<float>(qmax));
        const float inv = amax > 0.0f ? static_cast<float>(qmax) / amax : 0.0f;
        int differ = 0;
        for (int k = 0; k < K; ++k) differ += q[r * ldq + k] != ref_quantize_value(row[k], inv, qmax);
        CHECK(differ == 0);
        if (K & 1) CHECK(q[r * ldq + K] == 0);
      }
    }
  }
}
