// The memory bound: a training step at batch 32 × length 64, d = 64, 2 layers, 4 heads
// (every scheme; learned table and RoPE tables sized for 4 × 64 evaluation) holds under 64 MiB of
// heap — counted from before the model exists (parameters, gradients, optimiser state, workspace,
// batch) to after the step; and the step itself allocates nothing once the workspace exists.
#include <catch2/catch.hpp>

#include <cstdio>

#include "adamw.h"
#include "heap_counter.h"
#include "model.h"
#include "tasks.h"

using namespace relpos::train;
using relpos::train::testing::heap_live_bytes;
using relpos::train::testing::heap_peak_bytes;
using relpos::train::testing::heap_reset_peak;

TEST_CASE("a training step at 32 x 64, d 64, 2 layers, 4 heads stays under 64 MiB of heap and allocates nothing",
          "[train][memory]") {
  for (PositionScheme s : {PositionScheme::None, PositionScheme::Sinusoidal, PositionScheme::Learned, PositionScheme::Alibi,
                           PositionScheme::T5, PositionScheme::Rope, PositionScheme::Shaw, PositionScheme::Deberta}) {
    const std::size_t before = heap_live_bytes();
    heap_reset_peak();
    std::size_t peak_used = 0, step_growth = 0;
    {
      TaskSpec task;
      task.name = "shift-k";
      ModelConfig c;
      c.vocab = task_vocab(task);
      c.classes = task_classes(task, 256);
      c.d_model = 64;
      c.heads = 4;
      c.layers = 2;
      c.scheme = s;
      c.max_len = 256;
      Trainer tr(c, 32, 64);
      std::vector<float> params, grads(tr.layout().total);
      init_params(c, tr.layout(), 1, params);
      AdamW opt(AdamWConfig{}, tr.layout());
      Batch batch;
      make_batch(task, 32, 64, 5, batch);
      const std::size_t ready = heap_live_bytes();
      const std::size_t peak_ready = heap_peak_bytes();
      tr.forward(params, batch);
      tr.backward(params, batch, grads);
      opt.step(params, grads);
      step_growth = heap_peak_bytes() - peak_ready;
      (void)ready;
      peak_used = heap_peak_bytes() - before;
    }
    std::printf("[memory] scheme %-10s peak heap %.2f MiB\n", scheme_name(s), peak_used / 1048576.0);
    INFO("scheme " << scheme_name(s) << " peak " << peak_used << " bytes, step growth " << step_growth);
    CHECK(peak_used < 64u * 1024 * 1024);
    CHECK(step_growth == 0);
  }
}
