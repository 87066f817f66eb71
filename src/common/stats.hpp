#pragma once
// common/stats: descriptive statistics with one percentile definition, numpy's default
// ("linear" interpolation), which AISBench and vLLM bench both use. Pure functions, no I/O.
#include <cstdint>
#include <vector>

namespace tokbench::metrics {

struct Summary {
  double mean = 0, min = 0, max = 0, median = 0, p75 = 0, p90 = 0, p99 = 0;
  int64_t n = 0;     ///< number of values summarized
  double stdev = 0;  ///< population standard deviation (numpy's np.std, ddof 0), as vLLM's std_*_ms
};

/// numpy.percentile(values, p) with the default linear method: rank h = (n-1)·p/100, then
/// interpolate between the two neighbours. `sorted` must be ascending and non-empty; p in [0,100].
double percentile_linear(const std::vector<double>& sorted, double p);

/// EvalScope's percentile: sorted[int(n·p/100)] (lower nearest rank, no interpolation).
double percentile_nearest_lower(const std::vector<double>& sorted, double p);

enum class PercentileMethod { Linear, NearestLower };

/// Mean, min, max and the percentiles of `values` (any order). Empty input: n = 0 and every
/// statistic 0; callers decide whether such a row is shown.
Summary summarize(std::vector<double> values, PercentileMethod method = PercentileMethod::Linear);

}  // namespace tokbench::metrics
