// relpos::shaw_index_table(10, 3): row i, column j holds clip(j − i, −3, 3) + 3; row 0 is
// {3, 4, 5, 6, 6, 6, 6, 6, 6, 6}.
#include <algorithm>

#include "relpos/positions.h"
#include "test_support.h"

TEST_CASE("Shaw index table for ten tokens and k = 3", "[shaw][positions]") {
  const std::vector<std::int32_t> table = relpos::shaw_index_table(10, 3);
  REQUIRE(table.size() == 100);
  const std::vector<std::int32_t> first(table.begin(), table.begin() + 10);
  CHECK(first == std::vector<std::int32_t>{3, 4, 5, 6, 6, 6, 6, 6, 6, 6});
  for (int i = 0; i < 10; ++i)
    for (int j = 0; j < 10; ++j) {
      INFO("i " << i << ", j " << j);
      CHECK(table[i * 10 + j] == std::min(3, std::max(-3, j - i)) + 3);
    }
}
