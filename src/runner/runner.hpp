#pragma once
// runner/: one benchmark end to end — dataset -> bodies -> (warm-up, measured phase on the
// client engine) -> records on disk as they finish -> metrics -> reports. The only module that
// knows every other one; it holds no benchmark logic of its own beyond this wiring and the
// verdict. The CLI calls it; tests call it too.
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "metrics/metrics.hpp"
#include "record/record.hpp"
#include "report/outputs.hpp"
#include "runner/run_config.hpp"

namespace tokbench::runner {

struct RunOutcome {
  std::filesystem::path run_dir;
  std::filesystem::path perf_dir;
  metrics::MetricSet metrics;
  report::Verdict verdict;
  bool interrupted = false;
  int exit_code = 0;  ///< 0 finished, 1 no request succeeded, 130 interrupted
};

/// Runs the benchmark described by `cfg`. `stop` is raised by the caller (Ctrl-C): 1 = stop
/// sending and drain, 2 = cancel in-flight requests. Human-readable output goes to `console`.
/// Throws std::runtime_error, with a message naming the thing and the fix, on set-up errors.
RunOutcome run_benchmark(const RunConfig& cfg, std::atomic<int>& stop, std::FILE* console);

/// Writes <ds>.csv, <ds>.json, <ds>_failed.jsonl and result.json into an existing run folder
/// from its records, and returns what it computed. Shared by `run` and `report`.
struct Written {
  metrics::MetricSet metrics;
  report::Verdict verdict;
  std::vector<metrics::DefinitionColumn> side_by_side;  ///< streaming runs only
};
Written write_reports(const std::filesystem::path& run_dir, const std::filesystem::path& perf_dir,
                      const std::vector<record::RequestRecord>& records, const report::RunInfo& info,
                      const metrics::RunFacts& facts, metrics::Definitions defs, double request_rate,
                      double client_cpu_share = -1);

/// `tokbench report DIR`: recomputes every output of a finished run from its details file.
/// `compat` overrides the definitions the run used. Prints the tables to `console`.
RunOutcome recompute(const std::filesystem::path& run_dir, const std::optional<std::string>& compat,
                     std::FILE* console);

/// The verdict rules (docs/METRICS.md): INVALID when interrupted, when any request failed, or
/// when an open-loop run could not keep its schedule.
/// `client_cpu_share`: worker-thread CPU time / (measured wall time × worker threads); < 0 = unknown.
report::Verdict judge(const metrics::MetricSet& m, const std::vector<record::RequestRecord>& records,
                      bool interrupted, double request_rate, double client_cpu_share = -1);

}  // namespace tokbench::runner
