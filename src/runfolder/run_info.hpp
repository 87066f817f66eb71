#pragma once
// runfolder/run_info: the facts of a run that are not metrics (target, model, dataset, the body
// sent, the audit, what the run learned), as manifest.json and end.json keep them and result.json
// shows them.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "record/client_health.hpp"
#include "record/run_parts.hpp"

namespace tokbench::runfolder {

/// Facts about the run that are not metrics.
struct RunInfo {
  std::string started_at;  ///< local wall-clock time, ISO 8601 (the one wall reading)
  std::string target_url;
  bool embedded_simulator = false;
  std::string model;
  std::string model_abbr;
  std::string dataset;  ///< as given (builtin, qa:PATH, ...)
  std::string dataset_abbr;
  std::string body_example;  ///< the exact JSON body of the first request
  std::string config_json;   ///< effective RunConfig, secrets redacted (its own document; see
                             ///< RunManifest::requested_json)
  bool interrupted = false;
  int64_t origin_steady_ns = -1;  ///< steady_clock ns of the records' time 0 (cross-process checks)
  record::ClientHealth client;    ///< the client's own cost in the measured phase (< 0: unknown)
  std::string tokenizer;          ///< --tokenizer path ("" = none)
  std::string engine_named;       ///< --engine as given ("auto": learned; "" = an older folder)
  std::string api;                ///< the --endpoint the requests went through
  /// Which engine answered and how that is known (core::identify_engine over the folder: what
  /// --engine said, the /metrics names, the API, the /tokenize shape); "" = not known.
  std::string engine, engine_how;
  std::string run_id;  ///< each request's id is "<run id>-<index>" (point/cluster_run run_id)
  std::string
      transport;  ///< how the requests went out, and why ("sockets (...)"; "" = not recorded)
  std::optional<record::SyntheticFacts> synthetic;  ///< how synthetic prompts were built
  std::optional<record::TraceFacts> trace;  ///< how a trace's prompts and schedule were built
  std::vector<std::pair<std::string, std::string>>
      audit;                ///< (level, text) of the request-body audit
  std::string server_json;  ///< the server's view and the cross-check (JSON), "" = no /metrics
  bool server_disagrees = false;  ///< a client-vs-server cross-check failed
  std::optional<record::ServerProcessFacts>
      server_process;  ///< started server: command, how it stopped, its log summary
  std::optional<record::ProfileFacts>
      profile;  ///< --profile-window: when /start_profile and /stop_profile were called
  std::string
      view_of;  ///< a `report --compat` view: the definitions the run itself used ("" = not a view)
  std::string stable_json;    ///< the stable stage (window, metrics), "" = not applicable
  std::string slices_json;    ///< --slice-s: the metrics per time slice, "" = none
  std::string classes_json;   ///< --class: each class's figures and SLOs, "" = no classes
  std::string fairness_json;  ///< --class: the fairness of their service, "" = none
  std::string
      telemetry_json;  ///< --telemetry: devices, energy, cost (report/telemetry_view), "" = none
  std::optional<record::AdaptiveLog> adaptive;  ///< --adaptive-window-s: the controller's windows
  /// --otlp-receive: the server's spans joined per request (report/waterfall_view), "" = none
  std::string waterfall_json;
};

}  // namespace tokbench::runfolder
