#include "metrics/energy.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace tokbench::metrics {

namespace {

double lerp(int64_t t0, double v0, int64_t t1, double v1, int64_t t) {
  if (t1 == t0) return v1;
  return v0 + (v1 - v0) * static_cast<double>(t - t0) / static_cast<double>(t1 - t0);
}

// The samples that have the quantity, in time order.
std::vector<std::pair<int64_t, double>> points(const std::vector<PowerSample>& series, bool counter) {
  std::vector<std::pair<int64_t, double>> out;
  for (const auto& s : series) {
    const auto& v = counter ? s.energy_j : s.power_w;
    if (v) out.emplace_back(s.t_ns, *v);
  }
  return out;
}

// Coverage: a sample at or before the start and one at or after the end, and no gap in between
// longer than max_gap. Fills e.samples and e.max_gap_s; returns the why, "" when covered.
std::string coverage(const std::vector<std::pair<int64_t, double>>& p, int64_t start, int64_t end, int64_t max_gap, Energy& e) {
  if (p.empty()) return "no sample";
  if (p.front().first > start)
    return fmt::format("the first sample came {:.3f} s after the phase began", static_cast<double>(p.front().first - start) / 1e9);
  if (p.back().first < end)
    return fmt::format("the last sample came {:.3f} s before the phase ended", static_cast<double>(end - p.back().first) / 1e9);
  int64_t gap = 0;
  for (size_t i = 1; i < p.size(); ++i) {
    if (p[i].first < start || p[i - 1].first > end) continue;  // the gaps across the phase only
    gap = std::max(gap, p[i].first - p[i - 1].first);
    e.samples += p[i].first <= end;
  }
  e.samples += 1;  // the sample at or before the start
  e.max_gap_s = static_cast<double>(gap) / 1e9;
  if (gap > max_gap)
    return fmt::format("a gap of {:.3f} s between samples (longer than {:.3f} s)", e.max_gap_s, static_cast<double>(max_gap) / 1e9);
  return {};
}

// The counter's increase over [start, end]: the sum of its positive steps, a drop (a reset) taken
// as a restart from zero, the edges interpolated inside their intervals.
double counter_increase(const std::vector<std::pair<int64_t, double>>& p, int64_t start, int64_t end, int64_t& resets) {
  double total = 0;
  for (size_t i = 1; i < p.size(); ++i) {
    const auto [t0, v0] = p[i - 1];
    const auto [t1, v1] = p[i];
    if (t1 <= start || t0 >= end) continue;
    const bool reset = v1 < v0;
    resets += reset;
    // Within the interval the energy grows linearly from (reset ? 0 : v0) to v1.
    const double from = reset ? 0 : v0;
    const int64_t a = std::max(t0, start), b = std::min(t1, end);
    total += lerp(t0, from, t1, v1, b) - lerp(t0, from, t1, v1, a);
  }
  return total;
}

double power_integral(const std::vector<std::pair<int64_t, double>>& p, int64_t start, int64_t end) {
  double joules = 0;
  for (size_t i = 1; i < p.size(); ++i) {
    const auto [t0, w0] = p[i - 1];
    const auto [t1, w1] = p[i];
    if (t1 <= start || t0 >= end) continue;
    const int64_t a = std::max(t0, start), b = std::min(t1, end);
    const double wa = lerp(t0, w0, t1, w1, a), wb = lerp(t0, w0, t1, w1, b);
    joules += (wa + wb) / 2 * static_cast<double>(b - a) / 1e9;
  }
  return joules;
}

}  // namespace

Energy energy_over(const std::vector<PowerSample>& series, int64_t start_ns, int64_t end_ns, int64_t max_gap_ns) {
  Energy e;
  if (end_ns <= start_ns) {
    e.why = "the phase has no length";
    return e;
  }
  const auto counter = points(series, true);
  if (!counter.empty()) {
    e.method = "energy counter";
    e.why = coverage(counter, start_ns, end_ns, max_gap_ns, e);
    if (!e.why.empty()) return e;
    e.joules = counter_increase(counter, start_ns, end_ns, e.resets);
    e.known = true;
    return e;
  }
  const auto power = points(series, false);
  e.method = "power integrated over the samples (trapezoids)";
  e.why = coverage(power, start_ns, end_ns, max_gap_ns, e);
  if (!e.why.empty()) return e;
  e.joules = power_integral(power, start_ns, end_ns);
  e.known = true;
  return e;
}

}  // namespace tokbench::metrics
