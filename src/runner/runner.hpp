#pragma once
// runner/: thin wiring of the stages of a benchmark — plan (flags to a validated plan), target
// (start or adopt the server, resolve the model, the dataset), execute (one load point: engine,
// recorder, scraper, profiler, progress), outputs (tables, files, HTML, verdict from the run
// folder alone). The run folder is the contract between them (runner/run_folder.hpp). The CLI
// calls these; tests call them too.
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include "metrics/metrics.hpp"
#include "report/outputs.hpp"
#include "runner/run_config.hpp"

namespace tokbench::runner {

struct RunOutcome {
  std::filesystem::path run_dir;
  std::filesystem::path perf_dir;
  metrics::MetricSet metrics;
  report::Verdict verdict;
  bool interrupted = false;
  int exit_code =
      0;  ///< 0 VALID, 4 INVALID (reports written), 1 no request succeeded, 130 interrupted
  bool resumed =
      false;          ///< --resume: read back from a folder that had completed VALID, not run again
  std::string label;  ///< the point's folder name inside a sweep, search or repeat series ("" = a
                      ///< single run)
  /// --telemetry: J per output token and $ per million output tokens (with a price), when known.
  std::optional<double> j_per_output_token, usd_per_m_output_tokens;
};

/// Runs the benchmark described by `cfg`. `stop` is raised by the caller (Ctrl-C): 1 = stop
/// sending and drain, 2 = cancel in-flight requests. Human-readable output goes to `console`.
/// Throws std::invalid_argument on usage errors and std::runtime_error, with a message naming
/// the thing and the fix, on set-up errors (the run folder then says where it stopped).
RunOutcome run_benchmark(const RunConfig& cfg, std::atomic<int>& stop, std::FILE* console);

/// `tokbench report DIR`: every output of a run recomputed from its folder alone (same verdict
/// as the run). With `compat` naming other definitions than the run's, the view goes to
/// DIR/views/<compat>/ and the run's own outputs are left as they are. `verbose`: every table on
/// the console, as `run --verbose`.
RunOutcome recompute(const std::filesystem::path& run_dir, const std::optional<std::string>& compat,
                     std::FILE* console, bool verbose = false);

}  // namespace tokbench::runner
