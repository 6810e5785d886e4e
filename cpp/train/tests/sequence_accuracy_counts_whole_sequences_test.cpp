// Trainer::sequence_accuracy (used by relpos_lab_native --json) counts a sequence as right only when
// every labelled position is; Trainer::accuracy counts positions. The model's predictions are read
// back through accuracy() itself: with one labelled position r of class c, accuracy is 1 iff the
// prediction at r is c.
#include <catch2/catch.hpp>

#include <vector>

#include "model.h"
#include "tasks.h"

using namespace relpos::train;

TEST_CASE("sequence_accuracy counts sequences whose every labelled position is right", "[train][accuracy]") {
  ModelConfig c;
  c.vocab = 8;
  c.classes = 8;
  c.d_model = 16;
  c.heads = 2;
  c.layers = 1;
  c.scheme = PositionScheme::Shaw;
  c.max_len = 16;
  const int B = 4, L = 8;
  Trainer t(c, B, L);
  std::vector<float> params;
  init_params(c, t.layout(), 7, params);
  Batch batch;
  make_batch(TaskSpec{"shift-k", 3, 8}, B, L, 11, batch);
  t.forward(params, batch);  // accuracy() and sequence_accuracy() compare the last forward's logits with any labels

  // Recover the prediction at every position.
  std::vector<int> pred(B * L, -1);
  Batch probe = batch;
  for (int r = 0; r < B * L; ++r) {
    for (int k = 0; k < c.classes; ++k) {
      std::fill(probe.labels.begin(), probe.labels.end(), -1);
      probe.labels[r] = k;
      if (t.accuracy(probe) == 1.0) pred[r] = k;
    }
    REQUIRE(pred[r] >= 0);
  }

  // Labels = predictions, positions 0–2 of every row unlabelled (as shift-k): all right.
  Batch labelled = batch;
  for (int r = 0; r < B * L; ++r) labelled.labels[r] = r % L < 3 ? -1 : pred[r];
  CHECK(t.accuracy(labelled) == 1.0);
  CHECK(t.sequence_accuracy(labelled) == 1.0);

  // One wrong position in row 1, two in row 3: 2 of 4 sequences right, 20 − 3 of 20 labelled positions.
  labelled.labels[1 * L + 4] = (pred[1 * L + 4] + 1) % c.classes;
  labelled.labels[3 * L + 3] = (pred[3 * L + 3] + 1) % c.classes;
  labelled.labels[3 * L + 7] = (pred[3 * L + 7] + 1) % c.classes;
  CHECK(t.sequence_accuracy(labelled) == Approx(2.0 / 4));
  CHECK(t.accuracy(labelled) == Approx((B * (L - 3) - 3) / double(B * (L - 3))));
}
