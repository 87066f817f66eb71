#include "common/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tokbench::metrics {

double percentile_linear(const std::vector<double>& sorted, double p) {
  const double h = (static_cast<double>(sorted.size()) - 1.0) * p / 100.0;
  const auto lo = static_cast<size_t>(std::floor(h));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

double percentile_nearest_lower(const std::vector<double>& sorted, double p) {
  const auto i = static_cast<size_t>(static_cast<double>(sorted.size()) * p / 100.0);
  return sorted[std::min(i, sorted.size() - 1)];
}

Summary summarize(std::vector<double> values, PercentileMethod method) {
  Summary s;
  s.n = static_cast<int64_t>(values.size());
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  s.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  s.min = values.front();
  s.max = values.back();
  const auto pct =
      method == PercentileMethod::Linear ? percentile_linear : percentile_nearest_lower;
  s.median = pct(values, 50);
  s.p75 = pct(values, 75);
  s.p90 = pct(values, 90);
  s.p99 = pct(values, 99);
  double sq = 0;
  for (double v : values) sq += (v - s.mean) * (v - s.mean);
  s.stdev = std::sqrt(sq / static_cast<double>(values.size()));
  return s;
}

}  // namespace tokbench::metrics
