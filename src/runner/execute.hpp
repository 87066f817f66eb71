#pragma once
// runner/execute: the third stage — one load point against an open target: warm-up, then the
// measured phase on the client engine, pulling requests from a load::RequestSource, with the
// recorder writing each record as it finishes (and keeping none), the /metrics scraper, the
// profiler window and the progress line beside it. A sweep or a search calls it once per point;
// a rank of a multi-host run, once for its shard.
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "probe/server_metrics.hpp"
#include "runner/plan.hpp"
#include "runner/target.hpp"

namespace tokbench::runner {

/// One load point: what execute() runs. A sweep makes one per point.
struct LoadPoint {
  int64_t requests = 0;     ///< measured requests; -1 = until the duration ends
  int64_t warmup = 0;       ///< warm-up requests, sent first
  int concurrency = 1;      ///< in-flight cap (open loop too)
  double request_rate = 0;  ///< req/s; 0 = closed loop; +inf = all due at once; --pressure: clients added per s
  uint64_t seed = 0;
  std::string arrivals = "poisson";  ///< poisson | gamma | constant
  double burstiness = 1;
  double duration_s = 0, grace_s = 0;
  double ramp_up_s = 0;
  bool exponential_ramp = false, ramp_measured = false;
  double ramp_start_rps = 0;
  bool pressure = false;
  std::string goodput;      ///< per-request SLOs, written into each details line
  double adaptive_window_s = 0;  ///< > 0: the in-run controller drives concurrency (runner/adaptive)
  int adaptive_max = 0;
  std::string slo;

  /// The point `cfg` describes (its scalars; a sweep passes each point's config).
  static LoadPoint of(const RunConfig& cfg, int64_t requested_num_prompts);
  /// The measured requests a run means to send: `requests`, or -1 when a duration bounds it.
  int64_t planned() const { return duration_s > 0 ? -1 : requests; }
  /// Before the measured window: the ramp when it is excluded (ns).
  int64_t excluded_ramp_ns() const {
    return ramp_up_s > 0 && !ramp_measured ? static_cast<int64_t>(ramp_up_s * 1e9) : 0;
  }
};

struct PointResult {
  bool interrupted = false;
  int64_t records_written = 0;   ///< lines in the details file, warm-up included
  double measured_wall_s = 0;
  double client_cpu_s = 0;          ///< worker threads
  double client_process_cpu_s = 0;  ///< the whole client process (recorder, scraper, progress too)
  double client_cpu_share = -1;     ///< the busiest worker thread's CPU / wall
  int64_t client_events = 0;
  std::optional<probe::ServerSummary> server;
  std::string profile_json;
  std::string adaptive_json;     ///< the controller's windows ("" = none)
  std::string write_error;       ///< the disk refused a record ("" = none)
};

/// Runs one load point, writing records into `perf_dir`. `origin_ns` is the run's time 0.
/// Throws std::runtime_error when every warm-up request failed (the target is not usable).
PointResult execute(const Target& target, const RunPlan& plan, const LoadPoint& point,
                    const std::filesystem::path& perf_dir, int64_t origin_ns, std::atomic<int>& stop,
                    spdlog::logger& log, std::FILE* console);

}  // namespace tokbench::runner
