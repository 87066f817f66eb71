#pragma once
// point/outputs: the last stage — every output of a run folder from the folder alone: one
// streaming pass over the details file feeds every definition set and the verdict (memory flat
// in the number of records), then the tables, <ds>.csv/.json, result.json, server.json and, in a
// second pass, the HTML page. `run` and `report` both call it, so they agree by construction.
#include <cstdio>
#include <filesystem>
#include <optional>
#include <vector>

#include "metrics/metrics.hpp"
#include "record/server_view.hpp"
#include "report/outputs.hpp"
#include "runfolder/run_folder.hpp"

namespace tokbench::runner {

struct Written {
  metrics::MetricSet metrics;
  report::Verdict verdict;
  std::vector<metrics::DefinitionColumn> side_by_side;  ///< streaming runs only
  runfolder::RunInfo info;                              ///< as written into result.json
  std::optional<record::ServerSummary> server;
  std::vector<record::CrossCheck> checks;
  std::filesystem::path out_dir, perf_dir;   ///< where they were written
  std::optional<metrics::MetricSet> stable;  ///< the stable stage (closed loop, when one was found)
  std::string stable_text;  ///< how it was found, or why there is none ("" = open loop)
  std::vector<std::string> telemetry_lines;  ///< --telemetry: devices, energy, cost (console)
  std::vector<std::string> class_lines;      ///< --class: a line per class, then the fairness
  /// --class: each class's metrics, in the manifest's order (--interference reads them)
  std::vector<std::pair<std::string, metrics::MetricSet>> class_metrics;
  std::string telemetry_table;  ///< --telemetry: per device (--verbose, the page)
  /// --otlp-receive: the join's lines and the waterfall's bucket table (console, the page)
  std::string waterfall;
  std::optional<double> j_per_output_token;  ///< --telemetry: when the energy is known
  std::optional<double>
      usd_per_m_output_tokens;  ///< --telemetry with a price: when the cost is known
};

/// Computes and writes the outputs of `folder` under `defs` into `out_dir` (the run folder, or a
/// view folder such as views/<compat>/, which then holds the tables flat). `own` = the run's own
/// outputs: <ds>_failed.jsonl is rewritten from the details too.
Written write_outputs(const runfolder::RunFolder& folder, metrics::Definitions defs,
                      const std::filesystem::path& out_dir, bool own);

/// On `console` (point/console_view.cpp): a one-screen summary, or with `verbose` every table
/// (the definitions side by side, the server's view), then the verdict with its reasons,
/// warnings and notes.
void print_outputs(const Written& w, std::FILE* console, bool verbose);

}  // namespace tokbench::runner
