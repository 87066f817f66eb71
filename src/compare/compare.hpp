#pragma once
// compare/compare: the verb `tokbench compare RUN_A RUN_B [...]` — every metric side by side with
// its relative change against the first run, a Mann–Whitney U test on per-request latencies so
// noise is not reported as change, diffs of the request bodies, effective configs and server
// metrics (how the seed's min_tokens would have shown in one glance), and --fail-if thresholds for
// CI.
#include <cstdio>
#include <string>
#include <vector>

#include "compare/thresholds.hpp"

namespace tokbench::compare {

struct CompareOptions {
  std::vector<std::string> runs;     ///< run folders; the first is the baseline
  std::vector<std::string> fail_if;  ///< e.g. "tpot.p99 > +5%", "output_token_throughput < -10%"
  std::string html;     ///< page to write; "" = compare_<time>/compare.html beside the last run
  std::string history;  ///< a results store: runs may be queries of it (history::resolve_runs)
};

using metrics::parse_threshold;
using metrics::Threshold;

/// Runs the comparison; returns 0, or 3 when a --fail-if threshold is crossed. Throws on bad
/// input (missing run folder, bad threshold).
int compare_runs(CompareOptions o, std::FILE* console);

}  // namespace tokbench::compare
