// common/samples: exact statistics in bounded memory. A column spilled to disk in many sorted
// runs gives bit-identical statistics to sorting every value in memory (summarize()).
#include "common/samples.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace tokbench::metrics {
namespace {

void expect_identical(const Summary& a, const Summary& b) {
  EXPECT_EQ(a.n, b.n);
  // Bit-identical, not merely close: the mean is summed in the same (ascending) order.
  EXPECT_EQ(a.mean, b.mean);
  EXPECT_EQ(a.min, b.min);
  EXPECT_EQ(a.max, b.max);
  EXPECT_EQ(a.median, b.median);
  EXPECT_EQ(a.p75, b.p75);
  EXPECT_EQ(a.p90, b.p90);
  EXPECT_EQ(a.p99, b.p99);
  // The standard deviation is computed in one pass, shifted by the minimum: equal to numpy's
  // two-pass np.std to rounding, not bit for bit.
  EXPECT_NEAR(a.stdev, b.stdev, 1e-9 * std::max(1.0, b.stdev));
}

TEST(Samples, SpilledRunsGiveTheSameStatisticsAsSortingInMemory) {
  std::mt19937_64 rng(42);
  std::lognormal_distribution<double> latency(3.0, 0.8);
  for (size_t n : {1u, 2u, 7u, 1000u, 100'003u}) {
    std::vector<double> all;
    Samples spilled(64);  // a run every 64 entries: ~1,500 runs at the largest size
    Samples memory(1 << 20);
    for (size_t i = 0; i < n; ++i) {
      const double v = i % 17 == 0 ? 5.0 : latency(rng);  // ties too
      all.push_back(v);
      spilled.push(v);
      memory.push(v);
    }
    EXPECT_EQ(spilled.spilled(), n > 64);
    EXPECT_FALSE(memory.spilled());
    for (auto m : {PercentileMethod::Linear, PercentileMethod::NearestLower}) {
      const Summary want = summarize(all, m);
      expect_identical(spilled.summarize(m), want);
      expect_identical(memory.summarize(m), want);
    }
  }
}

// Spills are radix-sorted on the values' bits: negatives, zeros of both signs, subnormals and
// values far apart must come out in the order a comparison sort gives.
TEST(Samples, RadixSortedSpillsOrderEveryKindOfDouble) {
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> u(-1e6, 1e6);
  const double special[] = {-0.0, 0.0, 4.9e-324, -4.9e-324, 1e300, -1e300, 1.0, -1.0, 123.456};
  std::vector<double> all;
  Samples spilled(1000);
  for (int i = 0; i < 25'000; ++i) {
    const double v = i % 7 == 0 ? special[static_cast<size_t>(i / 7) % std::size(special)]
                                : u(rng) * (i % 3 ? 1 : 1e-9);
    all.push_back(v);
    spilled.push(v);
  }
  ASSERT_TRUE(spilled.spilled());
  expect_identical(spilled.summarize(), summarize(all));
  std::vector<double> sorted;
  spilled.for_each_sorted(
      [&](double v, int64_t n) { sorted.insert(sorted.end(), static_cast<size_t>(n), v); });
  ASSERT_EQ(sorted.size(), all.size());
  EXPECT_TRUE(std::is_sorted(sorted.begin(), sorted.end()));
}

TEST(Samples, CountsAreCopiesOfOneValue) {
  Samples s(4);
  std::vector<double> all;
  for (int i = 0; i < 50; ++i) {
    const double v = (i * 37) % 11;
    const int64_t k = i % 4;  // 0 copies adds nothing
    s.push(v, k);
    all.insert(all.end(), static_cast<size_t>(k), v);
  }
  expect_identical(s.summarize(), summarize(all));
}

TEST(Samples, SortedReadersWalkTwoColumnsSideBySide) {
  Samples a(3), b(3);
  for (double v : {9.0, 1.0, 5.0, 3.0, 7.0}) a.push(v);
  for (double v : {2.0, 8.0, 4.0}) b.push(v);
  Samples::Reader ra(a), rb(b);
  std::vector<double> merged;
  Samples::Entry ea{}, eb{};
  bool ha = ra.next(ea), hb = rb.next(eb);
  while (ha || hb) {
    if (hb && (!ha || eb.v < ea.v)) {
      merged.push_back(eb.v);
      hb = rb.next(eb);
    } else {
      merged.push_back(ea.v);
      ha = ra.next(ea);
    }
  }
  EXPECT_EQ(merged, (std::vector<double>{1, 2, 3, 4, 5, 7, 8, 9}));
}

// Memory is flat in the column's length: the buffer keeps its cap, and every kRunsPerLevel runs
// of a level are merged on disk into one, so a long column holds few runs (a merge stays narrow)
// and its statistics stay exact across the merges.
TEST(Samples, LongColumnsKeepTheirBufferAndFewRuns) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> gap(1.0, 0.5);
  std::vector<double> all;
  Samples s(16);
  size_t most_runs = 0;
  for (int i = 0; i < 300'000; ++i) {  // 18,750 spills of 16: four levels of merges
    const double v = i % 5 == 0 ? 2.5 : gap(rng);
    all.push_back(v);
    s.push(v);
    most_runs = std::max(most_runs, s.runs());
  }
  EXPECT_LE(s.buffer_capacity(), 16u);
  // Base 32 of 18,750 runs: at most 31 a level over levels 0..2, and the one level-3 run.
  EXPECT_LE(most_runs, 3 * (Samples::kRunsPerLevel - 1) + 1);
  EXPECT_LT(s.runs(), 64u);
  for (auto m : {PercentileMethod::Linear, PercentileMethod::NearestLower})
    expect_identical(s.summarize(m), summarize(all, m));
  std::vector<double> sorted;
  s.for_each_sorted(
      [&](double v, int64_t n) { sorted.insert(sorted.end(), static_cast<size_t>(n), v); });
  std::sort(all.begin(), all.end());
  EXPECT_EQ(sorted, all);
}

TEST(Samples, EmptyColumnHasNoValues) {
  Samples s;
  EXPECT_TRUE(s.empty());
  EXPECT_EQ(s.summarize().n, 0);
}

}  // namespace
}  // namespace tokbench::metrics
