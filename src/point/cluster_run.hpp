#pragma once
// point/cluster_run: what a multi-host run (mpirun -np N tokbench run ...) adds to executing one
// load point, whatever experiment it belongs to (a single run, a sweep's point, a search's probe,
// one of --repeats). Rank 0 plans, runs the experiment, writes the folders and judges; it sends
// each point's spec (plan/plan PointSpec) to the other ranks, and every rank sends its shard of
// the point's one global request sequence (closed loop: its share of --concurrency; open loop and
// traces: every N-th request at the global schedule's times) from the same aligned start; at the
// point's end the ranks' records, each naming its rank, are appended to rank 0's details file, so
// every metric is computed over the union exactly as on one host. The MPI calls are in cluster/.
#include <atomic>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <string>
#include <vector>

#include "cluster/cluster.hpp"
#include "cluster/watch.hpp"
#include "measure/execute.hpp"
#include "plan/plan.hpp"
#include "point/points.hpp"
#include "runfolder/run_folder.hpp"
#include "settings/run_config.hpp"

namespace spdlog {
class logger;
}

namespace tokbench::runner {

/// This rank's client health for rank 0, as one JSON object, and back (with the records it wrote
/// and whether it was interrupted, when asked).
std::string rank_health_json(const PointResult& p, int rank, const cluster::ClockSync& clock);
record::RankHealth rank_health_from_json(const std::string& json,
                                         int64_t* records_written = nullptr,
                                         bool* interrupted = nullptr);

/// The run's end as rank 0 writes it: rank 0's own end, with the ranks' client costs combined
/// (CPU and events summed, the busiest thread's share and the wall the largest) and listed.
runfolder::RunEnd combine_ends(runfolder::RunEnd root, const std::vector<record::RankHealth>& ranks,
                               int64_t records_written);

/// Where this process stands among the ranks, decided once per run folder tree: the clock against
/// rank 0's and the run's wall-clock start as rank 0 read it. Collective on several ranks; on one
/// host, the local clock and time.
struct RankStart {
  cluster::ClockSync clock;
  std::time_t wall = 0;
  uint16_t tag =
      0;  ///< random, rank 0's on every rank: tells apart runs started in the same second
  std::string lifeline_problem;  ///< rank 0: what of cluster/watch could not be set up ("")
};
RankStart start_ranks();
/// The run's id, the same on every rank: "<start, YYYYMMDD_HHMMSS>-<tag, 4 hex>", and "-<label>"
/// for a series' point. Each request's id is "<run id>-<index>" (--request-id-header).
std::string run_id(const RankStart& start, std::string_view label = {});
/// Logs this rank's place and clock offset (nothing on one host).
void log_rank(spdlog::logger& log, const RankStart& start);

/// What measuring one point on every rank gave: this rank's result; on rank 0 the ranks' health
/// and the records every rank wrote.
struct SharedPoint {
  PointResult result;
  std::vector<record::RankHealth> ranks;
  int64_t records = 0;
};
/// This rank's share of `point` (the share of its in-flight cap, its requests of the one global
/// sequence) measured from the common origin in `dir`; then every rank's records are appended to
/// rank 0's details and failed files. Collective: every rank calls it for the same point.
SharedPoint measure_shared(const RunPlan& point, const Target& target,
                           runfolder::RunManifest& manifest, const std::filesystem::path& dir,
                           spdlog::logger& log, std::atomic<int>& stop, std::FILE* console,
                           const cluster::ClockSync& clock);
/// The verdict's reason for a folder whose run lost a rank (rank_lost.json): which, when, how it
/// was seen, and whose `recorded` records are here.
std::string lost_rank_reason(const runfolder::RankLost& lost, int64_t recorded);
/// After a rank was lost while `out` was measured (cluster/watch): rank 0 collects the survivors'
/// `files` (the point's details and failed files) into its own and marks the folder with what it
/// kept; another rank ships its files to rank 0 and throws (it ends, naming the loss).
void after_loss(SharedPoint& out, const cluster::RankLoss& loss,
                const std::vector<std::filesystem::path>& files, const std::filesystem::path& dir,
                int64_t origin, const cluster::ClockSync& clock, spdlog::logger& log);
/// One point on any number of ranks: measure() on one host, measure_shared() on several.
SharedPoint measure_point(const RunPlan& point, const Target& target,
                          runfolder::RunManifest& manifest, const std::filesystem::path& dir,
                          spdlog::logger& log, std::atomic<int>& stop, std::FILE* console,
                          const cluster::ClockSync& clock);
/// A measured point's end marker (rank 0's): its own, with the ranks' costs combined on several.
runfolder::RunEnd end_of(const SharedPoint& point,
                         const std::optional<record::ServerProcessFacts>& server_process);

}  // namespace tokbench::runner
