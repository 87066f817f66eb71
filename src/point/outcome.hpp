#pragma once
// point/outcome: what one load point, or a whole series, ends with — the folder, its metrics and
// verdict, the exit code it means — as every stage above a point reads it.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/exit_codes.hpp"
#include "metrics/metrics.hpp"
#include "metrics/saturation.hpp"
#include "metrics/verdict.hpp"

namespace tokbench::runner {

struct RunOutcome {
  std::filesystem::path run_dir;
  std::filesystem::path perf_dir;
  metrics::MetricSet metrics;
  metrics::Verdict verdict;
  bool interrupted = false;
  int exit_code = 0;  ///< 0 VALID, 3 VALID but a --class SLO missed, 4 INVALID (reports written), 1
                      ///< no request succeeded, 130 interrupted
  bool resumed =
      false;          ///< --resume: read back from a folder that had completed VALID, not run again
  std::string label;  ///< the point's folder name inside a sweep, search or repeat series ("" = a
                      ///< single run)
  /// --class: each class's metrics by name, in the run's order (empty: no classes).
  std::vector<std::pair<std::string, metrics::MetricSet>> class_metrics;
  /// --telemetry: J per output token and $ per million output tokens (with a price), when known.
  std::optional<double> j_per_output_token, usd_per_m_output_tokens;
};

/// A run the disk stopped (its details file refused a record) exits kExitDiskStopped: the load
/// stopped there, what was recorded stands, the run is judged INVALID (stopped).
/// A series' (sweep, search, repeats) exit code: a point the disk stopped first (the series
/// stopped there, as Ctrl-C would stop it, but the fix differs), then Ctrl-C, then its points' own.
inline int series_exit_code(bool disk_stopped, bool interrupted, int code) {
  return disk_stopped ? kExitDiskStopped : interrupted ? kExitInterrupted : code;
}
/// How end.json's stop_reason begins for such a run (`report` exits 5 for it too).
inline constexpr std::string_view kDiskStopReason = "the details file could not be written: ";
using metrics::kSaturatedStopReason;  ///< a point --stop-on-saturation stopped: its verdict is
                                      ///< SATURATED

}  // namespace tokbench::runner
