// metrics/fairness: Jain's index, token shares against weights and the most starved class, held
// to a hand computation.
#include "metrics/fairness.hpp"

#include <gtest/gtest.h>

namespace tokbench::metrics {
namespace {

TEST(Fairness, JainsIndexIsOneWhenEqualAndOneOverNWhenOneTakesAll) {
  EXPECT_DOUBLE_EQ(*jain_index({5, 5, 5, 5}), 1.0);
  EXPECT_DOUBLE_EQ(*jain_index({7, 0, 0, 0}), 0.25);
  // (1 + 2 + 3)² / (3 · (1 + 4 + 9)) = 36 / 42
  EXPECT_DOUBLE_EQ(*jain_index({1, 2, 3}), 36.0 / 42.0);
  EXPECT_FALSE(jain_index({}));
  EXPECT_FALSE(jain_index({0, 0}));
}

TEST(Fairness, WeightedThroughputsSharesAndStarvationByHand) {
  // Over 10 s: chat (weight 3) got 6000 tokens, batch (weight 1) 4000; chat met its SLO 90
  // times, batch 10; batch waited up to 2.5 s for a first token, chat 0.3 s.
  const Fairness f = fairness({{"chat", 3, 6000, 90, 300}, {"batch", 1, 4000, 10, 2500}}, 10);
  ASSERT_EQ(f.classes.size(), 2u);
  const auto& chat = f.classes[0];
  const auto& batch = f.classes[1];
  EXPECT_DOUBLE_EQ(chat.token_throughput, 600);
  EXPECT_DOUBLE_EQ(chat.weighted_throughput, 200);
  EXPECT_DOUBLE_EQ(batch.weighted_throughput, 400);
  EXPECT_DOUBLE_EQ(chat.token_share, 0.6);
  EXPECT_DOUBLE_EQ(chat.weight_share, 0.75);
  EXPECT_DOUBLE_EQ(batch.token_share, 0.4);
  EXPECT_DOUBLE_EQ(f.largest_share_gap, 0.15);
  // (200 + 400)² / (2 · (200² + 400²)) = 360000 / 400000
  EXPECT_DOUBLE_EQ(*f.jain_throughput, 0.9);
  // goodput 9/s and 1/s; weighted 3 and 1: (3 + 1)² / (2 · (9 + 1)) = 16 / 20
  EXPECT_DOUBLE_EQ(*chat.goodput, 9);
  EXPECT_DOUBLE_EQ(*f.jain_goodput, 0.8);
  EXPECT_EQ(f.most_starved, "batch");
}

TEST(Fairness, GoodputIndexNeedsEveryClassToHaveAnSlo) {
  const Fairness f = fairness({{"a", 1, 100, 5, 0}, {"b", 1, 100, -1, 0}}, 1);
  EXPECT_FALSE(f.jain_goodput);
  EXPECT_FALSE(f.classes[1].goodput);
  EXPECT_DOUBLE_EQ(*f.jain_throughput, 1.0);
}

TEST(Fairness, BadWeightsAndDurationsAreNamed) {
  try {
    fairness({{"chat", 0, 1, -1, 0}}, 1);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("class 'chat': weight 0 (give a weight > 0)"),
              std::string::npos);
  }
  EXPECT_THROW(fairness({{"chat", 1, 1, -1, 0}}, 0), std::invalid_argument);
}

}  // namespace
}  // namespace tokbench::metrics
