// report/page_rows: every request drawn up to the limit; past it a bounded, seeded sample that
// keeps every failure (up to its cap) and the slowest successes.
#include "report/page_rows.hpp"

#include <gtest/gtest.h>
#include <malloc.h>

#include <algorithm>
#include <set>
#include <vector>

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

// What a page draws, collected (a test's own copy: the page writes them as they are read back).
std::vector<PageRow> rows_of(RowSampler::Drawn& d) {
  std::vector<PageRow> out;
  d.for_each([&](const PageRow& r) { out.push_back(r); });
  EXPECT_EQ(static_cast<int64_t>(out.size()), d.drawn);
  return out;
}

// A pseudo-random latency per index (no two equal), so "the slowest" is a set the test knows.
double e2el_of(int64_t i) {
  return static_cast<double>((i * 7919) % 1'000'003) + static_cast<double>(i) * 1e-9;
}

TEST(RowSampler, BelowTheLimitEveryRequestIsDrawn) {
  RowSampler s;
  const int64_t n = RowSampler::kDrawAll;
  for (int64_t i = 0; i < n; ++i) s.add(row(i, i % 50 != 0, e2el_of(i)));
  auto d = s.take();
  const auto rows = rows_of(d);
  EXPECT_FALSE(d.sampled);
  ASSERT_EQ(static_cast<int64_t>(rows.size()), n);
  EXPECT_EQ(d.failed, n / 50);
  EXPECT_EQ(d.failed_drawn, n / 50);
  std::set<int64_t> seen;
  for (const auto& r : rows) seen.insert(r.index);
  EXPECT_EQ(static_cast<int64_t>(seen.size()), n);
}

// Below the limit the rows wait in a temporary file: the heap holds a stdio buffer, not 80 bytes
// a row (4 MB at the limit), so the page's memory does not grow with the run up to it.
TEST(RowSampler, RowsBelowTheLimitWaitOnDiskNotInMemory) {
  const size_t before = mallinfo2().uordblks;  // (zero under a sanitizer's allocator)
  RowSampler s;
  const int64_t n = RowSampler::kDrawAll;
  for (int64_t i = 0; i < n; ++i) s.add(row(i, true, e2el_of(i)));
  const size_t held = mallinfo2().uordblks - before;
  EXPECT_LT(held, size_t{256} << 10) << "in memory they take " << n * sizeof(PageRow);
  auto d = s.take();
  EXPECT_EQ(static_cast<int64_t>(rows_of(d).size()), n);
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
  auto d = s.take();
  const auto rows = rows_of(d);
  ASSERT_TRUE(d.sampled);
  EXPECT_EQ(d.total, n);
  EXPECT_EQ(d.failed, 500);
  EXPECT_EQ(d.failed_drawn, 500);
  EXPECT_EQ(d.slowest_drawn, static_cast<int64_t>(RowSampler::kSlowest));
  EXPECT_EQ(d.sampled_drawn, static_cast<int64_t>(RowSampler::kSample));
  ASSERT_EQ(rows.size(), 500 + RowSampler::kSlowest + RowSampler::kSample);
  std::set<int64_t> drawn;
  for (const auto& r : rows) drawn.insert(r.index);
  EXPECT_EQ(drawn.size(), rows.size()) << "a request drawn twice";
  for (int64_t i = 0; i < n; i += 601)
    EXPECT_TRUE(drawn.contains(i)) << "failure " << i << " dropped";
  std::sort(ok_latency.rbegin(), ok_latency.rend());
  for (size_t k = 0; k < RowSampler::kSlowest; ++k)
    ASSERT_TRUE(drawn.contains(ok_latency[k].second)) << "the " << k << "th slowest was dropped";
  // The rest is a uniform sample: its indices spread over the whole run, not its start.
  double mean = 0;
  for (const auto& r : rows)
    mean += static_cast<double>(r.index) / static_cast<double>(rows.size());
  EXPECT_NEAR(mean, n / 2.0, n * 0.02);
  // Seeded: the same records give the same page.
  auto d2 = again.take();
  const auto rows2 = rows_of(d2);
  ASSERT_EQ(rows2.size(), rows.size());
  for (size_t k = 0; k < rows.size(); ++k) EXPECT_EQ(rows2[k].index, rows[k].index);
}

TEST(RowSampler, FailuresPastTheirCapAreSampledAndCounted) {
  const int64_t n = 100'000;
  RowSampler s;
  for (int64_t i = 0; i < n; ++i) s.add(row(i, i % 10 >= 3, e2el_of(i)));  // 30% fail
  auto d = s.take();
  const auto rows = rows_of(d);
  ASSERT_TRUE(d.sampled);
  EXPECT_EQ(d.failed, 30'000);
  EXPECT_EQ(d.failed_drawn, static_cast<int64_t>(RowSampler::kFailuresKept));
  EXPECT_EQ(std::count_if(rows.begin(), rows.end(), [](const PageRow& r) { return !r.ok; }),
            static_cast<int64_t>(RowSampler::kFailuresKept));
  EXPECT_LE(rows.size(), RowSampler::kFailuresKept + RowSampler::kSlowest + RowSampler::kSample);
}

}  // namespace
}  // namespace tokbench::report
