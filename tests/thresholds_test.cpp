// compare/thresholds: --fail-if parsed once (names case-insensitive, every bad form named with
// the fix) and judged against a baseline: relative in percent, absolute, every operator.
#include "compare/thresholds.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace tokbench::metrics {
namespace {

TEST(Thresholds, ParsesRowsStatisticsAndCommonMetrics) {
  const Threshold t = parse_threshold("tpot.p99 > +5%");
  EXPECT_EQ(t.metric, "TPOT");
  EXPECT_EQ(t.stat, "p99");
  EXPECT_EQ(t.op, ">");
  EXPECT_EQ(t.value, 5);
  EXPECT_TRUE(t.relative);
  const Threshold c = parse_threshold("Output_Token_Throughput <= 1200");
  EXPECT_EQ(c.metric, "output_token_throughput");  // a common metric's key
  EXPECT_EQ(c.stat, "");
  EXPECT_FALSE(c.relative);
  EXPECT_EQ(canonical_row("outputtokenthroughput"), "OutputTokenThroughput");
  for (const char* bad :
       {"tpot.p99 >> 5", "tpot.p42 > 5", "tpot.p99 > five", "tpot.p99 >", "tpot.p99 > 5 extra"}) {
    try {
      (void)parse_threshold(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("--fail-if: bad value"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("e.g. 'tpot.p99 > +5%'"), std::string::npos) << e.what();
    }
  }
}

TEST(Thresholds, CrossedComparesTheChangeOrTheValue) {
  const Threshold up = parse_threshold("tpot.p99 > +5%");
  EXPECT_FALSE(crossed(up, 100, 105));  // +5 % is not above +5 %
  ASSERT_TRUE(crossed(up, 100, 106));
  EXPECT_DOUBLE_EQ(*crossed(up, 100, 106), 6);
  EXPECT_FALSE(crossed(up, 0, 50));  // no change can be computed from 0: it counts as 0 %
  const Threshold down = parse_threshold("output_token_throughput < -10%");
  EXPECT_TRUE(crossed(down, 1000, 850));
  EXPECT_FALSE(crossed(down, 1000, 950));
  const Threshold absolute = parse_threshold("ttft.mean >= 500");
  EXPECT_TRUE(crossed(absolute, 1, 500));
  EXPECT_FALSE(crossed(absolute, 1, 499.9));
  EXPECT_TRUE(crossed(parse_threshold("e2el.max <= 10"), 0, 10));
}

}  // namespace
}  // namespace tokbench::metrics
