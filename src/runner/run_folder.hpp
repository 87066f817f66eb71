#pragma once
// runner/run_folder: reads a finished run back — its saved config, its records and the facts
// its result.json and server.json keep — for `report` (recompute) and `compare`, so both read
// a run folder the same way.
#include <filesystem>
#include <string>
#include <vector>

#include "metrics/metrics.hpp"
#include "record/record.hpp"
#include "report/outputs.hpp"

namespace tokbench::runner {

struct RunFolder {
  std::filesystem::path dir;
  std::filesystem::path perf_dir;  ///< performances/<model-abbr>
  report::RunInfo info;            ///< config_json (effective), body, interruption, server view
  metrics::RunFacts facts;
  double request_rate = 0;
  std::string compat;              ///< the definitions the run used
  std::vector<record::RequestRecord> records;
};

/// Throws std::runtime_error naming the folder and the fix when it is not a tokbench run.
RunFolder load_run_folder(const std::filesystem::path& dir);

}  // namespace tokbench::runner
