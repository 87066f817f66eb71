#pragma once
// common/significance: is a change between two runs' latency distributions real or noise?
// Mann–Whitney U (two-sided, normal approximation with tie correction and continuity
// correction): no assumption of normality, robust to the long tails latency has. Exact at any
// size in bounded memory: the pooled ranks come from walking both samples' sorted orders side by
// side (common/samples spills sorted runs to disk past its cap), never from one sorted vector.
#include <cstdint>
#include <vector>

#include "common/samples.hpp"

namespace tokbench::metrics {

struct MannWhitney {
  double u = 0;        ///< U statistic of the first sample
  double z = 0;        ///< standardized, continuity-corrected
  double p_value = 1;  ///< two-sided
  double effect = 0;   ///< common-language effect size: P(a > b) + P(a == b)/2
};

/// Compares samples `a` and `b` (each needs at least 2 values; otherwise p = 1). Reads both in
/// ascending order (Samples::Reader); neither may change meanwhile.
MannWhitney mann_whitney(Samples& a, Samples& b);
/// The same for values in memory (a test's, or a few).
MannWhitney mann_whitney(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace tokbench::metrics

namespace tokbench::metrics {

/// Student's t distribution: P(T <= t) with `df` degrees of freedom (df > 0).
double student_t_cdf(double t, double df);
/// The t with P(T <= t) = p (0 < p < 1), by bisection on the CDF (to 1e-12).
double student_t_quantile(double p, double df);

/// Mean ± a confidence interval from N repeated runs (t-distribution, N − 1 degrees of freedom),
/// as AIPerf's multi-run confidence reports it: sample standard deviation (ddof 1), standard
/// error, coefficient of variation. N < 2: no interval (half_width NaN).
struct ConfidenceInterval {
  int64_t n = 0;
  double level = 0.95;
  double mean = 0, stdev = 0, std_error = 0, cv = 0, half_width = 0, low = 0, high = 0;
};
ConfidenceInterval confidence_interval(const std::vector<double>& values, double level);

/// Welch's two-sided t-test on two groups of per-run values (each needs at least 2); p = 1
/// otherwise.
double welch_p_value(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace tokbench::metrics
