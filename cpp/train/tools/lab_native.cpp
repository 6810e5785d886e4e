// lab_native: the feasibility experiment of issue #18. Trains one model per position scheme on a
// task at length L and reports accuracy at L, 2L and 4L (fresh evaluation batches), wall seconds
// and training FLOPs (3 × forward multiply–add FLOPs per step: forward + backward ≈ 2 × forward).
//   relpos_lab_native [--task shift-k] [--k 3] [--symbols 8] [--len 16] [--steps 300] [--batch 32]
//     [--d 64] [--heads 4] [--layers 2] [--lr 3e-3] [--seed 1] [--threads 1] [--post-ln]
//     [--bidirectional] [--schemes none,sinusoidal,learned,alibi,t5,rope,shaw,deberta] [--eval-batches 8]
//     [--json]   one JSON line per scheme (lab_report.h; read by scripts/lab.mjs) instead of the table
// Seeds: init from --seed; training batch t from seed·1000003 + t; evaluation batches from
// 0x5EED0000 + seed·1000 + length·10 + i (disjoint from training streams in practice).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "adamw.h"
#include "kernels/simd.h"
#include "model.h"
#include "relpos/threads.h"
#include "lab_report.h"
#include "tasks.h"

using namespace relpos::train;

int main(int argc, char** argv) {
  TaskSpec task;
  task.name = "shift-k";
  task.k = 3;
  int L = 16, steps = 300, B = 32, d = 64, heads = 4, layers = 2, threads = 1, eval_batches = 8;
  float lr = 3e-3f;
  unsigned long long seed = 1;
  bool pre_ln = true, force_bidirectional = false, json = false;
  std::string schemes = "none,sinusoidal,learned,alibi,t5,rope,shaw,deberta";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (a == "--task") task.name = next();
    else if (a == "--k") task.k = std::atoi(next().c_str());
    else if (a == "--symbols") task.symbols = std::atoi(next().c_str());
    else if (a == "--len") L = std::atoi(next().c_str());
    else if (a == "--steps") steps = std::atoi(next().c_str());
    else if (a == "--batch") B = std::atoi(next().c_str());
    else if (a == "--d") d = std::atoi(next().c_str());
    else if (a == "--heads") heads = std::atoi(next().c_str());
    else if (a == "--layers") layers = std::atoi(next().c_str());
    else if (a == "--lr") lr = static_cast<float>(std::atof(next().c_str()));
    else if (a == "--seed") seed = std::strtoull(next().c_str(), nullptr, 10);
    else if (a == "--threads") threads = std::atoi(next().c_str());
    else if (a == "--eval-batches") eval_batches = std::atoi(next().c_str());
    else if (a == "--post-ln") pre_ln = false;
    else if (a == "--bidirectional") force_bidirectional = true;
    else if (a == "--schemes") schemes = next();
    else if (a == "--json") json = true;
    else {
      std::fprintf(stderr, "unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  relpos::set_num_threads(threads);
  const int maxL = 4 * L;
  if (!json) std::printf("task=%s k=%d symbols=%d L=%d steps=%d batch=%d d=%d heads=%d layers=%d %s %s lr=%g seed=%llu threads=%d simd=%s\n",
              task.name.c_str(), task.k, task.symbols, L, steps, B, d, heads, layers, pre_ln ? "pre-LN" : "post-LN",
              task_is_causal(task) && !force_bidirectional ? "causal" : "bidirectional", lr, seed, threads, relpos::simd::arch_name());
  if (!json) std::printf("%-11s %9s %9s %9s %9s %8s %10s\n", "scheme", "loss", "acc@L", "acc@2L", "acc@4L", "seconds", "GFLOP");
  std::stringstream ss(schemes);
  std::string name;
  while (std::getline(ss, name, ',')) {
    ModelConfig c;
    c.vocab = task_vocab(task);
    c.classes = task_classes(task, maxL);
    c.d_model = d;
    c.heads = heads;
    c.layers = layers;
    c.pre_ln = pre_ln;
    c.causal = task_is_causal(task) && !force_bidirectional;
    c.scheme = parse_scheme(name);
    c.max_len = maxL;
    const auto t0 = std::chrono::steady_clock::now();
    Trainer trainer(c, B, L);
    std::vector<float> params, grads;
    init_params(c, trainer.layout(), seed, params);
    AdamWConfig oc;
    oc.lr = lr;
    oc.total_steps = steps;
    oc.warmup = steps / 10 > 1 ? steps / 10 : 1;
    AdamW opt(oc, trainer.layout());
    Batch batch;
    double loss = 0, tail = 0;
    int tail_n = 0;
    for (int s = 0; s < steps; ++s) {
      make_batch(task, B, L, seed * 1000003ull + s, batch);
      loss = trainer.forward(params, batch);
      trainer.backward(params, batch, grads);
      opt.step(params, grads);
      if (s >= steps - 20) {
        tail += loss;
        ++tail_n;
      }
    }
    const double train_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double flops = 3.0 * trainer.forward_flops(B, L) * steps;
    Trainer eval(c, B, maxL);
    double acc[3], seq_acc[3];
    for (int m = 0; m < 3; ++m) {
      const int len = L << m;
      double sum = 0, seq_sum = 0;
      for (int e = 0; e < eval_batches; ++e) {
        make_batch(task, B, len, 0x5EED0000ull + seed * 1000 + len * 10 + e, batch);
        eval.forward(params, batch);
        sum += eval.accuracy(batch);
        seq_sum += eval.sequence_accuracy(batch);
      }
      acc[m] = sum / eval_batches;
      seq_acc[m] = seq_sum / eval_batches;
    }
    if (json) {
      const LabSettings ls{task.name, task.k, task.symbols, L, steps, B, d, heads, layers, threads, eval_batches,
                           lr, seed, pre_ln, c.causal, relpos::simd::arch_name()};
      const LabResult lr_{name, tail / tail_n, {acc[0], acc[1], acc[2]}, {seq_acc[0], seq_acc[1], seq_acc[2]},
                          train_seconds, flops / 1e9};
      print_lab_json(ls, lr_);
      continue;
    }
    std::printf("%-11s %9.4f %9.4f %9.4f %9.4f %8.2f %10.2f\n", name.c_str(), tail / tail_n, acc[0], acc[1], acc[2],
                train_seconds, flops / 1e9);
    std::fflush(stdout);
  }
  return 0;
}
