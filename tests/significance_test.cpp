// metrics/significance: Mann–Whitney U on synthetic data with known answers.
#include "metrics/significance.hpp"

#include <gtest/gtest.h>

#include <random>

namespace tokbench::metrics {
namespace {

std::vector<double> lognormal(size_t n, double median, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> d(std::log(median), 0.25);
  std::vector<double> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

TEST(MannWhitney, IdenticalDistributionsAreNotSignificant) {
  int significant = 0;
  for (uint64_t seed = 0; seed < 40; ++seed)
    significant += mann_whitney(lognormal(200, 10, seed), lognormal(200, 10, 1000 + seed)).p_value < 0.05;
  EXPECT_LE(significant, 6);  // about 5% false positives expected at alpha 0.05
}

TEST(MannWhitney, TenPercentShiftIsSignificant) {
  for (uint64_t seed = 0; seed < 10; ++seed) {
    const auto r = mann_whitney(lognormal(200, 10, seed), lognormal(200, 11, 1000 + seed));
    EXPECT_LT(r.p_value, 0.05) << seed;
    EXPECT_LT(r.effect, 0.5);  // the first sample tends to be smaller
  }
}

TEST(MannWhitney, HandComputedSmallSample) {
  // a = {1, 2, 3}, b = {4, 5, 6}: every b beats every a, U_a = 0; z = (0 - 4.5 + 0.5) / sqrt(5.25).
  const auto r = mann_whitney({1, 2, 3}, {4, 5, 6});
  EXPECT_DOUBLE_EQ(r.u, 0);
  EXPECT_NEAR(r.z, -4.0 / std::sqrt(5.25), 1e-12);
  EXPECT_NEAR(r.p_value, std::erfc(4.0 / std::sqrt(5.25) / std::sqrt(2.0)), 1e-12);
  // All values tied: no evidence.
  EXPECT_DOUBLE_EQ(mann_whitney({5, 5, 5}, {5, 5}).p_value, 1);
  EXPECT_DOUBLE_EQ(mann_whitney({1}, {2, 3}).p_value, 1);
}

}  // namespace
}  // namespace tokbench::metrics
