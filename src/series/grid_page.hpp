#pragma once
// series/grid_page: what a server grid writes in grid/ — summary.json (every configuration with
// its values, status, answer and rows; the recommendation and its rule), summary.csv (one line
// per configuration x load point) and grid.html (per configuration the throughput-latency curves
// on shared axes, the answers side by side, the recommendation; ECharts embedded, offline).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "series/capacity.hpp"
#include "series/load_curve.hpp"

namespace tokbench::report {

/// One load point of one configuration.
struct GridRow {
  metrics::LoadPoint point;
  std::optional<bool> meets_slo;  ///< --slo given: VALID and every SLO within its bound
  std::string slo_why;            ///< the first SLO it missed
  double per_device = 0;          ///< output tokens/s per device
};

/// One server configuration.
struct GridConfig {
  std::string name;
  std::vector<std::pair<std::string, std::string>> values;
  std::string status;  ///< "ran", "resumed" (every point read back), "failed to start",
                       ///< "interrupted", "not run"
  std::string why;     ///< the start failure or the interruption
  int devices = 1;
  std::vector<GridRow> rows;
  metrics::CapacityCandidate answer;    ///< its best point under the SLO (value nullopt: none)
  std::optional<double> search_answer;  ///< --search: the load the search found
};

struct GridAsked {
  std::string x_name;      ///< "concurrency" or "request_rate"
  std::string slo;         ///< --slo as given ("" = none)
  std::string experiment;  ///< "sweep", "search max-concurrency", "repeats 3", ...
};

std::string grid_json(const std::vector<GridConfig>& configs, const metrics::CapacityChoice& choice,
                      const GridAsked& asked, bool interrupted);
std::string grid_csv(const std::vector<GridConfig>& configs);
/// The page, around `json` (grid_json's).
std::string grid_page(const std::vector<GridConfig>& configs, const std::string& json,
                      const metrics::CapacityChoice& choice);

}  // namespace tokbench::report
