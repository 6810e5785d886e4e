// Profile of the training core (issue #18): times one training step of the lab defaults (shift-k,
// L 16, batch 32, d 64, 2 layers, 4 heads) and each of its parts, per scheme. Includes model.cpp
// with `private` opened so the parts (linear_forward/backward, attention_forward/backward, LayerNorm,
// GELU) run on the trainer's own workspace with real activations. Built by bench/train_profile.sh
// for WASM SIMD (node) or natively:
//   train_profile [scheme|all] [steps]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#define private public
#include "../../cpp/train/model.cpp"
#undef private
#include "../../cpp/train/adamw.h"
#include "../../cpp/train/tasks.h"

using namespace relpos::train;
using Clock = std::chrono::steady_clock;

template <class F>
static double time_ms(int reps, F&& f) {
  f();  // warm
  const auto t0 = Clock::now();
  for (int r = 0; r < reps; ++r) f();
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count() / reps;
}

int main(int argc, char** argv) {
  const std::string which = argc > 1 ? argv[1] : "all";
  const int steps = argc > 2 ? std::atoi(argv[2]) : 20;
  const char* schemes[] = {"none", "sinusoidal", "learned", "alibi", "t5", "rope", "shaw", "deberta"};
  TaskSpec task;
  task.name = "shift-k";
  task.k = 3;
  task.symbols = 8;
  const int B = 32, L = 16, maxlen = 64;
  std::printf("arch %s\n", relpos::simd::arch_name());
  for (const char* s : schemes) {
    if (which != "all" && which != s) continue;
    ModelConfig m;
    m.vocab = task_vocab(task);
    m.classes = task_classes(task, maxlen);
    m.causal = task_is_causal(task);
    m.scheme = parse_scheme(s);
    m.max_len = maxlen;
    Trainer tr(m, B, L);
    std::vector<float> P, G;
    init_params(m, tr.layout(), 1, P);
    AdamWConfig oc;
    oc.total_steps = 300;
    oc.warmup = 30;
    AdamW opt(oc, tr.layout());
    Batch batch;
    make_batch(task, B, L, 7, batch);
    tr.forward(P, batch);
    tr.backward(P, batch, G);
    const double fwd = time_ms(steps, [&] { tr.forward(P, batch); });
    const double bwd = time_ms(steps, [&] { tr.backward(P, batch, G); });
    std::vector<float> G2 = G;
    const double adam = time_ms(steps, [&] { G2 = G; opt.step(P, G2); });
    const int N = B * L, d = m.d_model, F = 4 * d, C = m.classes, layers = m.layers;
    auto& a = tr.acts_[0];
    const auto& o = tr.layout_.layers[0];
    const float* p = P.data();
    float* g = G.data();
    // Forward parts (per step: layers × …).
    const double lf_dd = time_ms(steps, [&] { tr.linear_forward(N, d, d, a.ln1.data(), p + o.wq, p + o.bq, a.q.data()); });
    const double lf_dF = time_ms(steps, [&] { tr.linear_forward(N, d, F, a.ln2.data(), p + o.w1, p + o.b1, a.h1.data()); });
    const double lf_Fd = time_ms(steps, [&] { tr.linear_forward(N, F, d, a.h1g.data(), p + o.w2, p + o.b2, a.mlp_out.data()); });
    const double lf_head = time_ms(steps, [&] { tr.linear_forward(N, d, C, tr.final_.data(), p + tr.layout_.head_w, p + tr.layout_.head_b, tr.logits_.data()); });
    const double af = time_ms(steps, [&] { tr.attention_forward(p, o, a, B, L); });
    const double lnf = time_ms(steps, [&] {
      layernorm_forward(N, d, a.in.data(), p + o.ln1_g, p + o.ln1_b, a.ln1.data(), a.ln1_mean.data(), a.ln1_rstd.data());
    });
    const double gf = time_ms(steps, [&] {
      if (RELPOS_TRAIN_VECTOR_GELU) gelu_forward(static_cast<std::size_t>(N) * F, a.h1.data(), a.h1g.data());
      else for (long i = 0; i < static_cast<long>(N) * F; ++i) a.h1g[i] = gelu_reference(a.h1[i]);
    });
    // Backward parts.
    const double lb_dd = time_ms(steps, [&] {
      tr.linear_backward(N, d, d, a.ln1.data(), p + o.wq, tr.dq_.data(), tr.dtmp_.data(), true, g + o.wq, g + o.bq);
    });
    const double lb_dF = time_ms(steps, [&] {
      tr.linear_backward(N, d, F, a.ln2.data(), p + o.w1, tr.dh1_.data(), tr.dtmp_.data(), false, g + o.w1, g + o.b1);
    });
    const double lb_Fd = time_ms(steps, [&] {
      tr.linear_backward(N, F, d, a.h1g.data(), p + o.w2, tr.dx_.data(), tr.dh1_.data(), false, g + o.w2, g + o.b2);
    });
    const double lb_head = time_ms(steps, [&] {
      tr.linear_backward(N, d, C, tr.final_.data(), p + tr.layout_.head_w, tr.dlogits_.data(), tr.dtmp_.data(), false,
                         g + tr.layout_.head_w, g + tr.layout_.head_b);
    });
    const double ab = time_ms(steps, [&] { tr.attention_backward(p, o, a, B, L, g); });
    const double lnb = time_ms(steps, [&] {
      layernorm_backward(N, d, a.res1.data(), a.ln2_mean.data(), a.ln2_rstd.data(), p + o.ln2_g, tr.dtmp_.data(),
                         tr.dx_.data(), true, g + o.ln2_g, g + o.ln2_b);
    });
    const double gb = time_ms(steps, [&] {
      if (RELPOS_TRAIN_VECTOR_GELU) gelu_backward(static_cast<std::size_t>(N) * F, a.h1.data(), tr.dh1_.data());
      else for (long i = 0; i < static_cast<long>(N) * F; ++i) tr.dh1_[i] *= gelu_grad_reference(a.h1[i]);
    });
    {  // linear_backward(N, d, F) by piece (the layer's w1): dx GEMM, dy transpose, x pack, dW GEMM, db
      const int in = d, out = F;
      const float* x = a.ln2.data();
      const float* W = p + o.w1;
      const float* dy = tr.dh1_.data();
      float* packed = tr.packed_.data();
      float* t = tr.transposed_.data();
      const double pk = time_ms(steps, [&] { relpos::kernels::pack_b_kn(out, in, W, in, packed); });
      const double gx = time_ms(steps, [&] {
        relpos::kernels::gemm_f32_packed(N, in, out, 1.0f, dy, out, packed, tr.dtmp_.data(), in, false);
      });
      const double tt = time_ms(steps, [&] {
        for (int o2 = 0; o2 < out; ++o2)
          for (int r = 0; r < N; ++r) t[o2 * N + r] = dy[static_cast<long>(r) * out + o2];
      });
      const double px = time_ms(steps, [&] { relpos::kernels::pack_b_kn(N, in, x, in, packed); });
      const double gw = time_ms(steps, [&] {
        relpos::kernels::gemm_f32_packed(out, in, N, 1.0f, t, N, packed, g + o.w1, in, true);
      });
      const double db = time_ms(steps, [&] {
        for (int r = 0; r < N; ++r)
          for (int o2 = 0; o2 < out; ++o2) g[o.b1 + o2] += dy[static_cast<long>(r) * out + o2];
      });
      std::printf("    [linear_backward d->F per call: pack W %.3f, dx gemm %.3f, dy transpose %.3f, pack x %.3f, dW gemm %.3f, db %.3f ms]\n",
                  pk, gx, tt, px, gw, db);
    }
    const double fl = tr.forward_flops(B, L);
    const double step = fwd + bwd + adam;
    std::printf("%-10s step %7.2f ms (fwd %6.2f bwd %6.2f adamw %5.2f)  %5.2f GFLOP/s train (3x fwd flops), fwd %5.2f GFLOP/s; 300 steps %5.1f s\n",
                s, step, fwd, bwd, adam, 3 * fl / step * 1e-6, fl / fwd * 1e-6, 0.3 * step);
    struct Part { const char* name; double ms; };
    const Part parts[] = {
        {"fwd linear d->d x4/layer", 4 * layers * lf_dd},
        {"fwd linear d->F", layers * lf_dF},
        {"fwd linear F->d", layers * lf_Fd},
        {"fwd head", lf_head},
        {"fwd attention", layers * af},
        {"fwd layernorm", (2 * layers + 1) * lnf},
        {"fwd gelu", layers * gf},
        {"bwd linear d->d x4/layer", 4 * layers * lb_dd},
        {"bwd linear d->F", layers * lb_dF},
        {"bwd linear F->d", layers * lb_Fd},
        {"bwd head", lb_head},
        {"bwd attention", layers * ab},
        {"bwd layernorm", (2 * layers + 1) * lnb},
        {"bwd gelu", layers * gb},
        {"adamw", adam},
    };
    double sum = 0;
    for (const Part& q : parts) {
      std::printf("    %-26s %7.3f ms  %5.1f %%\n", q.name, q.ms, 100 * q.ms / step);
      sum += q.ms;
    }
    std::printf("    %-26s %7.3f ms  %5.1f %%\n", "(rest)", step - sum, 100 * (step - sum) / step);
  }
  return 0;
}
