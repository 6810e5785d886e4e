// ModernBERT (model_type "modernbert") against the Transformers v4.48.0 fixtures in
// ../shared/fixtures/hf-families/modernbert-{a,b} and against a float64 re-derivation written here from the
// fixture README's conventions (pre-LN, layer 0 without attn_norm, fused Wqkv, rotate_half RoPE with the
// global / local theta, sliding window |i − j| ≤ local_attention // 2 on local layers, GeGLU, final_norm):
//   - both fixtures: hidden_states.i (residual stream, before final_norm) and last_hidden_state ≤ 1e-4,
//     attention probabilities ≤ 1e-5, and exactly 0 outside the window and on padded keys; the float64
//     reference itself reproduces the fixtures (≤ 1e-4), which is what licenses the checks below;
//   - relpos::rope_tables(Half, θ) = aux.rope_{cos,sin}_{global,local} ≤ 5e-5;
//   - local_attention 9 (odd) gives bitwise the outputs of 8; 0 lets each token see only itself; 1000 (more
//     than the sequence) matches the reference with no window; 7 (odd, half-window 3) matches the reference;
//   - a 600-token batch (longer than max_position_embeddings 512, which ModernBERT does not enforce; several
//     MLP row blocks; the streaming attention path without output_attentions) matches the reference ≤ 1e-4;
//   - q8 weights stay close to fp32 (max |Δ| / max |fp32| ≤ 0.15, mean-pooled cosine ≥ 0.999, fewer bytes);
//   - outputs are bitwise identical for 1, 2 and 3 threads (fp32 and q8);
//   - task heads (ModernBertForSequenceClassification cls / mean, ForTokenClassification, ForMaskedLM with the
//     tied decoder) with small deterministic head weights and "model."-prefixed encoder weights match a
//     float64 evaluation of the head formulas on the model's last_hidden_state ≤ 1e-4 (relative to max(1, |ref|)).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "fixture_files.h"
#include "hf_fixture_support.h"
#include "relpos/error.h"
#include "relpos/heads.h"
#include "relpos/model.h"
#include "relpos/positions.h"
#include "relpos/safetensors.h"
#include "relpos/threads.h"
#include "test_support.h"

using ts::bitwise_equal;
using ts::ThreadCountGuard;

namespace {

using nlohmann::json;
using relpos_test::read_text;

std::string family_dir(const std::string& name) {
  return std::string(RELPOS_SHARED_DIR) + "/fixtures/hf-families/" + name + "/";
}

// A checkpoint seen under a name prefix ("model." as task checkpoints store the encoder), plus extra
// float32 tensors at the top level (a head).
class Checkpoint final : public relpos::Weights {
 public:
  Checkpoint(const relpos::Weights& inner, std::string prefix) : inner_(inner), prefix_(std::move(prefix)) {}
  void add(const std::string& name, std::vector<std::int64_t> shape, std::vector<float> values) {
    relpos::TensorInfo info;
    info.name = name;
    info.shape = shape;
    info.nbytes = values.size() * 4;
    infos_[name] = info;
    values_[name] = std::move(values);
  }
  bool contains(const std::string& name) const override {
    return infos_.count(name) || (strip(name) && inner_.contains(name.substr(prefix_.size())));
  }
  const relpos::TensorInfo& info(const std::string& name) const override {
    auto it = infos_.find(name);
    if (it != infos_.end()) return it->second;
    if (!strip(name)) throw relpos::Error(relpos::ErrorKind::Value, "no tensor " + name);
    return inner_.info(name.substr(prefix_.size()));
  }
  std::vector<std::string> names() const override {
    std::vector<std::string> out;
    for (const auto& n : inner_.names()) out.push_back(prefix_ + n);
    for (const auto& kv : infos_) out.push_back(kv.first);
    return out;
  }
  std::vector<float> to_f32(const std::string& name) const override {
    auto it = values_.find(name);
    if (it != values_.end()) return it->second;
    if (!strip(name)) throw relpos::Error(relpos::ErrorKind::Value, "no tensor " + name);
    return inner_.to_f32(name.substr(prefix_.size()));
  }
  std::vector<std::int64_t> to_i64(const std::string& name) const override { return inner_.to_i64(name.substr(prefix_.size())); }
  const std::string& file_name() const override { return inner_.file_name(); }

 private:
  bool strip(const std::string& name) const { return name.compare(0, prefix_.size(), prefix_) == 0; }
  const relpos::Weights& inner_;
  std::string prefix_;
  std::map<std::string, relpos::TensorInfo> infos_;
  std::map<std::string, std::vector<float>> values_;
};

// A fixture's input.json as [B, L] rows (hf_fixture_support.h).
using Batch = relpos_test::FixtureBatch;

// Two rows of L random ids in [4, vocab); the second right-padded (pad 3) to `second` real tokens.
Batch random_batch(int L, int second, int vocab, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> id(4, vocab - 1);
  Batch b;
  b.B = 2;
  b.L = L;
  b.lengths = {L, second};
  for (int r = 0; r < 2; ++r)
    for (int l = 0; l < L; ++l) {
      const bool real = l < b.lengths[r];
      b.ids.push_back(real ? id(rng) : 3);
      b.mask.push_back(real ? 1 : 0);
    }
  return b;
}

// ---- float64 re-derivation of ModernBertModel (one sequence at a time, its real tokens only) ----------
struct Ref {
  std::vector<std::vector<double>> hidden;  // n_layers + 1 entries, [B, L, H] (padded rows 0)
  std::vector<double> last;                 // [B, L, H]
  std::vector<std::vector<double>> probs;   // n_layers entries, [B, heads, L, L]
};

std::vector<double> f64(const relpos::Weights& w, const std::string& name) {
  const auto v = w.to_f32(name);
  return std::vector<double>(v.begin(), v.end());
}

// y[r, o] = Σ_i x[r, i] W[o, i] + b[o]
std::vector<double> linear(const std::vector<double>& x, int rows, int in, const std::vector<double>& W, int out,
                           const std::vector<double>* b) {
  std::vector<double> y(static_cast<std::size_t>(rows) * out);
  for (int r = 0; r < rows; ++r)
    for (int o = 0; o < out; ++o) {
      double s = b ? (*b)[o] : 0.0;
      for (int i = 0; i < in; ++i) s += x[static_cast<std::size_t>(r) * in + i] * W[static_cast<std::size_t>(o) * in + i];
      y[static_cast<std::size_t>(r) * out + o] = s;
    }
  return y;
}

std::vector<double> layer_norm(const std::vector<double>& x, int rows, int dim, const std::vector<double>& g,
                               const std::vector<double>* b, double eps) {
  std::vector<double> y(x.size());
  for (int r = 0; r < rows; ++r) {
    const double* xr = x.data() + static_cast<std::size_t>(r) * dim;
    double mean = 0, var = 0;
    for (int i = 0; i < dim; ++i) mean += xr[i];
    mean /= dim;
    for (int i = 0; i < dim; ++i) var += (xr[i] - mean) * (xr[i] - mean);
    var /= dim;
    for (int i = 0; i < dim; ++i)
      y[static_cast<std::size_t>(r) * dim + i] = (xr[i] - mean) / std::sqrt(var + eps) * g[i] + (b ? (*b)[i] : 0.0);
  }
  return y;
}

double act64(const std::string& name, double x) {
  if (name == "gelu") return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
  if (name == "silu") return x / (1.0 + std::exp(-x));
  if (name == "relu") return x > 0 ? x : 0.0;
  FAIL("test reference: activation " << name);
  return 0;
}

Ref reference(const relpos::ModelConfig& c, const relpos::Weights& w, const Batch& in) {
  const int H = c.hidden_size, I = c.intermediate_size, heads = c.num_heads, d = c.head_dim, L = in.L, B = in.B;
  const double eps = c.norm_eps;
  auto opt = [&](bool flag, const std::string& name) { return flag ? f64(w, name) : std::vector<double>(); };
  Ref out;
  out.hidden.assign(c.num_layers + 1, std::vector<double>(static_cast<std::size_t>(B) * L * H, 0.0));
  out.last.assign(static_cast<std::size_t>(B) * L * H, 0.0);
  out.probs.assign(c.num_layers, std::vector<double>(static_cast<std::size_t>(B) * heads * L * L, 0.0));
  const auto tok = f64(w, "embeddings.tok_embeddings.weight");
  for (int b = 0; b < B; ++b) {
    const int n = in.lengths[b];
    std::vector<double> h(static_cast<std::size_t>(n) * H);
    for (int l = 0; l < n; ++l)
      for (int e = 0; e < H; ++e) h[static_cast<std::size_t>(l) * H + e] = tok[static_cast<std::size_t>(in.ids[b * L + l]) * H + e];
    {
      const auto nb = opt(c.norm_bias, "embeddings.norm.bias");
      h = layer_norm(h, n, H, f64(w, "embeddings.norm.weight"), c.norm_bias ? &nb : nullptr, eps);
    }
    auto record = [&](std::vector<double>& dst, const std::vector<double>& src) {
      std::copy(src.begin(), src.end(), dst.begin() + static_cast<std::size_t>(b) * L * H);
    };
    record(out.hidden[0], h);
    for (int layer = 0; layer < c.num_layers; ++layer) {
      const std::string p = "layers." + std::to_string(layer) + ".";
      const bool global = layer % c.global_attn_every_n_layers == 0;
      const int window = c.local_attention / 2;
      const double theta = global ? c.global_rope_theta : c.local_rope_theta;
      std::vector<double> x = h;
      if (layer > 0) {
        const auto nb = opt(c.norm_bias, p + "attn_norm.bias");
        x = layer_norm(h, n, H, f64(w, p + "attn_norm.weight"), c.norm_bias ? &nb : nullptr, eps);
      }
      const auto bqkv = opt(c.attention_bias, p + "attn.Wqkv.bias");
      auto qkv = linear(x, n, H, f64(w, p + "attn.Wqkv.weight"), 3 * H, c.attention_bias ? &bqkv : nullptr);
      // RoPE, rotate_half: pairs (k, k + d/2), angle p·θ^(−2k/d), on q and k
      for (int l = 0; l < n; ++l)
        for (int part = 0; part < 2; ++part)
          for (int hd = 0; hd < heads; ++hd) {
            double* v = qkv.data() + static_cast<std::size_t>(l) * 3 * H + part * H + hd * d;
            for (int k = 0; k < d / 2; ++k) {
              const double a = l * std::pow(theta, -2.0 * k / d);
              const double x1 = v[k], x2 = v[k + d / 2];
              v[k] = x1 * std::cos(a) - x2 * std::sin(a);
              v[k + d / 2] = x2 * std::cos(a) + x1 * std::sin(a);
            }
          }
      std::vector<double> ctx(static_cast<std::size_t>(n) * H, 0.0);
      for (int hd = 0; hd < heads; ++hd)
        for (int i = 0; i < n; ++i) {
          std::vector<double> s(n, 0.0);
          double mx = -1e300;
          for (int j = 0; j < n; ++j) {
            if (!global && std::abs(i - j) > window) continue;
            double dot = 0;
            for (int e = 0; e < d; ++e)
              dot += qkv[static_cast<std::size_t>(i) * 3 * H + hd * d + e] * qkv[static_cast<std::size_t>(j) * 3 * H + H + hd * d + e];
            s[j] = dot / std::sqrt(static_cast<double>(d));
            mx = std::max(mx, s[j]);
          }
          double z = 0;
          for (int j = 0; j < n; ++j) {
            const bool allowed = global || std::abs(i - j) <= window;
            s[j] = allowed ? std::exp(s[j] - mx) : 0.0;
            z += s[j];
          }
          for (int j = 0; j < n; ++j) {
            const double pij = s[j] / z;
            out.probs[layer][((static_cast<std::size_t>(b) * heads + hd) * L + i) * L + j] = pij;
            for (int e = 0; e < d; ++e)
              ctx[static_cast<std::size_t>(i) * H + hd * d + e] += pij * qkv[static_cast<std::size_t>(j) * 3 * H + 2 * H + hd * d + e];
          }
        }
      const auto bo = opt(c.attention_bias, p + "attn.Wo.bias");
      const auto o = linear(ctx, n, H, f64(w, p + "attn.Wo.weight"), H, c.attention_bias ? &bo : nullptr);
      for (std::size_t k = 0; k < h.size(); ++k) h[k] += o[k];
      const auto mb = opt(c.norm_bias, p + "mlp_norm.bias");
      const auto m = layer_norm(h, n, H, f64(w, p + "mlp_norm.weight"), c.norm_bias ? &mb : nullptr, eps);
      const auto bi = opt(c.mlp_bias, p + "mlp.Wi.bias");
      const auto ug = linear(m, n, H, f64(w, p + "mlp.Wi.weight"), 2 * I, c.mlp_bias ? &bi : nullptr);
      std::vector<double> gated(static_cast<std::size_t>(n) * I);
      for (int l = 0; l < n; ++l)
        for (int k = 0; k < I; ++k)
          gated[static_cast<std::size_t>(l) * I + k] =
              act64(c.hidden_act, ug[static_cast<std::size_t>(l) * 2 * I + k]) * ug[static_cast<std::size_t>(l) * 2 * I + I + k];
      const auto bo2 = opt(c.mlp_bias, p + "mlp.Wo.bias");
      const auto y = linear(gated, n, I, f64(w, p + "mlp.Wo.weight"), H, c.mlp_bias ? &bo2 : nullptr);
      for (std::size_t k = 0; k < h.size(); ++k) h[k] += y[k];
      record(out.hidden[layer + 1], h);
    }
    const auto fb = opt(c.norm_bias, "final_norm.bias");
    record(out.last, layer_norm(h, n, H, f64(w, "final_norm.weight"), c.norm_bias ? &fb : nullptr, eps));
  }
  return out;
}

// Max |a − e| over the real tokens [b, :n_b, :] of a [B, L, W] tensor.
template <class E>
double hidden_error(const relpos::Tensor& a, const std::vector<E>& e, const std::vector<int>& lengths) {
  const int B = a.shape[0], L = a.shape[1], W = a.shape[2];
  REQUIRE(a.data.size() == e.size());
  double worst = 0;
  for (int b = 0; b < B; ++b)
    for (int l = 0; l < lengths[b]; ++l)
      for (int c = 0; c < W; ++c) {
        const std::size_t i = (static_cast<std::size_t>(b) * L + l) * W + c;
        const double d = std::fabs(static_cast<double>(a.data[i]) - static_cast<double>(e[i]));
        worst = std::isnan(d) ? 1e30 : std::max(worst, d);
      }
  return worst;
}

// Max |a − e| over [b, :, :n_b, :n_b] of [B, heads, L, L] probabilities.
template <class E>
double probs_error(const relpos::Tensor& a, const std::vector<E>& e, const std::vector<int>& lengths) {
  const int B = a.shape[0], Hh = a.shape[1], L = a.shape[2];
  REQUIRE(a.data.size() == e.size());
  double worst = 0;
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < Hh; ++h)
      for (int i = 0; i < lengths[b]; ++i)
        for (int j = 0; j < lengths[b]; ++j) {
          const std::size_t k = ((static_cast<std::size_t>(b) * Hh + h) * L + i) * L + j;
          const double d = std::fabs(static_cast<double>(a.data[k]) - static_cast<double>(e[k]));
          worst = std::isnan(d) ? 1e30 : std::max(worst, d);
        }
  return worst;
}

// Every probability of a real query row that a key outside |i − j| ≤ window (window < 0: none) or a padded
// key gets must be exactly 0; returns how many are not.
int nonzero_outside(const relpos::Tensor& p, const std::vector<int>& lengths, int window) {
  const int B = p.shape[0], Hh = p.shape[1], L = p.shape[2];
  int bad = 0;
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < Hh; ++h)
      for (int i = 0; i < lengths[b]; ++i)
        for (int j = 0; j < L; ++j) {
          const bool allowed = j < lengths[b] && (window < 0 || std::abs(i - j) <= window);
          if (!allowed && p.data[((static_cast<std::size_t>(b) * Hh + h) * L + i) * L + j] != 0.0f) ++bad;
        }
  return bad;
}

relpos::ModelOutput run(relpos::Model& m, const Batch& in, bool outputs = true) {
  relpos::ForwardOptions o;
  o.output_hidden_states = outputs;
  o.output_attentions = outputs;
  return m.forward(in.B, in.L, in.ids.data(), in.mask.data(), o);
}

std::string with(const std::string& config, const json& changes) {
  json j = json::parse(config);
  for (auto it = changes.begin(); it != changes.end(); ++it) j[it.key()] = it.value();
  return j.dump();
}

}  // namespace

TEST_CASE("modernbert fixtures match Transformers 4.48 (hidden states, attentions, window zeros)", "[hf-fixture][modernbert]") {
  for (const char* name : {"modernbert-a", "modernbert-b"}) {
    SECTION(name) {
      const std::string dir = family_dir(name);
      const std::string config = read_text(dir + "config.json");
      const auto weights = relpos::SafeTensors::read_file(dir + "model.safetensors");
      const auto expected = relpos::SafeTensors::read_file(dir + "expected.safetensors");
      const Batch in = relpos_test::read_fixture_batch(dir);
      auto model = relpos::load_model(config, weights);
      const relpos::ModelConfig& c = model->config();
      CHECK(model->max_sequence() == 0);
      const auto out = run(*model, in);
      const int n = c.num_layers;
      REQUIRE(static_cast<int>(out.hidden_states.size()) == n + 1);
      REQUIRE(static_cast<int>(out.attentions.size()) == n);
      const Ref ref = reference(c, weights, in);
      double hidden = 0, attention = 0, ref_hidden = 0, ref_attention = 0;
      const auto local = expected.to_i64("aux.local_attention");
      for (int i = 0; i <= n; ++i) {
        const auto e = expected.to_f32("hidden_states." + std::to_string(i));
        const double err = hidden_error(out.hidden_states[i], e, in.lengths);
        INFO("hidden_states." << i << " max abs error " << err);
        CHECK(err <= 1e-4);
        hidden = std::max(hidden, err);
        relpos::Tensor as_ref{out.hidden_states[i].shape, std::vector<float>(e.begin(), e.end())};
        ref_hidden = std::max(ref_hidden, hidden_error(as_ref, ref.hidden[i], in.lengths));
      }
      {
        const auto e = expected.to_f32("last_hidden_state");
        const double err = hidden_error(out.last_hidden_state, e, in.lengths);
        INFO("last_hidden_state max abs error " << err);
        CHECK(err <= 1e-4);
        hidden = std::max(hidden, err);
        relpos::Tensor as_ref{out.last_hidden_state.shape, std::vector<float>(e.begin(), e.end())};
        ref_hidden = std::max(ref_hidden, hidden_error(as_ref, ref.last, in.lengths));
      }
      for (int i = 0; i < n; ++i) {
        const auto e = expected.to_f32("attentions." + std::to_string(i));
        const double err = probs_error(out.attentions[i], e, in.lengths);
        INFO("attentions." << i << " max abs error " << err);
        CHECK(err <= 1e-5);
        attention = std::max(attention, err);
        relpos::Tensor as_ref{out.attentions[i].shape, std::vector<float>(e.begin(), e.end())};
        ref_attention = std::max(ref_attention, probs_error(as_ref, ref.probs[i], in.lengths));
        // the layer kind HF used (aux.local_attention: −1 global, w // 2 local) is the rule relpos applies
        const bool global = i % c.global_attn_every_n_layers == 0;
        CHECK(local[2 * i] == (global ? -1 : c.local_attention / 2));
        CHECK(nonzero_outside(out.attentions[i], in.lengths, global ? -1 : c.local_attention / 2) == 0);
      }
      // the float64 reference used by the tests below reproduces Hugging Face too
      CHECK(ref_hidden <= 1e-4);
      CHECK(ref_attention <= 1e-5);
      std::printf("[hf-family %s] %-14s hidden max err %.3g, attention max err %.3g (float64 reference vs HF: %.3g, %.3g)\n",
                  RELPOS_VARIANT, name, hidden, attention, ref_hidden, ref_attention);
    }
  }
}

TEST_CASE("modernbert rope tables match the fixtures' global and local rotary tables", "[hf-fixture][modernbert]") {
  for (const char* name : {"modernbert-a", "modernbert-b"}) {
    SECTION(name) {
      const std::string dir = family_dir(name);
      const auto c = relpos::parse_model_config(read_text(dir + "config.json"));
      const auto expected = relpos::SafeTensors::read_file(dir + "expected.safetensors");
      const int L = relpos_test::read_fixture_batch(dir).L;
      for (const char* kind : {"global", "local"}) {
        std::vector<float> cos, sin;
        relpos::rope_tables(L, c.head_dim, relpos::RopeLayout::Half,
                            std::string(kind) == "global" ? c.global_rope_theta : c.local_rope_theta, cos, sin);
        const auto ec = expected.to_f32(std::string("aux.rope_cos_") + kind);
        const auto es = expected.to_f32(std::string("aux.rope_sin_") + kind);
        REQUIRE(cos.size() == ec.size());
        double err = 0;
        for (std::size_t i = 0; i < ec.size(); ++i)
          err = std::max({err, std::fabs(static_cast<double>(cos[i]) - ec[i]), std::fabs(static_cast<double>(sin[i]) - es[i])});
        INFO(kind << " table max abs error " << err);
        CHECK(err <= 5e-5);
      }
    }
  }
}

TEST_CASE("modernbert local_attention: odd values floor, 0 sees itself, wider than the sequence is global", "[modernbert]") {
  const std::string dir = family_dir("modernbert-a");  // local_attention 8, layers 1 and 2 local
  const std::string config = read_text(dir + "config.json");
  const auto weights = relpos::SafeTensors::read_file(dir + "model.safetensors");
  const Batch in = relpos_test::read_fixture_batch(dir);
  auto check_against_reference = [&](int local_attention) {
    auto model = relpos::load_model(with(config, {{"local_attention", local_attention}}), weights);
    const auto out = run(*model, in);
    const Ref ref = reference(model->config(), weights, in);
    double hidden = hidden_error(out.last_hidden_state, ref.last, in.lengths), attention = 0;
    for (std::size_t i = 0; i < out.attentions.size(); ++i) {
      hidden = std::max(hidden, hidden_error(out.hidden_states[i], ref.hidden[i], in.lengths));
      attention = std::max(attention, probs_error(out.attentions[i], ref.probs[i], in.lengths));
      const bool global = i % model->config().global_attn_every_n_layers == 0;
      CHECK(nonzero_outside(out.attentions[i], in.lengths, global ? -1 : local_attention / 2) == 0);
    }
    INFO("local_attention " << local_attention << ": hidden " << hidden << ", attention " << attention);
    CHECK(hidden <= 1e-4);
    CHECK(attention <= 1e-5);
    return out;
  };
  SECTION("odd 9 gives exactly the outputs of 8") {
    const auto nine = check_against_reference(9);
    auto eight = relpos::load_model(config, weights);
    const auto e = run(*eight, in);
    CHECK(bitwise_equal(nine.last_hidden_state.data, e.last_hidden_state.data));
    for (std::size_t i = 0; i < e.attentions.size(); ++i) CHECK(bitwise_equal(nine.attentions[i].data, e.attentions[i].data));
  }
  SECTION("odd 7 (half-window 3)") { check_against_reference(7); }
  SECTION("0: every token attends only to itself on local layers") {
    const auto out = check_against_reference(0);
    const auto& p = out.attentions[1];  // layer 1 is local
    const int Hh = p.shape[1], L = p.shape[2];
    for (int b = 0; b < in.B; ++b)
      for (int h = 0; h < Hh; ++h)
        for (int i = 0; i < in.lengths[b]; ++i) CHECK(p.data[((static_cast<std::size_t>(b) * Hh + h) * L + i) * L + i] == 1.0f);
  }
  SECTION("1000, more than the sequence: no key is cut off") {
    const auto out = check_against_reference(1000);
    const auto& p = out.attentions[2];  // local layer: keys beyond the fixture's half-window 4 are attended
    const int Hh = p.shape[1], L = p.shape[2];
    int far = 0;
    for (int b = 0; b < in.B; ++b)
      for (int h = 0; h < Hh; ++h)
        for (int i = 0; i < in.lengths[b]; ++i)
          for (int j = 0; j < in.lengths[b]; ++j)
            far += std::abs(i - j) > 4 && p.data[((static_cast<std::size_t>(b) * Hh + h) * L + i) * L + j] > 0.0f;
    CHECK(far > 0);
  }
}

TEST_CASE("modernbert runs a 600-token batch (streaming attention, MLP row blocks) like the float64 reference", "[modernbert]") {
  const std::string dir = family_dir("modernbert-b");  // biases everywhere; max_position_embeddings 512
  const auto weights = relpos::SafeTensors::read_file(dir + "model.safetensors");
  auto model = relpos::load_model(read_text(dir + "config.json"), weights);
  const Batch in = random_batch(600, 371, model->config().vocab_size, 11);
  relpos::ForwardOptions o;
  o.output_hidden_states = true;  // no attentions: the streaming path a long document takes
  const auto out = model->forward(in.B, in.L, in.ids.data(), in.mask.data(), o);
  const Ref ref = reference(model->config(), weights, in);
  double err = hidden_error(out.last_hidden_state, ref.last, in.lengths);
  for (std::size_t i = 0; i < out.hidden_states.size(); ++i) err = std::max(err, hidden_error(out.hidden_states[i], ref.hidden[i], in.lengths));
  INFO("max abs error " << err);
  CHECK(err <= 1e-4);
}

TEST_CASE("modernbert with 8-bit weights stays close to fp32", "[q8][modernbert]") {
  for (const char* name : {"modernbert-a", "modernbert-b"}) {
    SECTION(name) {
      const std::string dir = family_dir(name);
      const std::string config = read_text(dir + "config.json");
      const auto weights = relpos::SafeTensors::read_file(dir + "model.safetensors");
      const Batch in = relpos_test::read_fixture_batch(dir);
      relpos::LoadOptions q8;
      q8.dtype = relpos::WeightFormat::Q8;
      auto ref = relpos::load_model(config, weights);
      auto quant = relpos::load_model(config, weights, q8);
      const auto r = run(*ref, in, false), q = run(*quant, in, false);
      const int H = r.last_hidden_state.shape[2];
      double max_abs = 0, ref_max = 0, min_cos = 1;
      for (int b = 0; b < in.B; ++b) {
        std::vector<double> mr(H, 0.0), mq(H, 0.0);
        for (int l = 0; l < in.lengths[b]; ++l)
          for (int c = 0; c < H; ++c) {
            const std::size_t i = (static_cast<std::size_t>(b) * in.L + l) * H + c;
            const double x = r.last_hidden_state.data[i], y = q.last_hidden_state.data[i];
            max_abs = std::isnan(y) ? 1e30 : std::max(max_abs, std::fabs(x - y));
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
        min_cos = std::min(min_cos, dot / std::sqrt(nr * nq));
      }
      const double bytes = static_cast<double>(quant->weight_bytes()) / static_cast<double>(ref->weight_bytes());
      std::printf("[q8-accuracy %s] %-14s max abs %.3g, rel %.3g, min cosine %.6f, bytes %.3f of fp32\n", RELPOS_VARIANT,
                  name, max_abs, max_abs / ref_max, min_cos, bytes);
      CHECK(max_abs / ref_max <= 0.15);
      CHECK(min_cos >= 0.999);
      CHECK(bytes < 1.0);
    }
  }
}

TEST_CASE("modernbert results are bitwise identical for 1, 2 and 3 threads", "[threads][modernbert]") {
  ThreadCountGuard guard;
  const std::string dir = family_dir("modernbert-b");
  const std::string config = read_text(dir + "config.json");
  const auto weights = relpos::SafeTensors::read_file(dir + "model.safetensors");
  for (relpos::WeightFormat dtype : {relpos::WeightFormat::F32, relpos::WeightFormat::Q8}) {
    relpos::LoadOptions options;
    options.dtype = dtype;
    auto model = relpos::load_model(config, weights, options);
    for (const Batch& in : {relpos_test::read_fixture_batch(dir), random_batch(300, 170, 100, 5)}) {
      const bool small = in.L < 100;
      std::vector<relpos::ModelOutput> outs;
      for (int threads : {1, 2, 3}) {
        relpos::set_num_threads(threads);
        outs.push_back(run(*model, in, small));
      }
      REQUIRE(ts::all_finite(outs[0].last_hidden_state.data));
      for (std::size_t t = 1; t < outs.size(); ++t) {
        INFO(relpos::weight_format_name(dtype) << ", seq " << in.L << ", threads " << t + 1 << " vs 1");
        CHECK(bitwise_equal(outs[t].last_hidden_state.data, outs[0].last_hidden_state.data));
        REQUIRE(outs[t].hidden_states.size() == outs[0].hidden_states.size());
        for (std::size_t i = 0; i < outs[0].hidden_states.size(); ++i)
          CHECK(bitwise_equal(outs[t].hidden_states[i].data, outs[0].hidden_states[i].data));
        for (std::size_t i = 0; i < outs[0].attentions.size(); ++i)
          CHECK(bitwise_equal(outs[t].attentions[i].data, outs[0].attentions[i].data));
      }
    }
  }
}

namespace {

// Small deterministic head weights: head.dense (bias iff classifier_bias), head.norm (bias iff norm_bias),
// classifier [labels, H] + bias.
void add_prediction_head(Checkpoint& w, const relpos::ModelConfig& c, bool classifier, int labels) {
  const std::int64_t H = c.hidden_size;
  w.add("head.dense.weight", {H, H}, ts::random_vector(H * H, 201, 0.25f));
  if (c.classifier_bias) w.add("head.dense.bias", {H}, ts::random_vector(H, 202, 0.1f));
  auto gain = ts::random_vector(H, 203, 0.1f);
  for (auto& g : gain) g += 1.0f;
  w.add("head.norm.weight", {H}, gain);
  if (c.norm_bias) w.add("head.norm.bias", {H}, ts::random_vector(H, 204, 0.1f));
  if (classifier) {
    w.add("classifier.weight", {labels, H}, ts::random_vector(static_cast<std::size_t>(labels) * H, 205, 0.3f));
    w.add("classifier.bias", {labels}, ts::random_vector(labels, 206, 0.1f));
  }
}

// t = norm(act(dense(x))) for one row, in float64, from the checkpoint's head tensors.
std::vector<double> head_transform(const relpos::ModelConfig& c, const relpos::Weights& w, const std::vector<double>& x) {
  const int H = c.hidden_size;
  const auto db = c.classifier_bias ? f64(w, "head.dense.bias") : std::vector<double>();
  auto t = linear(x, 1, H, f64(w, "head.dense.weight"), H, c.classifier_bias ? &db : nullptr);
  for (auto& v : t) v = act64(c.classifier_activation, v);
  const auto nb = c.norm_bias ? f64(w, "head.norm.bias") : std::vector<double>();
  return layer_norm(t, 1, H, f64(w, "head.norm.weight"), c.norm_bias ? &nb : nullptr, c.norm_eps);
}

// max |got − ref| / max(1, |ref|)
double head_error(const std::vector<float>& got, const std::vector<double>& ref) {
  REQUIRE(got.size() == ref.size());
  double worst = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double e = std::fabs(got[i] - ref[i]) / std::max(1.0, std::fabs(ref[i]));
    worst = std::isnan(e) ? 1e30 : std::max(worst, e);
  }
  return worst;
}

}  // namespace

TEST_CASE("modernbert task heads match a float64 evaluation of the v4.48 head formulas", "[heads][modernbert]") {
  for (const char* name : {"modernbert-a", "modernbert-b"}) {
    const std::string dir = family_dir(name);
    const std::string base = read_text(dir + "config.json");
    const auto file = relpos::SafeTensors::read_file(dir + "model.safetensors");
    const Batch in = relpos_test::read_fixture_batch(dir);
    // b: classifier_bias on and a SiLU head, to show both settings are read
    const bool b_case = std::string(name) == "modernbert-b";
    const json head_settings = b_case ? json{{"classifier_bias", true}, {"classifier_activation", "silu"}} : json::object();
    const int labels = 3;

    for (const char* arch : {"ModernBertForSequenceClassification/cls", "ModernBertForSequenceClassification/mean",
                             "ModernBertForTokenClassification", "ModernBertForMaskedLM"}) {
      SECTION(std::string(name) + " " + arch) {
        const std::string a(arch);
        const std::string cls = a.substr(0, a.find('/'));
        json changes = head_settings;
        changes["architectures"] = json::array({cls});
        if (a.find("/mean") != std::string::npos) changes["classifier_pooling"] = "mean";
        if (cls != "ModernBertForMaskedLM") changes["id2label"] = json{{"0", "neg"}, {"1", "neutral"}, {"2", "pos"}};
        const std::string config = with(base, changes);
        const auto c = relpos::parse_model_config(config);
        Checkpoint w(file, "model.");
        const bool mlm = cls == "ModernBertForMaskedLM";
        add_prediction_head(w, c, !mlm, labels);
        if (mlm) w.add("decoder.bias", {c.vocab_size}, ts::random_vector(c.vocab_size, 207, 0.2f));
        for (relpos::WeightFormat dtype : {relpos::WeightFormat::F32, relpos::WeightFormat::Q8}) {
          relpos::LoadOptions options;
          options.dtype = dtype;
          auto model = relpos::load_model(config, w, options);
          auto head = relpos::load_task_head(config, *model, w, options);
          REQUIRE(head);
          const auto out = run(*model, in, false);
          const int H = c.hidden_size, L = in.L;
          const auto& h = out.last_hidden_state.data;
          auto row = [&](int b, int l) {
            const float* p = h.data() + (static_cast<std::size_t>(b) * L + l) * H;
            return std::vector<double>(p, p + H);
          };
          std::vector<double> ref;
          std::vector<float> got;
          if (mlm) {
            REQUIRE(head->task() == relpos::HeadTask::MaskedLM);
            const std::vector<int> positions = {0, 7, L + 3, L + in.lengths[1] - 1};
            got = head->logits(out, positions);
            const auto tok = f64(file, "embeddings.tok_embeddings.weight");
            const auto bias = f64(w, "decoder.bias");
            for (int p : positions) {
              const auto t = head_transform(c, w, row(p / L, p % L));
              for (int v = 0; v < c.vocab_size; ++v) {
                double s = bias[v];
                for (int e = 0; e < H; ++e) s += t[e] * tok[static_cast<std::size_t>(v) * H + e];
                ref.push_back(s);
              }
            }
          } else {
            const auto cw = f64(w, "classifier.weight");
            const auto cb = f64(w, "classifier.bias");
            auto classify = [&](const std::vector<double>& x) {
              const auto y = linear(head_transform(c, w, x), 1, H, cw, labels, &cb);
              ref.insert(ref.end(), y.begin(), y.end());
            };
            got = head->logits(out);
            CHECK(head->labels() == std::vector<std::string>{"neg", "neutral", "pos"});
            if (cls == "ModernBertForTokenClassification") {
              REQUIRE(head->task() == relpos::HeadTask::TokenClassification);
              for (int b = 0; b < in.B; ++b)
                for (int l = 0; l < L; ++l) classify(row(b, l));
              // padded tokens' logits are unspecified: compare real tokens only
              std::vector<float> g;
              std::vector<double> r;
              for (int b = 0; b < in.B; ++b)
                for (int l = 0; l < in.lengths[b]; ++l)
                  for (int k = 0; k < labels; ++k) {
                    g.push_back(got[(static_cast<std::size_t>(b) * L + l) * labels + k]);
                    r.push_back(ref[(static_cast<std::size_t>(b) * L + l) * labels + k]);
                  }
              got = g;
              ref = r;
            } else {
              REQUIRE(head->task() == relpos::HeadTask::SequenceClassification);
              const bool mean = a.find("/mean") != std::string::npos;
              for (int b = 0; b < in.B; ++b) {
                std::vector<double> x(H, 0.0);
                if (mean) {
                  for (int l = 0; l < in.lengths[b]; ++l)
                    for (int e = 0; e < H; ++e) x[e] += row(b, l)[e] / in.lengths[b];
                } else {
                  x = row(b, 0);
                }
                classify(x);
              }
            }
          }
          const bool fp32 = dtype == relpos::WeightFormat::F32;
          double err = head_error(got, ref);
          if (!fp32) {
            // q8 quantizes the head's dense / classifier and the tied decoder's rows (the reference reads the
            // float32 tensors): max error relative to the largest logit, as the q8 model test measures
            double worst = 0, scale = 1;
            for (std::size_t i = 0; i < ref.size(); ++i) {
              worst = std::max(worst, std::fabs(got[i] - ref[i]));
              scale = std::max(scale, std::fabs(ref[i]));
            }
            err = worst / scale;
          }
          INFO(name << " " << arch << " " << relpos::weight_format_name(dtype) << ": max error " << err);
          CHECK(err <= (fp32 ? 1e-4 : 0.03));
          std::printf("[modernbert-head %s] %s %s %s: max error %.3g\n", RELPOS_VARIANT, name, arch,
                      relpos::weight_format_name(dtype), err);
        }
      }
    }
  }
}

TEST_CASE("modernbert heads: tensors decide without architectures, a named head without its tensors is refused", "[heads][modernbert]") {
  const std::string dir = family_dir("modernbert-a");
  const std::string base = read_text(dir + "config.json");
  const auto file = relpos::SafeTensors::read_file(dir + "model.safetensors");
  const json no_arch = {{"architectures", nullptr}};
  {
    Checkpoint w(file, "model.");
    const auto c = relpos::parse_model_config(base);
    add_prediction_head(w, c, true, 2);
    auto model = relpos::load_model(base, w);
    auto head = relpos::load_task_head(with(base, no_arch), *model, w);
    REQUIRE(head);
    CHECK(head->task() == relpos::HeadTask::SequenceClassification);
  }
  {
    Checkpoint w(file, "model.");
    add_prediction_head(w, relpos::parse_model_config(base), false, 0);
    w.add("decoder.bias", {100}, std::vector<float>(100, 0.0f));
    auto model = relpos::load_model(base, w);
    auto head = relpos::load_task_head(with(base, no_arch), *model, w);
    REQUIRE(head);
    CHECK(head->task() == relpos::HeadTask::MaskedLM);
  }
  {
    Checkpoint w(file, "model.");
    add_prediction_head(w, relpos::parse_model_config(base), false, 0);
    auto model = relpos::load_model(base, w);
    const std::string config = with(base, {{"architectures", json::array({"ModernBertForTokenClassification"})}});
    CHECK_THROWS_WITH(relpos::load_task_head(config, *model, w), Catch::Contains("classifier.weight"));
  }
  {
    // mean pooling refuses a sequence without real tokens instead of dividing by zero
    Checkpoint w(file, "model.");
    const std::string config = with(base, {{"classifier_pooling", "mean"},
                                           {"architectures", json::array({"ModernBertForSequenceClassification"})}});
    add_prediction_head(w, relpos::parse_model_config(config), true, 2);
    auto model = relpos::load_model(config, w);
    auto head = relpos::load_task_head(config, *model, w);
    const std::vector<std::int32_t> ids = {5, 6, 7, 5, 6, 7}, mask = {1, 1, 0, 0, 0, 0};
    const auto out = model->forward(2, 3, ids.data(), mask.data());
    CHECK_THROWS_WITH(head->logits(out), Catch::Contains("no real token"));
  }
}

TEST_CASE("modernbert config: rope_parameters and layer_types (transformers ≥ 5), a null local_rope_theta", "[modernbert]") {
  const std::string dir = family_dir("modernbert-b");  // layers 0, 2 global; 1, 3 local
  const std::string base = read_text(dir + "config.json");
  const auto weights = relpos::SafeTensors::read_file(dir + "model.safetensors");
  const Batch in = relpos_test::read_fixture_batch(dir);
  auto last = [&](const std::string& config) {
    auto model = relpos::load_model(config, weights);
    return run(*model, in, false).last_hidden_state.data;
  };
  const auto legacy = last(with(base, {{"global_rope_theta", 50000.0}, {"local_rope_theta", 20000.0}}));
  CHECK(!bitwise_equal(legacy, last(base)));
  json v5 = json::parse(base);
  v5.erase("global_rope_theta");
  v5.erase("local_rope_theta");
  v5["rope_parameters"] = {{"full_attention", {{"rope_type", "default"}, {"rope_theta", 50000.0}}},
                           {"sliding_attention", {{"rope_type", "default"}, {"rope_theta", 20000.0}}}};
  v5["layer_types"] = {"full_attention", "sliding_attention", "full_attention", "sliding_attention"};
  CHECK(bitwise_equal(last(v5.dump()), legacy));
  // HF: local layers fall back to global_rope_theta when local_rope_theta is None
  CHECK(bitwise_equal(last(with(base, {{"global_rope_theta", 50000.0}, {"local_rope_theta", nullptr}})),
                      last(with(base, {{"global_rope_theta", 50000.0}, {"local_rope_theta", 50000.0}}))));
  json other = v5;
  other["layer_types"] = {"full_attention", "full_attention", "full_attention", "sliding_attention"};
  CHECK_THROWS_WITH(relpos::load_model(other.dump(), weights), Catch::Contains("layer_types"));
  json yarn = v5;
  yarn["rope_parameters"]["full_attention"]["rope_type"] = "yarn";
  CHECK_THROWS_WITH(relpos::load_model(yarn.dump(), weights), Catch::Contains("rope_type 'yarn'"));
}
