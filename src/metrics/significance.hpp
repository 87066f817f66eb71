#pragma once
// metrics/significance: is a change between two runs' latency distributions real or noise?
// Mann–Whitney U (two-sided, normal approximation with tie correction and continuity
// correction): no assumption of normality, robust to the long tails latency has. Pure.
#include <vector>

namespace tokbench::metrics {

struct MannWhitney {
  double u = 0;        ///< U statistic of the first sample
  double z = 0;        ///< standardized, continuity-corrected
  double p_value = 1;  ///< two-sided
  double effect = 0;   ///< common-language effect size: P(a > b) + P(a == b)/2
};

/// Compares samples `a` and `b` (each needs at least 2 values; otherwise p = 1).
MannWhitney mann_whitney(std::vector<double> a, std::vector<double> b);

}  // namespace tokbench::metrics
