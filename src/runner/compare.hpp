#pragma once
// runner/compare: `tokbench compare RUN_A RUN_B [...]` — every metric side by side with its
// relative change against the first run, a Mann–Whitney U test on per-request latencies so noise
// is not reported as change, diffs of the request bodies, effective configs and server metrics
// (how the seed's min_tokens would have shown in one glance), and --fail-if thresholds for CI.
#include <cstdio>
#include <string>
#include <vector>

namespace tokbench::runner {

struct CompareOptions {
  std::vector<std::string> runs;     ///< run folders; the first is the baseline
  std::vector<std::string> fail_if;  ///< e.g. "tpot.p99 > +5%", "output_token_throughput < -10%"
  std::string html;                  ///< page to write; "" = <last run>/compare.html
};

/// A parsed --fail-if threshold.
struct Threshold {
  std::string metric;  ///< row name as in result.json (E2EL, TTFT, ...) or a common key
  std::string stat;    ///< mean, median, p75, p90, p99, min, max; "" for common metrics
  std::string op;      ///< >, <, >=, <=
  double value = 0;
  bool relative = false;  ///< value is a change in percent against the baseline
  std::string text;
};

/// Parses "tpot.p99 > +5%" (metric names are case-insensitive). Throws std::invalid_argument.
Threshold parse_threshold(const std::string& text);

/// Runs the comparison; returns 0, or 3 when a --fail-if threshold is crossed. Throws on bad
/// input (missing run folder, bad threshold).
int compare_runs(const CompareOptions& o, std::FILE* console);

}  // namespace tokbench::runner
