// Each task's labels follow its definition (tasks.h), batches depend only on (task, B, L, seed).
#include <catch2/catch.hpp>

#include "tasks.h"

using namespace relpos::train;

TEST_CASE("shift-k labels the token k positions back and leaves the first k unlabelled", "[train][tasks]") {
  TaskSpec t{"shift-k", 3, 5};
  Batch b;
  make_batch(t, 4, 12, 99, b);
  for (int s = 0; s < 4; ++s)
    for (int i = 0; i < 12; ++i) {
      const int r = s * 12 + i;
      CHECK(b.tokens[r] >= 0);
      CHECK(b.tokens[r] < 5);
      CHECK(b.labels[r] == (i >= 3 ? b.tokens[r - 3] : -1));
    }
  CHECK(task_is_causal(t));
  CHECK(task_classes(t, 100) == 5);
}

TEST_CASE("reverse labels position i with the token at L-1-i and needs a bidirectional mask", "[train][tasks]") {
  TaskSpec t{"reverse", 0, 6};
  Batch b;
  make_batch(t, 3, 9, 1, b);
  for (int s = 0; s < 3; ++s)
    for (int i = 0; i < 9; ++i) CHECK(b.labels[s * 9 + i] == b.tokens[s * 9 + 8 - i]);
  CHECK_FALSE(task_is_causal(t));
}

TEST_CASE("count-so-far labels the number of ones in the prefix", "[train][tasks]") {
  TaskSpec t{"count-so-far", 0, 0};
  Batch b;
  make_batch(t, 2, 20, 4, b);
  for (int s = 0; s < 2; ++s) {
    int count = 0;
    for (int i = 0; i < 20; ++i) {
      const int tok = b.tokens[s * 20 + i];
      CHECK((tok == 0 || tok == 1));
      count += tok;
      CHECK(b.labels[s * 20 + i] == count);
    }
  }
  CHECK(task_classes(t, 64) == 65);
}

TEST_CASE("bracket-depth sequences are Dyck-1 prefixes labelled with their depth", "[train][tasks]") {
  TaskSpec t{"bracket-depth", 0, 0};
  Batch b;
  make_batch(t, 8, 30, 17, b);
  bool some_close = false;
  for (int s = 0; s < 8; ++s) {
    int depth = 0;
    for (int i = 0; i < 30; ++i) {
      depth += b.tokens[s * 30 + i] == 0 ? 1 : -1;
      some_close |= b.tokens[s * 30 + i] == 1;
      CHECK(depth >= 0);
      CHECK(b.labels[s * 30 + i] == depth);
    }
  }
  CHECK(some_close);
}

TEST_CASE("batches depend only on the seed", "[train][tasks]") {
  for (const char* name : {"shift-k", "reverse", "count-so-far", "bracket-depth"}) {
    TaskSpec t{name, 2, 8};
    Batch a, b, c;
    make_batch(t, 4, 16, 5, a);
    make_batch(t, 4, 16, 5, b);
    make_batch(t, 4, 16, 6, c);
    CHECK(a.tokens == b.tokens);
    CHECK(a.labels == b.labels);
    CHECK(a.tokens != c.tokens);
  }
}
