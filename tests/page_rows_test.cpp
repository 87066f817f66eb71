// report/page_rows: every request drawn up to the limit; past it a bounded, seeded sample that
// keeps every failure (up to its cap) and the slowest successes.
#include "report/page_rows.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace tokbench::report {
namespace {

PageRow row(int64_t i, bool ok, double e2el) {
  PageRow r;
  r.index = i;
  r.ok = ok;
  r.start = static_cast<double>(i);
  r.e2el = e2el;
  r.end = r.start + e2el;
  return r;
}

// A pseudo-random latency per index (no two equal), so "the slowest" is a set the test knows.
double e2el_of(int64_t i) {
  return static_cast<double>((i * 7919) % 1'000'003) + static_cast<double>(i) * 1e-9;
}

TEST(RowSampler, BelowTheLimitEveryRequestIsDrawn) {
  RowSampler s;
  const int64_t n = RowSampler::kDrawAll;
  for (int64_t i = 0; i < n; ++i) s.add(row(i, i % 50 != 0, e2el_of(i)));
  const auto d = s.take();
  EXPECT_FALSE(d.sampled);
  ASSERT_EQ(static_cast<int64_t>(d.rows.size()), n);
  EXPECT_EQ(d.failed, n / 50);
  EXPECT_EQ(d.failed_drawn, n / 50);
  std::set<int64_t> seen;
  for (const auto& r : d.rows) seen.insert(r.index);
  EXPECT_EQ(static_cast<int64_t>(seen.size()), n);
}

TEST(RowSampler, PastTheLimitKeepsEveryFailureAndTheSlowest) {
  const int64_t n = 300'000;
  std::vector<std::pair<double, int64_t>> ok_latency;
  RowSampler s, again;
  for (int64_t i = 0; i < n; ++i) {
    const bool ok = i % 601 != 0;  // 500 failures spread over the run
    const auto r = row(i, ok, e2el_of(i));
    s.add(r);
    again.add(r);
    if (ok) ok_latency.emplace_back(r.e2el, i);
  }
  const auto d = s.take();
  ASSERT_TRUE(d.sampled);
  EXPECT_EQ(d.total, n);
  EXPECT_EQ(d.failed, 500);
  EXPECT_EQ(d.failed_drawn, 500);
  EXPECT_EQ(d.slowest_drawn, static_cast<int64_t>(RowSampler::kSlowest));
  EXPECT_EQ(d.sampled_drawn, static_cast<int64_t>(RowSampler::kSample));
  ASSERT_EQ(d.rows.size(), 500 + RowSampler::kSlowest + RowSampler::kSample);
  std::set<int64_t> drawn;
  for (const auto& r : d.rows) drawn.insert(r.index);
  EXPECT_EQ(drawn.size(), d.rows.size()) << "a request drawn twice";
  for (int64_t i = 0; i < n; i += 601)
    EXPECT_TRUE(drawn.contains(i)) << "failure " << i << " dropped";
  std::sort(ok_latency.rbegin(), ok_latency.rend());
  for (size_t k = 0; k < RowSampler::kSlowest; ++k)
    ASSERT_TRUE(drawn.contains(ok_latency[k].second)) << "the " << k << "th slowest was dropped";
  // The rest is a uniform sample: its indices spread over the whole run, not its start.
  double mean = 0;
  for (const auto& r : d.rows)
    mean += static_cast<double>(r.index) / static_cast<double>(d.rows.size());
  EXPECT_NEAR(mean, n / 2.0, n * 0.02);
  // Seeded: the same records give the same page.
  const auto d2 = again.take();
  ASSERT_EQ(d2.rows.size(), d.rows.size());
  for (size_t k = 0; k < d.rows.size(); ++k) EXPECT_EQ(d2.rows[k].index, d.rows[k].index);
}

TEST(RowSampler, FailuresPastTheirCapAreSampledAndCounted) {
  const int64_t n = 100'000;
  RowSampler s;
  for (int64_t i = 0; i < n; ++i) s.add(row(i, i % 10 >= 3, e2el_of(i)));  // 30% fail
  const auto d = s.take();
  ASSERT_TRUE(d.sampled);
  EXPECT_EQ(d.failed, 30'000);
  EXPECT_EQ(d.failed_drawn, static_cast<int64_t>(RowSampler::kFailuresKept));
  EXPECT_EQ(std::count_if(d.rows.begin(), d.rows.end(), [](const PageRow& r) { return !r.ok; }),
            static_cast<int64_t>(RowSampler::kFailuresKept));
  EXPECT_LE(d.rows.size(), RowSampler::kFailuresKept + RowSampler::kSlowest + RowSampler::kSample);
}

}  // namespace
}  // namespace tokbench::report
