#pragma once
// report/outputs: the run folder (AISBench's layout) and result.json, the machine-readable
// summary scripts rely on: metrics.<Row>.{mean,min,max,median,p75,p90,p99,n} (ms or tokens,
// null when not applicable), common.<snake_case>, definitions, tool, verdict, interrupted.
#include <cstdint>
#include <ctime>
#include <filesystem>
#include <string>
#include <vector>

#include "record/client_health.hpp"
#include "record/run_parts.hpp"
#include "common/json_writer.hpp"
#include "metrics/metrics.hpp"
#include "metrics/verdict.hpp"

namespace tokbench::report {

using metrics::Verdict;  // metrics/verdict decides it; the outputs show it

/// Facts about the run that are not metrics.
struct RunInfo {
  std::string started_at;    ///< local wall-clock time, ISO 8601 (the one wall reading)
  std::string target_url;
  bool embedded_simulator = false;
  std::string model;
  std::string model_abbr;
  std::string dataset;       ///< as given (builtin, qa:PATH, ...)
  std::string dataset_abbr;
  std::string body_example;  ///< the exact JSON body of the first request
  std::string config_json;   ///< effective RunConfig, secrets redacted (its own document; see RunManifest::requested_json)
  bool interrupted = false;
  int64_t origin_steady_ns = -1;  ///< steady_clock ns of the records' time 0 (cross-process checks)
  record::ClientHealth client;  ///< the client's own cost in the measured phase (< 0: unknown)
  std::string tokenizer;        ///< --tokenizer path ("" = none)
  std::string run_id;           ///< each request's id is "<run id>-<index>" (runner/cluster_run run_id)
  std::string transport;        ///< how the requests went out, and why ("sockets (...)"; "" = not recorded)
  std::optional<record::SyntheticFacts> synthetic;  ///< how synthetic prompts were built
  std::optional<record::TraceFacts> trace;          ///< how a trace's prompts and schedule were built
  std::vector<std::pair<std::string, std::string>> audit;  ///< (level, text) of the request-body audit
  std::string server_json;      ///< the server's view and the cross-check (JSON), "" = no /metrics
  bool server_disagrees = false;  ///< a client-vs-server cross-check failed
  std::optional<record::ServerProcessFacts> server_process;  ///< started server: command, how it stopped, its log summary
  std::optional<record::ProfileFacts> profile;  ///< --profile-window: when /start_profile and /stop_profile were called
  std::string view_of;              ///< a `report --compat` view: the definitions the run itself used ("" = not a view)
  std::string stable_json;          ///< the stable stage (window, metrics), "" = not applicable
  std::string slices_json;          ///< --slice-s: the metrics per time slice, "" = none
  std::string telemetry_json;       ///< --telemetry: devices, energy, cost (report/telemetry_view), "" = none
  std::optional<record::AdaptiveLog> adaptive;  ///< --adaptive-window-s: the controller's windows
};

/// The "metrics", "extra_metrics" and "common" fields of a MetricSet, as result.json has them.
void metric_set_fields(JsonWriter& w, const metrics::MetricSet& m);

std::string result_json(const metrics::MetricSet& m, const RunInfo& info, const Verdict& v,
                        const std::vector<metrics::DefinitionColumn>& side_by_side = {});

/// Creates <output_dir>/<YYYYmmdd_HHMMSS>[_N]/ with configs/, logs/ and performances/.
/// Throws naming the folder and the fix when it cannot.
std::filesystem::path make_run_dir(const std::string& output_dir, std::time_t now);

/// Writes a whole file, throwing with the path on failure.
void write_file(const std::filesystem::path& p, const std::string& content);

/// Reads a whole file; "" when it does not exist or cannot be read.
std::string read_file(const std::filesystem::path& p);

/// Makes a name safe for a folder: [A-Za-z0-9._-], everything else '_'.
std::string file_safe(const std::string& name);

}  // namespace tokbench::report
