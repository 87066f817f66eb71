// common/significance: Mann–Whitney U on synthetic data with known answers.
#include "common/significance.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
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
    significant +=
        mann_whitney(lognormal(200, 10, seed), lognormal(200, 10, 1000 + seed)).p_value < 0.05;
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

// Past the samples' memory cap the test still ranks exactly: the same U and p as ranking one
// sorted vector in memory (the reference below), with many ties, on columns that spilled to disk.
TEST(MannWhitney, ExactOverSpilledSamplesWithTies) {
  std::mt19937_64 rng(7);
  std::vector<double> a, b;
  for (int i = 0; i < 60'000; ++i)
    a.push_back(std::floor(std::lognormal_distribution<double>(std::log(50), 0.3)(rng)));
  for (int i = 0; i < 45'000; ++i)
    b.push_back(std::floor(std::lognormal_distribution<double>(std::log(51), 0.3)(rng)));
  std::vector<std::pair<double, int>> all;
  for (double x : a) all.emplace_back(x, 0);
  for (double x : b) all.emplace_back(x, 1);
  std::sort(all.begin(), all.end());
  double rank_sum_a = 0, ties = 0;
  for (size_t i = 0, j; i < all.size(); i = j) {
    for (j = i; j < all.size() && all[j].first == all[i].first; ++j) {
    }
    const double t = static_cast<double>(j - i);
    ties += t * t * t - t;
    for (size_t k = i; k < j; ++k)
      rank_sum_a +=
          all[k].second == 0 ? (static_cast<double>(i + 1) + static_cast<double>(j)) / 2 : 0;
  }
  const double n1 = 60'000, n2 = 45'000, n = n1 + n2, u = rank_sum_a - n1 * (n1 + 1) / 2;
  const double sd = std::sqrt(n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1))));
  const double diff = u - n1 * n2 / 2;
  const double z = (diff - (diff > 0 ? 0.5 : -0.5)) / sd;
  Samples sa(256), sb(256);  // a few hundred entries in memory: both spill many sorted runs
  for (size_t i = 0; i < a.size(); ++i) sa.push(a[a.size() - 1 - i]);
  for (double x : b) sb.push(x);
  ASSERT_TRUE(sa.spilled() && sb.spilled());
  const auto r = mann_whitney(sa, sb);
  EXPECT_NEAR(r.u, u, 1e-6 * u);
  EXPECT_NEAR(r.z, z, 1e-9);
  EXPECT_LT(r.p_value, 0.05);
  EXPECT_EQ(mann_whitney(a, b).u, r.u);
}

}  // namespace
}  // namespace tokbench::metrics

namespace tokbench::metrics {
namespace {

// scipy.stats.t.ppf(0.975, df) for df = 1, 4, 9, 29: 12.7062, 2.7764, 2.2622, 2.0452.
TEST(StudentT, QuantilesMatchScipy) {
  EXPECT_NEAR(student_t_quantile(0.975, 1), 12.706204736, 1e-6);
  EXPECT_NEAR(student_t_quantile(0.975, 4), 2.776445105, 1e-8);
  EXPECT_NEAR(student_t_quantile(0.975, 9), 2.262157163, 1e-8);
  EXPECT_NEAR(student_t_quantile(0.995, 29), 2.756385904, 1e-8);
  EXPECT_NEAR(student_t_cdf(0, 5), 0.5, 1e-15);
}

TEST(StudentT, ConfidenceIntervalOfRepeats) {
  // mean 10, sample sd 1 over 5 runs: half-width = 2.7764 / sqrt(5).
  const auto ci = confidence_interval({9, 11, 10, 9, 11}, 0.95);
  EXPECT_DOUBLE_EQ(ci.mean, 10);
  EXPECT_NEAR(ci.stdev, 1, 1e-12);
  EXPECT_NEAR(ci.half_width, 2.776445105 / std::sqrt(5.0), 1e-8);
  EXPECT_NEAR(ci.low, 10 - ci.half_width, 1e-12);
  EXPECT_NEAR(ci.cv, 0.1, 1e-12);
  EXPECT_TRUE(std::isnan(confidence_interval({3}, 0.95).half_width));  // one run: no interval
}

TEST(StudentT, WelchSeparatesShiftedGroupsOnly) {
  // Means 3 and 5, variances 2.5: t = -2 on 8 degrees of freedom; two-sided p = 0.0805162 (the
  // t density integrated numerically; scipy's ttest_ind(equal_var=False) gives the same).
  EXPECT_NEAR(welch_p_value({1, 2, 3, 4, 5}, {3, 4, 5, 6, 7}), 0.080516238, 1e-7);
  EXPECT_GT(welch_p_value({10, 11, 9, 10}, {10, 9, 11, 10}), 0.9);
  EXPECT_LT(welch_p_value({10, 10.1, 9.9, 10}, {20, 20.2, 19.8, 20}), 1e-6);
}

}  // namespace
}  // namespace tokbench::metrics
