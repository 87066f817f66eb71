#pragma once
// series/repeats: `--repeats N` runs the same load point N times against one target (folders
// run-1 .. run-N, each a normal run folder) and reports each headline metric as the mean over
// the runs ± a confidence interval (Student's t, N − 1 degrees of freedom, --confidence level),
// with the runs' standard deviation and coefficient of variation: AIPerf's multi-run confidence.
// Writes repeats/summary.json (every run's value too, which `compare` reads to test two series
// against each other) and repeats/summary.csv.
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/significance.hpp"
#include "metrics/metrics.hpp"
#include "plan/plan.hpp"
#include "point/outcome.hpp"
#include "point/points.hpp"

namespace tokbench::runner {

/// The headline metrics a series summarizes, by key: "ttft_mean_ms", "output_token_throughput", ...
std::vector<std::pair<std::string, std::optional<double>>> headline_metrics(
    const metrics::MetricSet& m);

/// The series' summary, fed one run at a time: by run_repeats as the runs finish, and by
/// `report` on a repeats root from the recomputed run folders.
class RepeatsSummary {
 public:
  RepeatsSummary(std::filesystem::path root, double level)
      : root_(std::move(root)), level_(level) {}
  void add(const RunOutcome& run);
  void stopped() { code_ = 1; }  ///< a run could not be made: the series is short
  /// Writes repeats/summary.{json,csv}, prints the intervals; the exit code is the worst run's
  /// (5 the disk stopped a run, 130 interrupted).
  RunOutcome finish(const std::optional<record::ServerProcessFacts>& server_process,
                    bool interrupted, std::FILE* console);

 private:
  std::filesystem::path root_;
  double level_;
  std::vector<std::string> keys_, labels_, verdicts_, resumed_;
  std::map<std::string, std::vector<double>> values_;
  int code_ = 0;
  bool disk_stopped_ = false;  ///< a run's details file was refused: the series stopped there
};

RunOutcome run_repeats(RunPlan& plan, std::atomic<int>& stop, std::FILE* console,
                       const SeriesOptions& options = {});

}  // namespace tokbench::runner
