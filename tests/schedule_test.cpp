// load/schedule: Poisson arrivals — seeded, absolute, at the asked mean rate.
#include "load/schedule.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace tokbench::load {
namespace {

TEST(PoissonSchedule, MeanRateAndDeterminism) {
  const auto a = poisson_schedule(20000, 50.0, 7);
  ASSERT_EQ(a.size(), 20000u);
  EXPECT_EQ(a.front(), 0);
  for (size_t i = 1; i < a.size(); ++i) ASSERT_GE(a[i], a[i - 1]);
  const double rate = static_cast<double>(a.size() - 1) / (static_cast<double>(a.back()) / 1e9);
  EXPECT_NEAR(rate, 50.0, 50.0 * 0.03);
  EXPECT_EQ(poisson_schedule(20000, 50.0, 7), a);
  EXPECT_NE(poisson_schedule(20000, 50.0, 8), a);
}

TEST(PoissonSchedule, ZeroRateMeansNoSchedule) { EXPECT_TRUE(poisson_schedule(10, 0, 1).empty()); }

TEST(PoissonSchedule, GapsAreExponential) {
  // For an exponential distribution the coefficient of variation is 1.
  const auto a = poisson_schedule(20000, 10.0, 3);
  double sum = 0, sq = 0;
  for (size_t i = 1; i < a.size(); ++i) {
    const double g = static_cast<double>(a[i] - a[i - 1]);
    sum += g;
    sq += g * g;
  }
  const double n = static_cast<double>(a.size() - 1);
  const double mean = sum / n;
  const double cv = std::sqrt(sq / n - mean * mean) / mean;
  EXPECT_NEAR(cv, 1.0, 0.05);
}

}  // namespace
}  // namespace tokbench::load
