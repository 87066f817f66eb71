#pragma once
// runner/cluster_run: what a multi-host run (mpirun -np N tokbench run ...) adds to a single
// one. Rank 0 plans, writes the run folder and judges; every rank sends its shard of the one
// global request sequence (closed loop: its share of --concurrency; open loop and traces: every
// N-th request at the global schedule's times) from the same aligned start; at the end the
// ranks' records, each naming its rank, are appended to rank 0's details file, so every metric
// is computed over the union exactly as on one host. The MPI calls are in cluster/.
#include <filesystem>
#include <string>
#include <vector>

#include "cluster/cluster.hpp"
#include "runner/execute.hpp"
#include "runner/run_config.hpp"
#include "runner/run_folder.hpp"

namespace tokbench::runner {

/// What a run of `size` ranks cannot do, each naming the fix (empty: it can run).
std::vector<std::string> cluster_problems(const RunConfig& cfg, int size);

/// This rank's share of a total: total / size, the remainder going to the lowest ranks.
int rank_share(int total, int rank, int size);

/// This rank's client health for rank 0, as one JSON object, and back (with the records it wrote
/// and whether it was interrupted, when asked).
std::string rank_health_json(const PointResult& p, int rank, const cluster::ClockSync& clock);
RankHealth rank_health_from_json(const std::string& json, int64_t* records_written = nullptr, bool* interrupted = nullptr);

/// The run's end as rank 0 writes it: rank 0's own end, with the ranks' client costs combined
/// (CPU and events summed, the busiest thread's share and the wall the largest) and listed.
RunEnd combine_ends(RunEnd root, const std::vector<RankHealth>& ranks, int64_t records_written);

}  // namespace tokbench::runner
