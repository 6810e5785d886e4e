// Forward and backward of the training encoder (contracts in model.h).
// Threading: every parallel_for has a fixed grain; each output element is written by exactly one
// chunk with a summation order independent of the chunk → bitwise identical for any thread count.
// Reductions across rows (parameter gradients of biases, LayerNorm, embeddings, position tables) run
// serially in row order, or through per-(b, h) partial buffers summed in (b, h) order.
#include "model.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "kernels/gemm_f32.h"
#include "kernels/softmax_f32.h"
#include "parallel/parallel_for.h"
#include "relpos/positions.h"
#include "relpos/threads.h"
#include "gelu.h"
#include "layernorm.h"
#include "rng.h"
#include "vec.h"

namespace relpos::train {

using relpos::parallel::Index;
using relpos::parallel::parallel_for;

namespace {
constexpr Index kRowGrain = 32;
constexpr float kLnEps = 1e-5f;

// LayerNorm over rows: y = (x − μ)·r·g + b, r = 1/√(var + eps), var the biased variance. x, y [N, d].
void layernorm_forward(int N, int d, const float* x, const float* g, const float* b, float* y, float* mean,
                       float* rstd) {
  parallel_for(0, N, kRowGrain, [&](Index b0, Index e0, int) {
    for (Index r = b0; r < e0; ++r) {
#if RELPOS_TRAIN_VECTOR_LN  // WASM SIMD: vector-lane sums (layernorm.h)
      layernorm_row_forward(d, x + r * d, g, b, kLnEps, y + r * d, mean + r, rstd + r);
      continue;
#endif
      const float* xr = x + r * d;
      float m = 0;
      for (int i = 0; i < d; ++i) m += xr[i];
      m /= d;
      float v = 0;
      for (int i = 0; i < d; ++i) v += (xr[i] - m) * (xr[i] - m);
      v /= d;
      const float rs = 1.0f / std::sqrt(v + kLnEps);
      mean[r] = m;
      rstd[r] = rs;
      float* yr = y + r * d;
      for (int i = 0; i < d; ++i) yr[i] = (xr[i] - m) * rs * g[i] + b[i];
    }
  });
}

// LayerNorm backward. With x̂ = (x − μ)·r and u = dy ∘ g:
//   dx = r·(u − mean(u) − x̂·mean(u ∘ x̂))   (written or added to dx),  dg += Σ_rows dy ∘ x̂,  db += Σ_rows dy.
void layernorm_backward(int N, int d, const float* x, const float* mean, const float* rstd, const float* g,
                        const float* dy, float* dx, bool accumulate, float* dg, float* db) {
  parallel_for(0, N, kRowGrain, [&](Index b0, Index e0, int) {
    for (Index r = b0; r < e0; ++r) {
#if RELPOS_TRAIN_VECTOR_LN
      layernorm_row_backward(d, x + r * d, mean[r], rstd[r], g, dy + r * d, dx + r * d, accumulate);
      continue;
#endif
      const float* xr = x + r * d;
      const float* dyr = dy + r * d;
      float* dxr = dx + r * d;
      const float m = mean[r], rs = rstd[r];
      float mu = 0, mux = 0;
      for (int i = 0; i < d; ++i) {
        const float xh = (xr[i] - m) * rs;
        const float u = dyr[i] * g[i];
        mu += u;
        mux += u * xh;
      }
      mu /= d;
      mux /= d;
      for (int i = 0; i < d; ++i) {
        const float xh = (xr[i] - m) * rs;
        const float v = rs * (dyr[i] * g[i] - mu - xh * mux);
        dxr[i] = accumulate ? dxr[i] + v : v;
      }
    }
  });
  for (int r = 0; r < N; ++r) {  // serial: fixed order
#if RELPOS_TRAIN_VECTOR_LN  // same per-element order, vectorised across the row
    layernorm_param_grads(d, x + static_cast<long>(r) * d, mean[r], rstd[r], dy + static_cast<long>(r) * d, dg, db);
    continue;
#endif
    const float* xr = x + static_cast<long>(r) * d;
    const float* dyr = dy + static_cast<long>(r) * d;
    for (int i = 0; i < d; ++i) {
      dg[i] += dyr[i] * (xr[i] - mean[r]) * rstd[r];
      db[i] += dyr[i];
    }
  }
}

// GELU(u) and d/du GELU(u) = Φ(u) + u·φ(u): gelu.h (vector kernels in the WASM SIMD build, the
// std::erf reference loops elsewhere).

void normal_fill(Rng& rng, float std, float* p, long n) {
  for (long i = 0; i < n; ++i) p[i] = std * static_cast<float>(rng.normal());
}
// [lo, hi]: the Shaw / DeBERTa relative rows c(j − i) that query row i uses over keys j < jend (DeBERTa:
// deb_index[δ + maxL − 1]; Shaw: clip(δ, −K, K) + K; T rows in all). Rows outside are never read
// (forward) or enter with zero coefficients (backward, adding ±0 to sums that start at +0): skipping
// them changes no bits.
void relative_rows_span(const std::int32_t* deb_index, int maxL, int K, int T, int i, int jend, int& lo, int& hi) {
  lo = T;
  hi = -1;
  for (int j = 0; j < jend; ++j) {
    const int cc = deb_index ? deb_index[j - i + maxL - 1] : std::clamp(j - i, -K, K) + K;
    lo = std::min(lo, cc);
    hi = std::max(hi, cc);
  }
}

}  // namespace

const char* scheme_name(PositionScheme s) {
  switch (s) {
    case PositionScheme::None: return "none";
    case PositionScheme::Sinusoidal: return "sinusoidal";
    case PositionScheme::Learned: return "learned";
    case PositionScheme::Alibi: return "alibi";
    case PositionScheme::T5: return "t5";
    case PositionScheme::Rope: return "rope";
    case PositionScheme::Shaw: return "shaw";
    case PositionScheme::Deberta: return "deberta";
  }
  return "?";
}

PositionScheme parse_scheme(const std::string& n) {
  for (PositionScheme s : {PositionScheme::None, PositionScheme::Sinusoidal, PositionScheme::Learned, PositionScheme::Alibi,
                           PositionScheme::T5, PositionScheme::Rope, PositionScheme::Shaw, PositionScheme::Deberta})
    if (n == scheme_name(s)) return s;
  throw std::invalid_argument("unknown position scheme: " + n);
}

ParamLayout make_layout(const ModelConfig& c) {
  if (c.d_model % c.heads != 0) throw std::invalid_argument("d_model must be a multiple of heads");
  const int dh = c.d_model / c.heads;
  if (c.scheme == PositionScheme::Rope && dh % 2 != 0) throw std::invalid_argument("RoPE needs an even head_dim");
  if (c.scheme == PositionScheme::Sinusoidal && c.d_model % 2 != 0) throw std::invalid_argument("sinusoidal needs an even d_model");
  ParamLayout L;
  const long d = c.d_model, F = static_cast<long>(c.ff_mult) * d;
  auto add = [&](const std::string& name, long size, bool decay) {
    const long off = L.total;
    L.tensors.push_back({name, off, size, decay});
    L.total += size;
    return off;
  };
  L.embed = add("embed", c.vocab * d, true);
  if (c.scheme == PositionScheme::Learned) L.pos_table = add("pos_table", c.max_len * d, false);
  for (int l = 0; l < c.layers; ++l) {
    const std::string p = "layer" + std::to_string(l) + ".";
    LayerOffsets o{};
    o.ln1_g = add(p + "ln1_g", d, false);
    o.ln1_b = add(p + "ln1_b", d, false);
    o.wq = add(p + "wq", d * d, true);
    o.bq = add(p + "bq", d, false);
    o.wk = add(p + "wk", d * d, true);
    o.bk = add(p + "bk", d, false);
    o.wv = add(p + "wv", d * d, true);
    o.bv = add(p + "bv", d, false);
    o.wo = add(p + "wo", d * d, true);
    o.bo = add(p + "bo", d, false);
    o.ln2_g = add(p + "ln2_g", d, false);
    o.ln2_b = add(p + "ln2_b", d, false);
    o.w1 = add(p + "w1", F * d, true);
    o.b1 = add(p + "b1", F, false);
    o.w2 = add(p + "w2", d * F, true);
    o.b2 = add(p + "b2", d, false);
    o.t5_table = c.scheme == PositionScheme::T5 ? add(p + "t5_table", static_cast<long>(c.t5_buckets) * c.heads, false) : -1;
    o.shaw_k_table = c.scheme == PositionScheme::Shaw ? add(p + "shaw_k", (2L * c.shaw_k + 1) * dh, false) : -1;
    o.shaw_v_table = c.scheme == PositionScheme::Shaw && c.shaw_values ? add(p + "shaw_v", (2L * c.shaw_k + 1) * dh, false) : -1;
    o.deberta_rel = c.scheme == PositionScheme::Deberta ? add(p + "deberta_rel", 2L * c.deberta_buckets * d, false) : -1;
    L.layers.push_back(o);
  }
  if (c.pre_ln) {
    L.lnf_g = add("lnf_g", d, false);
    L.lnf_b = add("lnf_b", d, false);
  }
  L.head_w = add("head_w", c.classes * d, true);
  L.head_b = add("head_b", c.classes, false);
  return L;
}

void init_params(const ModelConfig& c, const ParamLayout& layout, std::uint64_t seed, std::vector<float>& params) {
  params.assign(layout.total, 0.0f);
  Rng rng(seed);
  for (const auto& t : layout.tensors) {
    const std::string& n = t.name;
    const std::string tail = n.substr(n.find_last_of('.') == std::string::npos ? 0 : n.find_last_of('.') + 1);
    const bool gain = tail == "ln1_g" || tail == "ln2_g" || tail == "lnf_g";
    const bool bias = tail == "bq" || tail == "bk" || tail == "bv" || tail == "bo" || tail == "b1" || tail == "b2" ||
                      tail == "head_b" || tail == "ln1_b" || tail == "ln2_b" || tail == "lnf_b";
    if (gain)
      std::fill(params.begin() + t.offset, params.begin() + t.offset + t.size, 1.0f);
    else if (!bias)  // matrices, embeddings, position tables: N(0, 0.02²) in layout order
      normal_fill(rng, 0.02f, params.data() + t.offset, t.size);
  }
  (void)c;
}

Trainer::Trainer(const ModelConfig& c, int max_batch, int max_len_ws)
    : c_(c), layout_(make_layout(c)), maxB_(max_batch), maxL_(max_len_ws) {
  if (maxL_ > c.max_len) throw std::invalid_argument("workspace length exceeds config max_len");
  d_ = c.d_model;
  H_ = c.heads;
  dh_ = d_ / H_;
  F_ = c.ff_mult * d_;
  const std::size_t N = static_cast<std::size_t>(maxB_) * maxL_, d = d_, F = F_;
  x0_.resize(N * d);
  acts_.resize(c.layers);
  for (auto& a : acts_) {
    for (auto* v : {&a.in, &a.ln1, &a.q, &a.k, &a.v, &a.ctx, &a.attn_out, &a.res1, &a.ln2, &a.mlp_out, &a.out}) v->resize(N * d);
    for (auto* v : {&a.ln1_mean, &a.ln1_rstd, &a.ln2_mean, &a.ln2_rstd}) v->resize(N);
    a.h1.resize(N * F);
    a.h1g.resize(N * F);
    a.probs.resize(static_cast<std::size_t>(maxB_) * H_ * maxL_ * maxL_);
    if (c.scheme == PositionScheme::Deberta) {
      a.kr.resize(2 * static_cast<std::size_t>(c.deberta_buckets) * d);
      a.qr.resize(a.kr.size());
    }
  }
  final_.resize(N * d);
  lnf_mean_.resize(N);
  lnf_rstd_.resize(N);
  logits_.resize(N * c.classes);
  probs_out_.resize(N * c.classes);
  for (auto* v : {&dx_, &dtmp_, &dq_, &dk_, &dv_, &dctx_, &dmid_}) v->resize(N * d);
  dh1_.resize(N * F);
  dlogits_.resize(N * c.classes);
  const int widest = std::max({d_, F_, c.classes});
  packed_.resize(std::max(kernels::packed_b_floats(widest, widest), kernels::packed_b_floats(static_cast<int>(N), widest)));
  transposed_.resize(N * widest);
  rel_rows_ = c.scheme == PositionScheme::Deberta ? 2 * c.deberta_buckets : 2 * c.shaw_k + 1;
  const std::size_t T = rel_rows_;
  std::size_t partial = 0;
  if (c.scheme == PositionScheme::T5) partial = c.t5_buckets;
  if (c.scheme == PositionScheme::Shaw || c.scheme == PositionScheme::Deberta) partial = 2 * T * dh_;
  table_partials_.resize(static_cast<std::size_t>(maxB_) * H_ * partial);
  row_scratch_.resize(static_cast<std::size_t>(relpos::kMaxThreads) * (maxL_ + 4 * T));
  if (c.scheme == PositionScheme::Deberta) {
    const int s2 = 2 * c.deberta_buckets;
    if (static_cast<long>(s2) > static_cast<long>(N)) throw std::invalid_argument("DeBERTa table rows exceed the workspace rows");
    deb_dkr_.resize(static_cast<std::size_t>(s2) * d);
    deb_dqr_.resize(deb_dkr_.size());
    deb_index_.resize(2 * static_cast<std::size_t>(maxL_) - 1);
    for (int delta = -(maxL_ - 1); delta <= maxL_ - 1; ++delta)
      deb_index_[delta + maxL_ - 1] =
          std::clamp(relpos::deberta_relative_position(-delta, c.deberta_buckets, c.deberta_max_rel) + c.deberta_buckets, 0, s2 - 1);
  }
  if (c.scheme == PositionScheme::Rope) {
    rope_cos_.resize(static_cast<std::size_t>(maxL_) * dh_ / 2);
    rope_sin_.resize(rope_cos_.size());
    for (int p = 0; p < maxL_; ++p)
      for (int i = 0; i < dh_ / 2; ++i) {
        const double w = std::pow(10000.0, -2.0 * i / dh_);
        rope_cos_[p * dh_ / 2 + i] = static_cast<float>(std::cos(p * w));
        rope_sin_[p * dh_ / 2 + i] = static_cast<float>(std::sin(p * w));
      }
  }
  if (c.scheme == PositionScheme::Sinusoidal) {
    sinusoid_.resize(static_cast<std::size_t>(maxL_) * d_);
    for (int p = 0; p < maxL_; ++p)
      for (int i = 0; i < d_ / 2; ++i) {
        const double w = std::pow(10000.0, -2.0 * i / d_);
        sinusoid_[p * d_ + 2 * i] = static_cast<float>(std::sin(p * w));
        sinusoid_[p * d_ + 2 * i + 1] = static_cast<float>(std::cos(p * w));
      }
  }
  if (c.scheme == PositionScheme::T5) {
    t5_bucket_.resize(2 * static_cast<std::size_t>(maxL_) - 1);
    for (int delta = -(maxL_ - 1); delta <= maxL_ - 1; ++delta)
      t5_bucket_[delta + maxL_ - 1] = relpos::t5_relative_bucket(delta, !c.causal, c.t5_buckets, c.t5_max_distance);
  }
  if (c.scheme == PositionScheme::Alibi) {
    alibi_slope_.resize(H_);
    for (int h = 0; h < H_; ++h) alibi_slope_[h] = static_cast<float>(std::pow(2.0, -8.0 * (h + 1) / H_));
  }
}

std::size_t Trainer::workspace_bytes() const {
  std::size_t n = 0;
  auto add = [&](const std::vector<float>& v) { n += v.capacity() * sizeof(float); };
  add(x0_);
  for (const auto& a : acts_)
    for (auto* v : {&a.in, &a.ln1, &a.ln1_mean, &a.ln1_rstd, &a.q, &a.k, &a.v, &a.probs, &a.ctx, &a.attn_out, &a.res1,
                    &a.ln2, &a.ln2_mean, &a.ln2_rstd, &a.h1, &a.h1g, &a.mlp_out, &a.out, &a.kr, &a.qr})
      add(*v);
  for (auto* v : {&final_, &lnf_mean_, &lnf_rstd_, &logits_, &probs_out_, &dx_, &dtmp_, &dq_, &dk_, &dv_, &dctx_, &dh1_,
                  &dlogits_, &dmid_, &packed_, &transposed_, &table_partials_, &row_scratch_, &rope_cos_, &rope_sin_,
                  &sinusoid_, &alibi_slope_, &deb_dkr_, &deb_dqr_})
    add(*v);
  n += (t5_bucket_.capacity() + deb_index_.capacity()) * sizeof(std::int32_t);
  return n;
}

// y[N, out] = x[N, in]·Wᵀ + b, W [out, in] row-major. W is packed once (pack_b_nk), rows in chunks of kRowGrain.
void Trainer::linear_forward(int N, int in, int out, const float* x, const float* W, const float* b, float* y) {
  float* packed = packed_.data();
  kernels::pack_b_nk(in, out, W, in, packed);
  parallel_for(0, N, kRowGrain, [&](Index b0, Index e0, int) {
    kernels::gemm_f32_packed(static_cast<int>(e0 - b0), out, in, 1.0f, x + b0 * in, in, packed, y + b0 * out, out, false);
    for (Index r = b0; r < e0; ++r) add_to(out, b, y + r * out);
  });
}

// Backward of linear_forward for upstream dy [N, out]:
//   dx = dy·W   [N, in]  (written, or added when accumulate_dx; skipped when dx == nullptr)
//   dW += dyᵀ·x [out, in],  db += Σ_rows dy.
void Trainer::linear_backward(int N, int in, int out, const float* x, const float* W, const float* dy, float* dx,
                              bool accumulate_dx, float* dW, float* db) {
  float* packed = packed_.data();
  if (dx) {
    kernels::pack_b_kn(out, in, W, in, packed);
    parallel_for(0, N, kRowGrain, [&](Index b0, Index e0, int) {
      kernels::gemm_f32_packed(static_cast<int>(e0 - b0), in, out, 1.0f, dy + b0 * out, out, packed, dx + b0 * in, in,
                               accumulate_dx);
    });
  }
  float* t = transposed_.data();  // dyᵀ [out, N]
  parallel_for(0, out, 8, [&](Index b0, Index e0, int) {
    for (Index o = b0; o < e0; ++o)
      for (int r = 0; r < N; ++r) t[o * N + r] = dy[static_cast<long>(r) * out + o];
  });
  kernels::pack_b_kn(N, in, x, in, packed);
  parallel_for(0, out, 8, [&](Index b0, Index e0, int) {
    kernels::gemm_f32_packed(static_cast<int>(e0 - b0), in, N, 1.0f, t + b0 * N, N, packed, dW + b0 * in, in, true);
  });
  for (int r = 0; r < N; ++r) add_to(out, dy + static_cast<long>(r) * out, db);  // row order per element
}

// Attention core for one layer: a.q, a.k (rotated for RoPE), a.v [N, d] (+ a.kr, a.qr [2s, d] for
// DeBERTa) → a.probs [B, H, L, L] (zero where masked) and a.ctx [N, d]; logits as in model.h. Softmax:
// rmax / raddstoreexpminusmax / vscale over the unmasked prefix. One chunk per (b, h).
void Trainer::attention_forward(const float* params, const LayerOffsets& o, LayerActs& a, int B, int L) {
  const int d = d_, H = H_, dh = dh_;
  const bool deb = o.deberta_rel >= 0;
  const float scale = 1.0f / std::sqrt(static_cast<float>(deb ? 3 * dh : dh));
  const int K = c_.shaw_k, T = rel_rows_;
  const float* aK = o.shaw_k_table >= 0 ? params + o.shaw_k_table : nullptr;
  const float* aV = o.shaw_v_table >= 0 ? params + o.shaw_v_table : nullptr;
  const float* t5 = o.t5_table >= 0 ? params + o.t5_table : nullptr;
  const std::size_t scratch = maxL_ + 4 * static_cast<std::size_t>(T);
  auto relative_rows_used = [&](int i, int jend, int& lo, int& hi) {
    relative_rows_span(deb ? deb_index_.data() : nullptr, maxL_, K, T, i, jend, lo, hi);
  };
  parallel_for(0, static_cast<Index>(B) * H, 1, [&](Index b0, Index e0, int thread) {
    float* qa = row_scratch_.data() + thread * scratch;  // [T] q_i·aK[c]·scale
    float* pb = qa + T;                                   // [T] bucket sums of p_ij
    for (Index bh = b0; bh < e0; ++bh) {
      const int b = static_cast<int>(bh / H), h = static_cast<int>(bh % H);
      for (int i = 0; i < L; ++i) {
        float* prow = a.probs.data() + ((static_cast<std::size_t>(b) * H + h) * L + i) * L;
        const float* qi = a.q.data() + (static_cast<std::size_t>(b) * L + i) * d + h * dh;
        const int jend = c_.causal ? i + 1 : L;
        int lo = 0, hi = -1;  // relative rows this query row uses (Shaw / DeBERTa); the others stay unread
        if (aK || deb) relative_rows_used(i, jend, lo, hi);
        if (aK)
          for (int cc = lo; cc <= hi; ++cc) qa[cc] = dot(dh, qi, aK + cc * dh) * scale;
        if (deb)
          for (int cc = lo; cc <= hi; ++cc) qa[cc] = dot(dh, qi, a.kr.data() + static_cast<std::size_t>(cc) * d + h * dh) * scale;
        for (int j = 0; j < jend; ++j) {
          const float* kj = a.k.data() + (static_cast<std::size_t>(b) * L + j) * d + h * dh;
          float s = dot(dh, qi, kj) * scale;
          const int delta = j - i;
          switch (c_.scheme) {
            case PositionScheme::Alibi:
              s += c_.causal ? alibi_slope_[h] * delta : -alibi_slope_[h] * std::abs(delta);
              break;
            case PositionScheme::T5: s += t5[t5_bucket_[delta + maxL_ - 1] * H + h]; break;
            case PositionScheme::Shaw: s += qa[std::clamp(delta, -K, K) + K]; break;
            case PositionScheme::Deberta: {
              const int cc = deb_index_[delta + maxL_ - 1];
              s += qa[cc] + dot(dh, kj, a.qr.data() + static_cast<std::size_t>(cc) * d + h * dh) * scale;
              break;
            }
            default: break;
          }
          prow[j] = s;
        }
        const float m = kernels::rmax_f32(jend, prow);
        const float sum = kernels::raddstoreexpminusmax_f32(jend, prow, m, prow);
        kernels::vscale_f32(jend, prow, 1.0f / sum);
        for (int j = jend; j < L; ++j) prow[j] = 0.0f;
        float* ci = a.ctx.data() + (static_cast<std::size_t>(b) * L + i) * d + h * dh;
        std::fill(ci, ci + dh, 0.0f);
        for (int j = 0; j < jend; ++j) axpy(dh, prow[j], a.v.data() + (static_cast<std::size_t>(b) * L + j) * d + h * dh, ci);
        if (aV) {
          std::fill(pb, pb + T, 0.0f);
          for (int j = 0; j < jend; ++j) pb[std::clamp(j - i, -K, K) + K] += prow[j];
          for (int cc = lo; cc <= hi; ++cc) axpy(dh, pb[cc], aV + cc * dh, ci);
        }
      }
    }
  });
}

// Backward of attention_forward. In: dctx_ [N, d]. Out: dq_, dk_, dv_ [N, d] (gradients w.r.t. the
// rotated q, k for RoPE) and the position-table gradients added to grads. With dP_ij = dO_i·v_j
// (+ dO_i·aV[c]):  dS_ij = p_ij (dP_ij − Σ_j' p_ij' dP_ij');  dq_i = scale Σ_j dS_ij (k_j + aK[c]);
// dk_j = scale Σ_i dS_ij q_i;  dv_j = Σ_i p_ij dO_i;  daK[c] += scale Σ dS_ij q_i;  daV[c] += Σ p_ij dO_i;
// dT5[bucket, h] += Σ dS_ij.  DeBERTa (scale 1/√(3dh)): dq_i += scale Σ_j dS_ij Kr_h[c]; dk_j += scale Σ_i dS_ij Qr_h[c];
// dKr_h[c] += scale Σ dS_ij q_i;  dQr_h[c] += scale Σ dS_ij k_j; then through Kr = R·Wkᵀ + bk, Qr = R·Wqᵀ + bq
// into dR, dWk, dbk, dWq, dbq. Per-(b, h) partials of every table gradient are summed in (b, h) order.
void Trainer::attention_backward(const float* params, const LayerOffsets& o, LayerActs& a, int B, int L, float* grads) {
  const int d = d_, H = H_, dh = dh_;
  const bool deb = o.deberta_rel >= 0;
  const float scale = 1.0f / std::sqrt(static_cast<float>(deb ? 3 * dh : dh));
  const int K = c_.shaw_k, T = rel_rows_;
  const float* aK = o.shaw_k_table >= 0 ? params + o.shaw_k_table : nullptr;
  const float* aV = o.shaw_v_table >= 0 ? params + o.shaw_v_table : nullptr;
  const bool t5 = o.t5_table >= 0;
  const std::size_t scratch = maxL_ + 4 * static_cast<std::size_t>(T);
  auto relative_rows_used = [&](int i, int jend, int& lo, int& hi) {
    relative_rows_span(deb ? deb_index_.data() : nullptr, maxL_, K, T, i, jend, lo, hi);
  };
  const std::size_t part = t5 ? c_.t5_buckets : (aK || deb ? 2 * static_cast<std::size_t>(T) * dh : 0);
  if (part) std::fill(table_partials_.begin(), table_partials_.begin() + static_cast<long>(B) * H * part, 0.0f);
  parallel_for(0, static_cast<Index>(B) * H, 1, [&](Index b0, Index e0, int thread) {
    float* dp = row_scratch_.data() + thread * scratch;  // [maxL]
    float* doa = dp + maxL_;                              // [T] dO_i·aV[c]
    float* pb = doa + T;                                  // [T] Σ_{j∈c} p_ij
    float* sb = pb + T;                                   // [T] Σ_{j∈c} dS_ij
    for (Index bh = b0; bh < e0; ++bh) {
      const int b = static_cast<int>(bh / H), h = static_cast<int>(bh % H);
      float* partial = part ? table_partials_.data() + bh * part : nullptr;
      auto row = [&](std::vector<float>& m, int i) { return m.data() + (static_cast<std::size_t>(b) * L + i) * d + h * dh; };
      for (int j = 0; j < L; ++j) {
        std::fill(row(dk_, j), row(dk_, j) + dh, 0.0f);
        std::fill(row(dv_, j), row(dv_, j) + dh, 0.0f);
      }
      for (int i = 0; i < L; ++i) {
        const float* prow = a.probs.data() + ((static_cast<std::size_t>(b) * H + h) * L + i) * L;
        const float* doi = row(dctx_, i);
        const float* qi = row(a.q, i);
        const int jend = c_.causal ? i + 1 : L;
        int lo = 0, hi = -1;  // relative rows used by row i: the rest have zero coefficients (skipped)
        if (aK || deb) relative_rows_used(i, jend, lo, hi);
        if (aV) {
          for (int cc = lo; cc <= hi; ++cc) doa[cc] = dot(dh, doi, aV + cc * dh);
          std::fill(pb, pb + T, 0.0f);
        }
        float rowdot = 0;
        for (int j = 0; j < jend; ++j) {
          const int cc = std::clamp(j - i, -K, K) + K;
          float v = dot(dh, doi, row(a.v, j));
          if (aV) {
            v += doa[cc];
            pb[cc] += prow[j];
          }
          dp[j] = v;
          rowdot += prow[j] * v;
          axpy(dh, prow[j], doi, row(dv_, j));
        }
        if (aV) {
          float* daV = partial + T * dh;
          for (int cc = lo; cc <= hi; ++cc) axpy(dh, pb[cc], doi, daV + cc * dh);
        }
        float* dqi = row(dq_, i);
        std::fill(dqi, dqi + dh, 0.0f);
        if (aK || deb) std::fill(sb, sb + T, 0.0f);
        for (int j = 0; j < jend; ++j) {
          const float ds = prow[j] * (dp[j] - rowdot);
          axpy(dh, scale * ds, row(a.k, j), dqi);
          axpy(dh, scale * ds, qi, row(dk_, j));
          if (aK) sb[std::clamp(j - i, -K, K) + K] += ds;
          if (t5) partial[t5_bucket_[j - i + maxL_ - 1]] += ds;
          if (deb) {  // p2c: dk_j += scale·dS·Qr_h[c];  dQr_h[c] += scale·dS·k_j
            const int cc = deb_index_[j - i + maxL_ - 1];
            sb[cc] += ds;
            axpy(dh, scale * ds, a.qr.data() + static_cast<std::size_t>(cc) * d + h * dh, row(dk_, j));
            axpy(dh, scale * ds, row(a.k, j), partial + static_cast<std::size_t>(T + cc) * dh);
          }
        }
        if (deb)  // c2p: dq_i += scale Σ_c sb[c]·Kr_h[c];  dKr_h[c] += scale·sb[c]·q_i
          for (int cc = lo; cc <= hi; ++cc) {
            if (sb[cc] == 0.0f) continue;
            axpy(dh, scale * sb[cc], a.kr.data() + static_cast<std::size_t>(cc) * d + h * dh, dqi);
            axpy(dh, scale * sb[cc], qi, partial + static_cast<std::size_t>(cc) * dh);
          }
        if (aK)
          for (int cc = lo; cc <= hi; ++cc) {
            axpy(dh, scale * sb[cc], aK + cc * dh, dqi);
            axpy(dh, scale * sb[cc], qi, partial + cc * dh);
          }
      }
    }
  });
  // Fixed-order reduction of the per-(b, h) partials.
  if (t5) {
    float* g = grads + o.t5_table;
    for (Index bh = 0; bh < static_cast<Index>(B) * H; ++bh) {
      const int h = static_cast<int>(bh % H);
      for (int bk = 0; bk < c_.t5_buckets; ++bk) g[bk * H + h] += table_partials_[bh * part + bk];
    }
  } else if (deb) {
    // dKr, dQr [2s, d] from the partials in (b, h) order, then through Kr = R·Wkᵀ + bk, Qr = R·Wqᵀ + bq.
    std::fill(deb_dkr_.begin(), deb_dkr_.end(), 0.0f);
    std::fill(deb_dqr_.begin(), deb_dqr_.end(), 0.0f);
    for (Index bh = 0; bh < static_cast<Index>(B) * H; ++bh) {
      const int h = static_cast<int>(bh % H);
      const float* p = table_partials_.data() + bh * part;
      for (int cc = 0; cc < T; ++cc) {
        axpy(dh, 1.0f, p + static_cast<std::size_t>(cc) * dh, deb_dkr_.data() + static_cast<std::size_t>(cc) * d + h * dh);
        axpy(dh, 1.0f, p + static_cast<std::size_t>(T + cc) * dh, deb_dqr_.data() + static_cast<std::size_t>(cc) * d + h * dh);
      }
    }
    const float* R = params + o.deberta_rel;
    linear_backward(T, d, d, R, params + o.wk, deb_dkr_.data(), grads + o.deberta_rel, true, grads + o.wk, grads + o.bk);
    linear_backward(T, d, d, R, params + o.wq, deb_dqr_.data(), grads + o.deberta_rel, true, grads + o.wq, grads + o.bq);
  } else if (aK) {
    for (Index bh = 0; bh < static_cast<Index>(B) * H; ++bh) {
      const float* p = table_partials_.data() + bh * part;
      for (int t = 0; t < T * dh; ++t) grads[o.shaw_k_table + t] += p[t];
      if (aV)
        for (int t = 0; t < T * dh; ++t) grads[o.shaw_v_table + t] += p[T * dh + t];
    }
  }
}

namespace {
// Rotates the head slices of rows [N, d] (row r at position r mod L) by R(±p): interleaved pairs.
void rope_apply(int N, int L, int d, int dh, const float* cosv, const float* sinv, float* x, float sign) {
  parallel_for(0, N, kRowGrain, [&](Index b0, Index e0, int) {
    for (Index r = b0; r < e0; ++r) {
      const int p = static_cast<int>(r % L);
      for (int h0 = 0; h0 < d; h0 += dh)
        for (int i = 0; i < dh / 2; ++i) {
          const float c = cosv[p * dh / 2 + i], s = sign * sinv[p * dh / 2 + i];
          float* e = x + r * d + h0 + 2 * i;
          const float x0 = e[0], x1 = e[1];
          e[0] = x0 * c - x1 * s;
          e[1] = x1 * c + x0 * s;
        }
    }
  });
}

void add_rows(long n, const float* a, const float* b, float* y) {
  parallel_for(0, n, 4096, [&](Index b0, Index e0, int) {
    for (Index i = b0; i < e0; ++i) y[i] = a[i] + b[i];
  });
}
}  // namespace

double Trainer::forward(const std::vector<float>& P, const Batch& batch) {
  const int B = batch.batch, L = batch.len;
  if (B > maxB_ || L > maxL_ || B < 1 || L < 1) throw std::invalid_argument("batch shape exceeds the trainer workspace");
  if (static_cast<long>(P.size()) != layout_.total) throw std::invalid_argument("parameter vector has the wrong size");
  lastB_ = B;
  lastL_ = L;
  const int N = B * L, d = d_, F = F_, C = c_.classes;
  const float* p = P.data();
  // Embeddings (+ absolute positions).
  parallel_for(0, N, kRowGrain, [&](Index b0, Index e0, int) {
    for (Index r = b0; r < e0; ++r) {
      const int t = batch.tokens[r];
      if (t < 0 || t >= c_.vocab) throw std::invalid_argument("token out of range");
      const int pos = static_cast<int>(r % L);
      for (int i = 0; i < d; ++i) {
        float v = p[layout_.embed + static_cast<long>(t) * d + i];
        if (layout_.pos_table >= 0) v += p[layout_.pos_table + static_cast<long>(pos) * d + i];
        if (!sinusoid_.empty()) v += sinusoid_[static_cast<std::size_t>(pos) * d + i];
        x0_[r * d + i] = v;
      }
    }
  });
  const float* x = x0_.data();
  for (int l = 0; l < c_.layers; ++l) {
    LayerActs& a = acts_[l];
    const LayerOffsets& o = layout_.layers[l];
    std::copy(x, x + static_cast<long>(N) * d, a.in.data());
    const float* attn_in = a.in.data();
    if (c_.pre_ln) {
      layernorm_forward(N, d, a.in.data(), p + o.ln1_g, p + o.ln1_b, a.ln1.data(), a.ln1_mean.data(), a.ln1_rstd.data());
      attn_in = a.ln1.data();
    }
    linear_forward(N, d, d, attn_in, p + o.wq, p + o.bq, a.q.data());
    linear_forward(N, d, d, attn_in, p + o.wk, p + o.bk, a.k.data());
    linear_forward(N, d, d, attn_in, p + o.wv, p + o.bv, a.v.data());
    if (c_.scheme == PositionScheme::Rope) {
      rope_apply(N, L, d, dh_, rope_cos_.data(), rope_sin_.data(), a.q.data(), 1.0f);
      rope_apply(N, L, d, dh_, rope_cos_.data(), rope_sin_.data(), a.k.data(), 1.0f);
    }
    if (o.deberta_rel >= 0) {
      const int rows = 2 * c_.deberta_buckets;
      linear_forward(rows, d, d, p + o.deberta_rel, p + o.wk, p + o.bk, a.kr.data());
      linear_forward(rows, d, d, p + o.deberta_rel, p + o.wq, p + o.bq, a.qr.data());
    }
    attention_forward(p, o, a, B, L);
    linear_forward(N, d, d, a.ctx.data(), p + o.wo, p + o.bo, a.attn_out.data());
    add_rows(static_cast<long>(N) * d, a.in.data(), a.attn_out.data(), a.res1.data());
    const float* mlp_in;
    if (c_.pre_ln) {
      layernorm_forward(N, d, a.res1.data(), p + o.ln2_g, p + o.ln2_b, a.ln2.data(), a.ln2_mean.data(), a.ln2_rstd.data());
      mlp_in = a.ln2.data();
    } else {
      layernorm_forward(N, d, a.res1.data(), p + o.ln1_g, p + o.ln1_b, a.ln1.data(), a.ln1_mean.data(), a.ln1_rstd.data());
      mlp_in = a.ln1.data();
    }
    linear_forward(N, d, F, mlp_in, p + o.w1, p + o.b1, a.h1.data());
    parallel_for(0, static_cast<Index>(N) * F, 4096, [&](Index b0, Index e0, int) {
#if RELPOS_TRAIN_VECTOR_GELU
      gelu_forward(static_cast<std::size_t>(e0 - b0), a.h1.data() + b0, a.h1g.data() + b0);
#else
      for (Index i = b0; i < e0; ++i) a.h1g[i] = gelu_reference(a.h1[i]);
#endif
    });
    linear_forward(N, F, d, a.h1g.data(), p + o.w2, p + o.b2, a.mlp_out.data());
    if (c_.pre_ln) {
      add_rows(static_cast<long>(N) * d, a.res1.data(), a.mlp_out.data(), a.out.data());
    } else {
      add_rows(static_cast<long>(N) * d, a.ln1.data(), a.mlp_out.data(), a.mlp_out.data());  // mlp_out := res2
      layernorm_forward(N, d, a.mlp_out.data(), p + o.ln2_g, p + o.ln2_b, a.out.data(), a.ln2_mean.data(), a.ln2_rstd.data());
    }
    x = a.out.data();
  }
  const float* feat = x;
  if (c_.pre_ln) {
    layernorm_forward(N, d, x, p + layout_.lnf_g, p + layout_.lnf_b, final_.data(), lnf_mean_.data(), lnf_rstd_.data());
    feat = final_.data();
  }
  linear_forward(N, d, C, feat, p + layout_.head_w, p + layout_.head_b, logits_.data());
  // Cross-entropy, summed in row order in double.
  parallel_for(0, N, kRowGrain, [&](Index b0, Index e0, int) {
    for (Index r = b0; r < e0; ++r) {
      const float* lr = logits_.data() + r * C;
      float* pr = probs_out_.data() + r * C;
      const float m = kernels::rmax_f32(C, lr);
      const float s = kernels::raddstoreexpminusmax_f32(C, lr, m, pr);
      kernels::vscale_f32(C, pr, 1.0f / s);
    }
  });
  double loss = 0;
  int count = 0;
  for (int r = 0; r < N; ++r) {
    const int y = batch.labels[r];
    if (y < 0) continue;
    if (y >= C) throw std::invalid_argument("label out of range");
    const float* lr = logits_.data() + static_cast<long>(r) * C;
    const float m = *std::max_element(lr, lr + C);
    double s = 0;
    for (int k = 0; k < C; ++k) s += std::exp(static_cast<double>(lr[k]) - m);
    loss += std::log(s) + m - lr[y];
    ++count;
  }
  return count ? loss / count : 0.0;
}

double Trainer::accuracy(const Batch& batch) const {
  const int N = lastB_ * lastL_, C = c_.classes;
  int ok = 0, count = 0;
  for (int r = 0; r < N; ++r) {
    if (batch.labels[r] < 0) continue;
    const float* lr = logits_.data() + static_cast<long>(r) * C;
    ok += static_cast<int>(std::max_element(lr, lr + C) - lr) == batch.labels[r];
    ++count;
  }
  return count ? static_cast<double>(ok) / count : 0.0;
}

void Trainer::predictions(std::vector<std::int32_t>& out) const {
  const int N = lastB_ * lastL_, C = c_.classes;
  out.resize(N);
  for (int r = 0; r < N; ++r) {
    const float* lr = logits_.data() + static_cast<long>(r) * C;
    out[r] = static_cast<std::int32_t>(std::max_element(lr, lr + C) - lr);
  }
}

void Trainer::backward(const std::vector<float>& P, const Batch& batch, std::vector<float>& grads) {
  const int B = lastB_, L = lastL_, N = B * L, d = d_, F = F_, C = c_.classes;
  if (batch.batch != B || batch.len != L) throw std::invalid_argument("backward: batch differs from the last forward");
  grads.resize(layout_.total);
  std::fill(grads.begin(), grads.end(), 0.0f);
  const float* p = P.data();
  float* g = grads.data();
  int count = 0;
  for (int r = 0; r < N; ++r) count += batch.labels[r] >= 0;
  const float inv = count ? 1.0f / count : 0.0f;
  parallel_for(0, N, kRowGrain, [&](Index b0, Index e0, int) {
    for (Index r = b0; r < e0; ++r) {
      const int y = batch.labels[r];
      for (int k = 0; k < C; ++k) dlogits_[r * C + k] = y < 0 ? 0.0f : (probs_out_[r * C + k] - (k == y)) * inv;
    }
  });
  const float* last = c_.layers ? acts_.back().out.data() : x0_.data();
  if (c_.pre_ln) {
    linear_backward(N, d, C, final_.data(), p + layout_.head_w, dlogits_.data(), dtmp_.data(), false, g + layout_.head_w,
                    g + layout_.head_b);
    layernorm_backward(N, d, last, lnf_mean_.data(), lnf_rstd_.data(), p + layout_.lnf_g, dtmp_.data(), dx_.data(), false,
                       g + layout_.lnf_g, g + layout_.lnf_b);
  } else {
    linear_backward(N, d, C, last, p + layout_.head_w, dlogits_.data(), dx_.data(), false, g + layout_.head_w,
                    g + layout_.head_b);
  }
  for (int l = c_.layers - 1; l >= 0; --l) {
    LayerActs& a = acts_[l];
    const LayerOffsets& o = layout_.layers[l];
    // dx_ holds d(layer output). After the MLP part, dx_ holds d(res1).
    auto gelu_back = [&] {
      parallel_for(0, static_cast<Index>(N) * F, 4096, [&](Index b0, Index e0, int) {
#if RELPOS_TRAIN_VECTOR_GELU
        gelu_backward(static_cast<std::size_t>(e0 - b0), a.h1.data() + b0, dh1_.data() + b0);
#else
        for (Index i = b0; i < e0; ++i) dh1_[i] *= gelu_grad_reference(a.h1[i]);
#endif
      });
    };
    if (c_.pre_ln) {
      linear_backward(N, F, d, a.h1g.data(), p + o.w2, dx_.data(), dh1_.data(), false, g + o.w2, g + o.b2);
      gelu_back();
      linear_backward(N, d, F, a.ln2.data(), p + o.w1, dh1_.data(), dtmp_.data(), false, g + o.w1, g + o.b1);
      layernorm_backward(N, d, a.res1.data(), a.ln2_mean.data(), a.ln2_rstd.data(), p + o.ln2_g, dtmp_.data(), dx_.data(), true,
                         g + o.ln2_g, g + o.ln2_b);
    } else {
      layernorm_backward(N, d, a.mlp_out.data(), a.ln2_mean.data(), a.ln2_rstd.data(), p + o.ln2_g, dx_.data(), dmid_.data(),
                         false, g + o.ln2_g, g + o.ln2_b);  // dmid_ = d(res2) = d(ln1) from the residual
      linear_backward(N, F, d, a.h1g.data(), p + o.w2, dmid_.data(), dh1_.data(), false, g + o.w2, g + o.b2);
      gelu_back();
      linear_backward(N, d, F, a.ln1.data(), p + o.w1, dh1_.data(), dmid_.data(), true, g + o.w1, g + o.b1);
      layernorm_backward(N, d, a.res1.data(), a.ln1_mean.data(), a.ln1_rstd.data(), p + o.ln1_g, dmid_.data(), dx_.data(),
                         false, g + o.ln1_g, g + o.ln1_b);
    }
    // dx_ = d(res1) = d(in) (residual) + through attention.
    linear_backward(N, d, d, a.ctx.data(), p + o.wo, dx_.data(), dctx_.data(), false, g + o.wo, g + o.bo);
    attention_backward(p, o, a, B, L, g);
    if (c_.scheme == PositionScheme::Rope) {
      rope_apply(N, L, d, dh_, rope_cos_.data(), rope_sin_.data(), dq_.data(), -1.0f);
      rope_apply(N, L, d, dh_, rope_cos_.data(), rope_sin_.data(), dk_.data(), -1.0f);
    }
    const float* attn_in = c_.pre_ln ? a.ln1.data() : a.in.data();
    float* d_attn_in = c_.pre_ln ? dtmp_.data() : dx_.data();
    const bool acc_first = !c_.pre_ln;  // post-LN: add to d(in) already in dx_
    linear_backward(N, d, d, attn_in, p + o.wq, dq_.data(), d_attn_in, acc_first, g + o.wq, g + o.bq);
    linear_backward(N, d, d, attn_in, p + o.wk, dk_.data(), d_attn_in, true, g + o.wk, g + o.bk);
    linear_backward(N, d, d, attn_in, p + o.wv, dv_.data(), d_attn_in, true, g + o.wv, g + o.bv);
    if (c_.pre_ln)
      layernorm_backward(N, d, a.in.data(), a.ln1_mean.data(), a.ln1_rstd.data(), p + o.ln1_g, dtmp_.data(), dx_.data(), true,
                         g + o.ln1_g, g + o.ln1_b);
  }
  // Embeddings and learned positions: serial, row order.
  for (int r = 0; r < N; ++r) {
    const int t = batch.tokens[r], pos = r % L;
    axpy(d, 1.0f, dx_.data() + static_cast<long>(r) * d, g + layout_.embed + static_cast<long>(t) * d);
    if (layout_.pos_table >= 0) axpy(d, 1.0f, dx_.data() + static_cast<long>(r) * d, g + layout_.pos_table + static_cast<long>(pos) * d);
  }
}

double Trainer::forward_flops(int B, int L) const {
  const double N = static_cast<double>(B) * L, d = d_, F = F_;
  const double pairs = static_cast<double>(B) * H_ * (c_.causal ? L * (L + 1) / 2.0 : static_cast<double>(L) * L);
  double per_layer = 2 * N * (4 * d * d + 2 * d * F) + 2 * 2 * pairs * dh_;
  if (c_.scheme == PositionScheme::Shaw) per_layer += 2 * N * H_ * (2.0 * c_.shaw_k + 1) * dh_ * (c_.shaw_values ? 2 : 1);
  if (c_.scheme == PositionScheme::Deberta)  // c2p per (row, bucket), p2c per pair, Kr/Qr projections
    per_layer += 2 * N * H_ * 2.0 * c_.deberta_buckets * dh_ + 2 * pairs * dh_ + 2 * 2 * (2.0 * c_.deberta_buckets) * d * d;
  return c_.layers * per_layer + 2 * N * d * c_.classes;
}

}  // namespace relpos::train
