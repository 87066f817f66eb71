#pragma once
// runfolder/run_folder: the run folder as a typed artifact, the contract between `run` and
// `report`. The run writes manifest.json first (what was asked: requests, load, definitions;
// then what was learned: model, body, audit, synthetic prompts), records one line each while it
// runs, and end.json last (how it ended, client cost, server process, profile, the server's
// /metrics summary). `report` needs nothing else; result.json and the tables are outputs, never
// inputs. A folder without end.json is an incomplete run, and is judged as one.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "metrics/metrics.hpp"
#include "record/client_health.hpp"
#include "record/server_view.hpp"
#include "runfolder/run_info.hpp"

namespace tokbench::runfolder {

inline constexpr const char* kManifestFile = "manifest.json";
inline constexpr const char* kEndFile = "end.json";
inline constexpr const char* kRankLostFile = "rank_lost.json";
/// --telemetry's samples, one JSON line each, in performances/<model-abbr>/.
inline constexpr const char* kTelemetryFile = "telemetry.jsonl";
/// --otlp-receive: the server's spans (record/server_span), in performances/<model-abbr>/.
inline constexpr const char* kServerSpansFile = "server_spans.jsonl";

/// The load shape the run was asked for (docs/METRICS.md, "Load shapes").
struct LoadFacts {
  std::string arrivals =
      "closed";  ///< closed | poisson | gamma | constant | all-at-once | pressure
  double burstiness = 1;
  double duration_s = 0, grace_s = 0;  ///< 0: bounded by a count
  double ramp_up_s = 0;
  std::string ramp_up_strategy = "linear";
  bool ramp_up_measured = false;
  double slice_s = 0;  ///< --slice-s: metrics per time slice (0 = none)
  bool warm_connections =
      false;  ///< one kept-alive connection per slot was opened before the measured phase
  /// --concurrency capped a schedule's in-flight count (false: an open loop or trace with none;
  /// older folders read true)
  bool in_flight_capped = true;
  double cancel_rate = 0;    ///< --cancel-rate: the share of requests the client cancels
  std::string cancel_after;  ///< --cancel-after, as parsed ("" = no cancellations)
};

/// One --class of the run (records carry its name): what the report judges it by.
struct ClassFacts {
  std::string name;
  double weight = 1;  ///< its share of the server relative to the others' (fairness)
  std::string slo;    ///< its SLOs, "ttft.p99<=300ms,tpot.p90<=50ms" ("" = none)
  std::string load;   ///< what it sent, for people: "concurrency 8, priority 0"
};

/// What the telemetry sources (--telemetry) were asked for: the report prices the phase from it.
struct TelemetryFacts {
  int64_t interval_ms = 0;           ///< 0: no --telemetry
  double idle_s = 0;                 ///< --telemetry-idle-s
  double price_per_device_hour = 0;  ///< $ (0 = not given)
  double price_per_kwh = 0;          ///< $ (0 = not given)
  /// --server-devices: the accelerators a device-hour price counts when no --telemetry read them
  int64_t devices = 0;
};

/// What was asked and learned before the measured phase.
struct RunManifest {
  /// The settings as given, secrets redacted: RunConfig::to_json's document, kept verbatim. The
  /// one part the folder does not type: its type is runner's, above report/, and nothing here
  /// reads it but `compare`, which diffs two of them key by key.
  std::string requested_json;
  RunInfo info;             ///< target, model, dataset, body, audit, effective config, ...
  metrics::RunFacts facts;  ///< configured concurrency cap, streaming
  std::string definitions = "tokbench";
  double request_rate = 0;  ///< req/s; 0 = closed loop; +inf = all at once
  LoadFacts load;
  TelemetryFacts telemetry;
  int64_t planned_requests =
      0;  ///< measured requests the run means to send; -1 = bounded by a duration
  int64_t warmup_requests = 0;
  bool target_ready = false;  ///< false: written before the target was contacted
  bool insecure_tls = false;  ///< --insecure: TLS certificates were not verified
  int ranks = 1;  ///< mpirun -np N: the ranks that shared the load (records name theirs)
  std::vector<ClassFacts> classes;  ///< --class, in the order given (empty: one load)
};

/// How the run ended (the end marker) and what it learned while running.
struct RunEnd {
  bool interrupted = false;
  std::string stop_reason;      ///< "" when it ran to completion
  int64_t records_written = 0;  ///< lines in the details file, warm-up included
  record::ClientHealth
      client;  ///< the client's own cost in the measured phase (a multi-host run: combined)
  std::optional<record::ServerProcessFacts>
      server_process;  ///< --server-cmd: command, how it stopped, log summary
  std::optional<record::ProfileFacts> profile;  ///< --profile-window
  std::optional<record::AdaptiveLog> adaptive;  ///< --adaptive-window-s: the controller's windows
  std::optional<record::ServerSummary> server;  ///< /metrics between the first and last scrape
  std::vector<record::RankHealth>
      ranks;  ///< a multi-host run's ranks, rank 0 first (empty on one host)
};

/// A multi-host run's rank lost mid-point (rank_lost.json): written by rank 0 the moment it
/// learns of it (a launcher may end every rank a moment later), and again with the records
/// kept once the surviving ranks have sent theirs.
struct RankLost {
  int rank = -1;
  int ranks = 0;                ///< the run's ranks
  std::string how;              ///< what rank 0 saw: the connection closed, or silence
  std::string seen_at;          ///< UTC, "YYYY-MM-DD HH:MM:SS.mmm"
  double after_s = 0;           ///< seconds after the point's start
  bool collected = false;       ///< the survivors' records were asked for (kept says what came)
  std::map<int, int64_t> kept;  ///< records in the details file per rank
};
void write_rank_lost(const std::filesystem::path& dir, const RankLost& lost);

struct RunFolder {
  std::filesystem::path dir;
  std::filesystem::path perf_dir;   ///< performances/<model-abbr>
  std::filesystem::path details;    ///< <ds>_details.jsonl
  std::filesystem::path telemetry;  ///< performances/<model-abbr>/telemetry.jsonl (--telemetry)
  /// performances/<model-abbr>/server_spans.jsonl (--otlp-receive)
  std::filesystem::path server_spans;
  RunManifest manifest;
  std::optional<RunEnd> end;  ///< nullopt: the run did not finish (killed, or still running)
  std::optional<RankLost> rank_lost;  ///< a multi-host run that lost a rank
};

/// Writes manifest.json (atomically: a temporary file renamed over it).
void write_manifest(const std::filesystem::path& dir, const RunManifest& m);
/// Writes end.json (atomically). Call once every record is on disk.
void write_end(const std::filesystem::path& dir, const RunEnd& e);

/// Reads a run folder (records are streamed later, from `details`). Throws std::runtime_error
/// naming the folder and the fix when it is not a tokbench run folder.
RunFolder load_run_folder(const std::filesystem::path& dir);

}  // namespace tokbench::runfolder
