// lab_report: the machine-readable output of relpos_lab_native --json (read by scripts/lab.mjs).
// One JSON object per line per scheme, self-contained (task settings, scheme, seed, results), so a
// grid runner can cache each line as one cell. Kept apart from lab_native.cpp's training loop.
#pragma once

#include <cstdio>
#include <string>

namespace relpos::train {

struct LabSettings {
  std::string task;
  int k = 0, symbols = 0, L = 0, steps = 0, batch = 0, d = 0, heads = 0, layers = 0, threads = 1, eval_batches = 0;
  float lr = 0;
  unsigned long long seed = 0;
  bool pre_ln = true, causal = true;
  const char* simd = "";
};

struct LabResult {
  std::string scheme;
  double loss = 0;              // mean training loss of the last (up to) 20 steps
  double acc[3] = {0, 0, 0};    // accuracy over labelled positions at L, 2L, 4L
  double seq_acc[3] = {0, 0, 0};// fraction of sequences with every labelled position right
  double seconds = 0;           // training wall time
  double gflop = 0;             // training FLOPs / 1e9 (3 × forward multiply–add FLOPs × steps)
};

inline void print_lab_json(const LabSettings& s, const LabResult& r) {
  std::printf(
      "{\"task\":\"%s\",\"k\":%d,\"symbols\":%d,\"L\":%d,\"steps\":%d,\"batch\":%d,\"d\":%d,\"heads\":%d,"
      "\"layers\":%d,\"lr\":%g,\"ln\":\"%s\",\"mask\":\"%s\",\"eval_batches\":%d,\"threads\":%d,\"simd\":\"%s\","
      "\"scheme\":\"%s\",\"seed\":%llu,\"loss\":%.6f,\"lengths\":[%d,%d,%d],\"acc\":[%.6f,%.6f,%.6f],"
      "\"seq_acc\":[%.6f,%.6f,%.6f],\"seconds\":%.3f,\"gflop\":%.3f}\n",
      s.task.c_str(), s.k, s.symbols, s.L, s.steps, s.batch, s.d, s.heads, s.layers, s.lr, s.pre_ln ? "pre-LN" : "post-LN",
      s.causal ? "causal" : "bidirectional", s.eval_batches, s.threads, s.simd, r.scheme.c_str(), s.seed, r.loss, s.L,
      2 * s.L, 4 * s.L, r.acc[0], r.acc[1], r.acc[2], r.seq_acc[0], r.seq_acc[1], r.seq_acc[2], r.seconds, r.gflop);
  std::fflush(stdout);
}

}  // namespace relpos::train
