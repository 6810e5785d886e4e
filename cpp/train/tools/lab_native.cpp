// lab_native: the feasibility experiment of issue #18. Trains one model per position scheme on a
// task at length L and reports accuracy at L, 2L and 4L (fresh evaluation batches), wall seconds
// and training FLOPs (3 × forward multiply–add FLOPs per step: forward + backward ≈ 2 × forward).
//   relpos_lab_native [--task shift-k] [--k 3] [--symbols 8] [--len 16] [--steps 300] [--batch 32]
//     [--d 64] [--heads 4] [--layers 2] [--lr 3e-3] [--seed 1] [--threads 1] [--post-ln]
//     [--bidirectional] [--schemes none,sinusoidal,learned,alibi,t5,rope,shaw,deberta] [--eval-batches 8]
//     [--json]   one JSON line per scheme (lab_report.h; read by scripts/lab.mjs) instead of the table
// Each scheme is one Session (session.h), which holds the training loop and its seed conventions:
// init from --seed; training batch t from seed·1000003 + t; evaluation batches from
// 0x5EED0000 + seed·1000 + length·10 + i (disjoint from training streams in practice).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/simd.h"
#include "relpos/threads.h"
#include "lab_report.h"
#include "session.h"
#include "tasks.h"

using namespace relpos::train;

int run(int argc, char** argv) {
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
    SessionConfig sc;
    sc.task = task.name;
    sc.k = task.k;
    sc.symbols = task.symbols;
    sc.scheme = name;
    sc.train_length = L;
    sc.steps = steps;
    sc.batch = B;
    sc.dim = d;
    sc.heads = heads;
    sc.layers = layers;
    sc.lr = lr;
    sc.seed = seed;
    sc.max_length = maxL;
    sc.pre_ln = pre_ln;
    sc.bidirectional = force_bidirectional;
    const auto t0 = std::chrono::steady_clock::now();
    Session session(sc);
    const std::vector<double> losses = session.step(steps);
    double tail = 0;
    int tail_n = 0;
    for (int s = steps > 20 ? steps - 20 : 0; s < steps; ++s) {
      tail += losses[s];
      ++tail_n;
    }
    const double train_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double flops = session.flops_per_step() * steps;
    double acc[3], seq_acc[3];
    for (int m = 0; m < 3; ++m) {
      const Evaluation e = session.evaluate(L << m, eval_batches);
      acc[m] = e.accuracy;
      seq_acc[m] = e.per_sequence;
    }
    if (json) {
      const LabSettings ls{task.name, task.k, task.symbols, L, steps, B, d, heads, layers, threads, eval_batches,
                           lr, seed, pre_ln, session.model_config().causal, relpos::simd::arch_name()};
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

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "relpos_lab_native: %s\n", e.what());
    return 2;
  }
}
