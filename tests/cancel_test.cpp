// core/cancel: --cancel-after's small language, and which requests a --cancel-rate draws (a pure
// function of the seed and the index: every rank, repeat and resume cancels the same ones).
#include "core/cancel.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace tokbench::core {
namespace {

TEST(CancelAfter, ReadsTimesTokenCountsAndRanges) {
  std::string why;
  auto ms = parse_cancel_after("500ms", &why);
  ASSERT_TRUE(ms) << why;
  EXPECT_EQ(ms->unit, CancelAfter::Unit::Ms);
  EXPECT_EQ(ms->lo, 500);
  EXPECT_EQ(ms->hi, 500);
  auto s = parse_cancel_after("2s", &why);
  ASSERT_TRUE(s) << why;
  EXPECT_EQ(s->lo, 2000);
  auto tok = parse_cancel_after("16tok", &why);
  ASSERT_TRUE(tok) << why;
  EXPECT_EQ(tok->unit, CancelAfter::Unit::Tokens);
  EXPECT_EQ(tok->lo, 16);
  auto range = parse_cancel_after("200ms..2s", &why);
  ASSERT_TRUE(range) << why;
  EXPECT_EQ(range->lo, 200);
  EXPECT_EQ(range->hi, 2000);
  EXPECT_EQ(cancel_after_text(*range), "200ms..2000ms");
  EXPECT_EQ(cancel_after_text(*tok), "16tok");
  ASSERT_TRUE(parse_cancel_after("8tokens..64tok", &why)) << why;
}

TEST(CancelAfter, BadSpellingsNameTheFix) {
  std::string why;
  EXPECT_FALSE(parse_cancel_after("5", &why));
  EXPECT_NE(why.find("ms, s or tok"), std::string::npos) << why;
  EXPECT_FALSE(parse_cancel_after("fast", &why));
  EXPECT_NE(why.find("number"), std::string::npos) << why;
  EXPECT_FALSE(parse_cancel_after("200ms..8tok", &why));
  EXPECT_NE(why.find("both times or both token counts"), std::string::npos) << why;
  EXPECT_FALSE(parse_cancel_after("2s..200ms", &why));
  EXPECT_NE(why.find("smaller to the larger"), std::string::npos) << why;
  EXPECT_FALSE(parse_cancel_after("0tok", &why));
  EXPECT_NE(why.find("1 or more"), std::string::npos) << why;
  EXPECT_FALSE(parse_cancel_after("-1s", &why));
}

TEST(CancelPoint, DrawsTheAskedShareTheSameWayEveryTime) {
  const CancelAfter after{CancelAfter::Unit::Ms, 200, 2000};
  constexpr int kN = 20000;
  int drawn = 0;
  for (int64_t i = 0; i < kN; ++i) {
    const CancelPoint p = cancel_point(7, i, 0.2, after);
    const CancelPoint again = cancel_point(7, i, 0.2, after);
    EXPECT_EQ(p.after_ns, again.after_ns);
    if (!p.planned()) continue;
    ++drawn;
    EXPECT_EQ(p.after_tokens, -1);
    EXPECT_GE(p.after_ns, 200'000'000);
    EXPECT_LE(p.after_ns, 2'000'000'000);
  }
  // Binomial: 4000 ± 4 standard deviations (56.6 each).
  EXPECT_NEAR(drawn, 4000, 4 * std::sqrt(kN * 0.2 * 0.8));
  // Another seed draws other requests; rate 0 none, rate 1 all.
  int same = 0;
  for (int64_t i = 0; i < 1000; ++i) {
    same += cancel_point(7, i, 0.2, after).planned() == cancel_point(8, i, 0.2, after).planned();
    EXPECT_FALSE(cancel_point(7, i, 0, after).planned());
    EXPECT_TRUE(cancel_point(7, i, 1, after).planned());
  }
  EXPECT_LT(same, 1000);
  const CancelPoint fixed = cancel_point(7, 3, 1, CancelAfter{CancelAfter::Unit::Tokens, 16, 16});
  EXPECT_EQ(fixed.after_tokens, 16);
  EXPECT_EQ(fixed.after_ns, -1);
}

}  // namespace
}  // namespace tokbench::core
