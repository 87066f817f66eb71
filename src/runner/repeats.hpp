#pragma once
// runner/repeats: `--repeats N` runs the same load point N times against one target (folders
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

#include "metrics/metrics.hpp"
#include "metrics/significance.hpp"
#include "runner/plan.hpp"
#include "runner/runner.hpp"

namespace tokbench::runner {

/// The headline metrics a series summarizes, by key: "ttft_mean_ms", "output_token_throughput", ...
std::vector<std::pair<std::string, std::optional<double>>> headline_metrics(const metrics::MetricSet& m);

/// A series read back from repeats/summary.json: per metric key, every run's value.
struct RepeatSeries {
  std::filesystem::path root;
  double level = 0.95;
  std::vector<std::string> keys;  ///< in the file's order
  std::map<std::string, std::vector<double>> values;
};
/// Reads DIR/repeats/summary.json; nullopt when DIR is not a repeat series.
std::optional<RepeatSeries> load_repeat_series(const std::filesystem::path& dir);

RunOutcome run_repeats(RunPlan& plan, std::atomic<int>& stop, std::FILE* console);

}  // namespace tokbench::runner
