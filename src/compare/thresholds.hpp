#pragma once
// compare/thresholds: `--fail-if`, as pure maths — a bound on a metric's statistic (or on a common
// metric), absolute or as a change in percent against a baseline: parsed once, then judged
// against two values. compare/compare applies them to the runs it compares.
#include <optional>
#include <string>

#include "metrics/metrics.hpp"

namespace tokbench::metrics {

/// A parsed --fail-if threshold.
struct Threshold {
  std::string metric;  ///< row name as in result.json (E2EL, TTFT, ...) or a common key
  std::string stat;    ///< mean, median, p75, p90, p99, min, max; "" for common metrics
  std::string op;      ///< >, <, >=, <=
  double value = 0;
  bool relative = false;  ///< value is a change in percent against the baseline
  std::string text;
};

/// Parses "tpot.p99 > +5%" (metric names are case-insensitive). Throws std::invalid_argument
/// naming the flag, the problem and the form.
Threshold parse_threshold(const std::string& text);

/// A metric's name as result.json spells it: a row (E2EL, TTFT, ...) in its case, else the
/// lower-case key of a common metric.
std::string canonical_row(std::string name);

/// The statistic `stat` of row `metric` in `m` (a common metric when `stat` is ""); nullopt when
/// the run has none.
std::optional<double> stat_of(const MetricSet& m, const std::string& metric,
                              const std::string& stat);

/// What `t` compares (`value`, or its change in percent against `base` when relative; 0 % when
/// the base is 0) when the threshold is crossed; nullopt when it holds.
std::optional<double> crossed(const Threshold& t, double base, double value);

}  // namespace tokbench::metrics
