#include "history/regression.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace tokbench::history {

namespace {

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double mad_of(const std::vector<double>& v, double m) {
  std::vector<double> d;
  d.reserve(v.size());
  for (double x : v) d.push_back(std::abs(x - m));
  return median_of(std::move(d));
}

// Squared error of v[a, b) around its mean.
double sse(const std::vector<double>& v, size_t a, size_t b) {
  double mean = 0;
  for (size_t i = a; i < b; ++i) mean += v[i];
  mean /= static_cast<double>(b - a);
  double s = 0;
  for (size_t i = a; i < b; ++i) s += (v[i] - mean) * (v[i] - mean);
  return s;
}

double mean(const std::vector<double>& v, size_t a, size_t b) {
  double m = 0;
  for (size_t i = a; i < b; ++i) m += v[i];
  return m / static_cast<double>(b - a);
}

// Whether the shorter side of the split [a, at) | [at, b) lies wholly beyond the longer side's
// robust band, all on one side of it: one outlier run makes a short side of which only one value
// is beyond, so it is noise, not a new level (a level needs every run of it to show).
bool sides_apart(const std::vector<double>& v, size_t a, size_t at, size_t b) {
  const bool later_short = b - at <= at - a;
  const size_t la = later_short ? a : at, lb = later_short ? at : b;
  const size_t sa = later_short ? at : a, sb = later_short ? b : at;
  const auto band = robust_band(std::vector<double>(v.begin() + la, v.begin() + lb));
  if (!band) return true;  // too few runs for a band: the penalty and the shift decide
  size_t above = 0, below = 0;
  for (size_t i = sa; i < sb; ++i) {
    above += v[i] > band->high;
    below += v[i] < band->low;
  }
  return above == sb - sa || below == sb - sa;
}

void segment(const std::vector<double>& v, size_t a, size_t b, double penalty, double min_shift,
             std::vector<size_t>& out) {
  if (b - a < 2 * kMinSegment) return;
  const double whole = sse(v, a, b);
  double best = whole;
  size_t at = 0;
  for (size_t k = a + kMinSegment; k + kMinSegment <= b; ++k) {
    const double split = sse(v, a, k) + sse(v, k, b);
    if (split < best) {
      best = split;
      at = k;
    }
  }
  if (at == 0 || whole - best <= penalty) return;
  const double before = mean(v, a, at), after = mean(v, at, b);
  if (std::abs(after - before) <= min_shift * std::abs(before)) return;
  if (!sides_apart(v, a, at, b)) return;
  segment(v, a, at, penalty, min_shift, out);
  out.push_back(at);
  segment(v, at, b, penalty, min_shift, out);
}

}  // namespace

bool higher_is_worse(std::string_view metric) {
  for (std::string_view better_high :
       {"throughput", "success_requests", "goodput", "concurrency", "accuracy", "right_answers"})
    if (metric.find(better_high) != std::string_view::npos) return false;
  return true;  // latencies, failed requests, ...
}

std::vector<size_t> typical_runs(const std::vector<double>& values, double median, size_t k) {
  std::vector<size_t> order(values.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const double da = std::abs(values[a] - median), db = std::abs(values[b] - median);
    return da != db ? da < db : a > b;
  });
  if (order.size() > k) order.resize(k);
  return order;
}

std::optional<Band> robust_band(std::vector<double> baseline) {
  if (baseline.size() < kMinBaseline) return std::nullopt;
  Band b;
  b.n = baseline.size();
  b.median = median_of(baseline);
  b.mad = mad_of(baseline, b.median);
  const double half = kBandMads * 1.4826 * b.mad;
  b.low = b.median - half;
  b.high = b.median + half;
  return b;
}

Judgement judge(std::string metric, double value, const std::vector<double>& baseline,
                double threshold, std::optional<double> p_value, double alpha) {
  Judgement j;
  j.metric = std::move(metric);
  j.value = value;
  j.p_value = p_value;
  if (baseline.empty()) {
    j.why = "no earlier VALID run of this scenario: nothing to compare with";
    return j;
  }
  j.baseline = median_of(baseline);
  j.change = j.baseline != 0 ? (value - j.baseline) / std::abs(j.baseline) : 0;
  const bool up = higher_is_worse(j.metric);
  j.worse = up ? value > j.baseline : value < j.baseline;
  j.beyond_threshold = std::abs(j.change) > threshold;
  j.band = robust_band(baseline);
  j.outside_band = j.band && (value > j.band->high || value < j.band->low);
  const bool significant = !p_value || *p_value < alpha;
  const std::string change = fmt::format("{:+.1f}% against the median of {} earlier VALID run(s)",
                                         100 * j.change, baseline.size());
  if (!j.band) {
    j.why =
        fmt::format("{} {}: not judged, a baseline needs {} runs", j.metric, change, kMinBaseline);
    return j;
  }
  j.regression = j.worse && j.beyond_threshold && j.outside_band && significant;
  if (j.regression) {
    j.why = fmt::format(
        "{} regressed: {} (beyond {:.1f}%, outside the baseline's band {:.4g}..{:.4g}{})", j.metric,
        change, 100 * threshold, j.band->low, j.band->high,
        p_value ? fmt::format(", Mann–Whitney p={:.3g}", *p_value) : "");
  } else if (!j.worse && j.beyond_threshold && j.outside_band && significant) {
    j.why = fmt::format("{} improved: {}", j.metric, change);
  } else {
    j.why = fmt::format(
        "{} {}: {}", j.metric, change,
        !j.beyond_threshold ? fmt::format("within the {:.1f}% threshold", 100 * threshold)
        : !j.outside_band
            ? fmt::format("inside the baseline's noise ({:.4g}..{:.4g})", j.band->low, j.band->high)
            : fmt::format("not significant per request (Mann–Whitney p={:.3g})", *p_value));
  }
  return j;
}

std::vector<size_t> change_points(const std::vector<double>& series, double min_shift) {
  const size_t n = series.size();
  std::vector<size_t> out;
  if (n < 3) return out;
  std::vector<double> diffs;
  for (size_t i = 1; i < n; ++i) diffs.push_back(series[i] - series[i - 1]);
  const double m = median_of(diffs);
  double sigma = 1.4826 * mad_of(diffs, m) / std::sqrt(2.0);
  // A series with no noise at all (identical runs): any step is a change; a floor keeps the
  // penalty from being zero, at a millionth of the series' scale.
  double scale = 0;
  for (double x : series) scale = std::max(scale, std::abs(x));
  sigma = std::max(sigma, 1e-6 * std::max(scale, 1e-12));
  segment(series, 0, n, 2 * sigma * sigma * std::log(static_cast<double>(n)), min_shift, out);
  return out;
}

}  // namespace tokbench::history
