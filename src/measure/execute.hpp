#pragma once
// measure/execute: the third stage — one load point against an open target: warm-up, then the
// measured phase on the client engine, pulling requests from a load::RequestSource, with the
// recorder writing each record as it finishes (and keeping none), the /metrics scraper, the
// profiler window and the progress line beside it. A sweep or a search calls it once per point;
// a rank of a multi-host run, once for its shard.
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "plan/plan.hpp"
#include "record/client_health.hpp"
#include "record/server_view.hpp"

namespace spdlog {
class logger;
}

namespace tokbench::runner {

struct Target;  // measure/target.hpp

/// The measured requests a load point sends at most: --num-prompts, or -1 (no count bound) when
/// --duration-s bounds the run and no count was asked for (the dataset cycles).
int64_t count_bound(const LoadSettings& load, int64_t requested_num_prompts);
/// The measured requests a run means to send, as its folder records it: -1 whenever a duration
/// bounds the run or sessions run (how many fit, or how many turns go out, is not known ahead).
int64_t planned_requests(const LoadSettings& load, const WorkloadSettings& workload,
                         int64_t requested_num_prompts);
/// planned_requests of the plan's load, or with --class the classes' sum (-1 when any is
/// unbounded).
int64_t planned_requests(const RunPlan& plan);
/// The transport the measured requests use, and why: "sockets (a plain http:// URL with no proxy)".
std::string transport_text(const Target& target, const RunPlan& plan);

struct PointResult {
  bool interrupted = false;
  int64_t records_written = 0;  ///< lines in the details file, warm-up included
  record::ClientHealth client;  ///< the client's own cost over the measured phase
  std::optional<record::ServerSummary> server;
  std::optional<record::ProfileFacts> profile;  ///< --profile-window
  std::optional<record::AdaptiveLog> adaptive;  ///< --adaptive-window-s: the controller's windows
  std::string write_error;                      ///< the disk refused a record ("" = none)
  std::string saturated;  ///< --stop-on-saturation stopped the point: why ("" = it did not)
};

/// This rank's share of a total: total / size, the remainder going to the lowest ranks.
int rank_share(int total, int rank, int size);

/// One rank's part of a multi-host run (point/cluster_run): which requests of the global
/// sequence it sends (index % size == rank) and when the measured phase starts on every rank.
struct RankShare {
  int rank = 0;
  int size = 1;                             ///< 1 = a single-host run
  std::function<int64_t()> phase_start_at;  ///< collective: the common start (this rank's clock)
  /// Collective: returns on rank 0 once every rank's measured phase is over, so its closing
  /// /metrics scrape holds every rank's requests (empty on a single host).
  std::function<void()> all_measured;
};

/// Runs the load point `plan` describes (its cfg: a sweep passes each point's), writing records
/// into `perf_dir`; each request carries the id "<run_id>-<index>" (--request-id-header).
/// `origin_ns` is the run's time 0.
/// Throws std::runtime_error when every warm-up request failed (the target is not usable).
PointResult execute(const Target& target, const RunPlan& plan,
                    const std::filesystem::path& perf_dir, const std::string& run_id,
                    int64_t origin_ns, std::atomic<int>& stop, spdlog::logger& log,
                    std::FILE* console, const RankShare& share = {});

}  // namespace tokbench::runner
