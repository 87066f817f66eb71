#pragma once
// report/compare_page: the page `tokbench compare` writes — every metric side by side with its
// change and significance (changed rows highlighted), what differs besides the numbers, the
// --fail-if outcome and, when the runs are different load points, their throughput–latency
// curve (ECharts and web/compare.js embedded). compare/compare decides the contents.
#include <optional>
#include <string>
#include <vector>

namespace tokbench::report {

/// One metric's line: its cells per run (the baseline first), and whether it changed significantly.
struct CompareRow {
  std::string name;
  std::vector<std::string> cells;
  bool significant = false;
};

/// One run as a point of the load curve.
struct ComparePoint {
  std::string run;
  double x = 0;  ///< its concurrency or request rate
  std::optional<double> ttft_p99, tpot_p99;
  double output_token_throughput = 0;
};

struct CompareContents {
  std::vector<std::string> runs;  ///< folder names, the baseline first
  std::vector<CompareRow> rows;
  std::string differences;  ///< request bodies, configs, server metrics ("" = none)
  bool thresholds = false;  ///< --fail-if was given
  std::vector<std::string> crossed;
  std::string x_name;  ///< the load curve's axis ("" = the runs are one load point: no curve)
  std::vector<ComparePoint> points;  ///< sorted by x
};

/// The whole self-contained page.
std::string compare_page(const CompareContents& c);

}  // namespace tokbench::report
