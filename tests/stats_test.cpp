// common/stats: percentiles against hand-computed values and against the AISBench example
// table in the fourth seed document (its InputTokens and OutputTokens rows, reproduced exactly from
// eight values reconstructed by hand from the printed statistics).
#include "common/stats.hpp"

#include <gtest/gtest.h>

#include "common/format.hpp"

namespace tokbench::metrics {
namespace {

TEST(Stats, LinearPercentileMatchesNumpy) {
  // numpy.percentile([1, 2, 3, 4], [50, 75, 90, 99]) = 2.5, 3.25, 3.7, 3.97
  const std::vector<double> v{1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(percentile_linear(v, 50), 2.5);
  EXPECT_DOUBLE_EQ(percentile_linear(v, 75), 3.25);
  EXPECT_DOUBLE_EQ(percentile_linear(v, 90), 3.7);
  EXPECT_NEAR(percentile_linear(v, 99), 3.97, 1e-12);
  EXPECT_DOUBLE_EQ(percentile_linear(v, 0), 1);
  EXPECT_DOUBLE_EQ(percentile_linear(v, 100), 4);
}

TEST(Stats, SingleValueAndUnsortedInput) {
  auto s = summarize({5});
  EXPECT_EQ(s.n, 1);
  EXPECT_DOUBLE_EQ(s.p99, 5);
  s = summarize({10, 1, 7, 3});
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 10);
  EXPECT_DOUBLE_EQ(s.mean, 5.25);
  EXPECT_DOUBLE_EQ(s.median, 5);
}

TEST(Stats, EmptyInputHasNoValues) {
  const auto s = summarize({});
  EXPECT_EQ(s.n, 0);
}

TEST(Stats, AisbenchExampleOutputTokensRow) {
  // Printed: 287.375 | 200.0 | 407.0 | 280.0 | 322.75 | 374.8 | 403.78 | 8
  const auto s = summarize({200, 220, 241, 270, 290, 310, 361, 407});
  EXPECT_EQ(format_round4(s.mean), "287.375");
  EXPECT_EQ(format_round4(s.min), "200.0");
  EXPECT_EQ(format_round4(s.max), "407.0");
  EXPECT_EQ(format_round4(s.median), "280.0");
  EXPECT_EQ(format_round4(s.p75), "322.75");
  EXPECT_EQ(format_round4(s.p90), "374.8");
  EXPECT_EQ(format_round4(s.p99), "403.78");
  EXPECT_EQ(s.n, 8);
}

TEST(Stats, AisbenchExampleInputTokensRow) {
  // Printed: 1512.5 | 1481.0 | 1566.0 | 1511.5 | 1520.25 | 1536.6 | 1563.06 | 8
  const auto s = summarize({1481, 1490, 1497, 1505, 1518, 1519, 1524, 1566});
  EXPECT_EQ(format_round4(s.mean), "1512.5");
  EXPECT_EQ(format_round4(s.median), "1511.5");
  EXPECT_EQ(format_round4(s.p75), "1520.25");
  EXPECT_EQ(format_round4(s.p90), "1536.6");
  EXPECT_EQ(format_round4(s.p99), "1563.06");
}

TEST(Format, Round4LikePython) {
  EXPECT_EQ(format_round4(2048.29454), "2048.2945");
  EXPECT_EQ(format_round4(3450.96), "3450.96");
  EXPECT_EQ(format_round4(0.0), "0.0");
  EXPECT_EQ(format_round4(-0.00001), "0.0");
  EXPECT_EQ(format_round4(1e6), "1000000.0");
}

}  // namespace
}  // namespace tokbench::metrics

namespace tokbench::metrics {
namespace {

// np.std([2, 4, 4, 4, 5, 5, 7, 9]) == 2.0 (population, ddof 0: what vLLM's std_*_ms are).
TEST(Summarize, StandardDeviationIsNumpysPopulationStd) {
  EXPECT_DOUBLE_EQ(summarize({2, 4, 4, 4, 5, 5, 7, 9}).stdev, 2.0);
  EXPECT_DOUBLE_EQ(summarize({3}).stdev, 0.0);
}

}  // namespace
}  // namespace tokbench::metrics
