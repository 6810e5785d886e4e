// tally_predictions (session.h): behind Session::evaluate's per-sequence and per-position accuracy
// (lab.train's run.evaluate, relpos_lab_native --json). A sequence counts as right only when every
// labelled position is; unlabelled positions (label < 0) count nowhere; tallies add up across batches.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "session.h"

using namespace relpos::train;

TEST_CASE("tally_predictions counts whole sequences and only labelled positions", "[train][accuracy]") {
  const int B = 4, L = 8;
  // shift-k style labels: positions 0–2 unlabelled, the rest some class.
  std::vector<std::int32_t> labels(B * L), pred(B * L);
  for (int r = 0; r < B * L; ++r) {
    labels[r] = r % L < 3 ? -1 : (r * 5) % 7;
    pred[r] = r % L < 3 ? 6 : labels[r];  // predictions at unlabelled positions are anything
  }
  PredictionTally all_right;
  tally_predictions(B, L, labels.data(), pred.data(), all_right);
  CHECK(all_right.sequences == B);
  CHECK(all_right.sequences_right == B);
  REQUIRE(all_right.seen.size() == static_cast<std::size_t>(L));
  for (int i = 0; i < L; ++i) {
    CHECK(all_right.seen[i] == (i < 3 ? 0 : B));
    CHECK(all_right.right[i] == all_right.seen[i]);
  }

  // One wrong position in row 1, two in row 3: 2 of 4 sequences right; position 3 has 1 wrong of 4,
  // position 4 1 of 4, position 7 1 of 4.
  pred[1 * L + 4] = (labels[1 * L + 4] + 1) % 7;
  pred[3 * L + 3] = (labels[3 * L + 3] + 1) % 7;
  pred[3 * L + 7] = (labels[3 * L + 7] + 1) % 7;
  PredictionTally some_wrong;
  tally_predictions(B, L, labels.data(), pred.data(), some_wrong);
  CHECK(some_wrong.sequences_right == 2);
  CHECK(some_wrong.right[3] == B - 1);
  CHECK(some_wrong.right[4] == B - 1);
  CHECK(some_wrong.right[5] == B);
  CHECK(some_wrong.right[7] == B - 1);

  // A second batch adds to the same tally.
  tally_predictions(B, L, labels.data(), pred.data(), some_wrong);
  CHECK(some_wrong.sequences == 2 * B);
  CHECK(some_wrong.sequences_right == 4);
  CHECK(some_wrong.seen[5] == 2 * B);
  CHECK(some_wrong.right[4] == 2 * (B - 1));
}
