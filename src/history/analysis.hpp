#pragma once
// history/analysis: the store's runs by scenario, each metric's series over the VALID runs with its
// change points, and the newest run's judgement against its baseline window — what `history
// check` prints and `history page` draws, computed once (history/regression holds the rules).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "history/commands.hpp"
#include "history/regression.hpp"
#include "history/store.hpp"

namespace tokbench::history {

struct SeriesPoint {
  int64_t id = 0;
  std::string run_id, started_at, folder;
  double value = 0;
};

struct MetricAnalysis {
  std::string metric;
  std::vector<SeriesPoint>
      series;  ///< the scenario's VALID runs that have the metric, oldest first
  std::vector<size_t> change_points;   ///< indices into series: where a new segment starts
  std::optional<Judgement> judgement;  ///< the newest run's (when it is VALID and has the metric)
  std::vector<std::string>
      pooled_runs;  ///< the baseline runs whose requests Mann–Whitney pooled, when it ran
};

struct ScenarioAnalysis {
  std::string scenario;
  StoredRun newest;
  size_t baseline_runs = 0;  ///< earlier VALID runs in the window
  std::vector<MetricAnalysis> metrics;
};

/// Every scenario of the runs `o` selects, for `names`; `per_request` reads the folders' records
/// for Mann–Whitney (off: the band and threshold alone).
std::vector<ScenarioAnalysis> analyse(Store& store, const HistoryOptions& o,
                                      const std::vector<std::string>& names, bool per_request);

/// Runs by scenario, each oldest first; the scenarios in the order their first run was met.
std::vector<std::pair<std::string, std::vector<StoredRun>>> by_scenario(
    std::vector<StoredRun> runs, const std::vector<std::string>& keys);
/// The runs `o` selects (--where).
std::vector<StoredRun> selected(Store& store, const HistoryOptions& o);

/// The self-contained HTML dashboard (`history page`): a panel per scenario and metric, the
/// baseline band and each change point and regression marked, each point linking to its run page.
std::string history_page(const std::vector<ScenarioAnalysis>& scenarios, double threshold);

}  // namespace tokbench::history
