#pragma once
// cluster: the ranks of a multi-host run, on Open MPI (mpirun, or srun under Slurm). The only
// module that speaks MPI, and only from the main thread: clock alignment to rank 0, a common
// phase start, broadcasting a value, and shipping each rank's records to rank 0 at the end.
// Built without MPI (or started without mpirun) it is a world of one rank and nothing changes.
// Open MPI itself is in a plug-in loaded only under a launcher (cluster/mpi_plugin.hpp).
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace tokbench::cluster {

struct World {
  int rank = 0;
  int size = 1;
  bool initialized = false;  ///< MPI_Init was called (started by mpirun or srun)
};

/// Once a rank is lost (cluster/watch.hpp), every collective below returns at once with this
/// rank's own value (a broadcast or a merge is a world of one): the run is over, and no rank
/// waits for the lost one.

/// True when this tokbench was built with MPI.
bool available();

/// Initializes MPI when the environment says an MPI launcher started this process (Open MPI's
/// OMPI_COMM_WORLD_SIZE, PMI's PMI_SIZE, PMIx's PMIX_RANK); otherwise a world of one. Call once,
/// first thing in main. Throws std::runtime_error when launched by mpirun but built without MPI.
const World& init(int* argc, char*** argv);
/// The world init() made (a world of one before it).
const World& world();
/// The ranks' lifeline ended, then MPI_Finalize when MPI was initialized (not after a lost rank:
/// it would wait for that rank).
void finalize();
/// Ends every rank at once (MPI_Abort): a rank that failed must not leave the others waiting.
[[noreturn]] void abort(int code);

/// This rank's steady clock against rank 0's: rank-0 time = local time + offset_ns. Estimated
/// over `rounds` ping-pongs with rank 0 (the one with the shortest round trip is kept, NTP's
/// rule); |error| <= residual_ns (half that round trip). Rank 0: offset 0, residual 0. Collective.
struct ClockSync {
  int64_t offset_ns = 0;
  int64_t residual_ns = 0;
  int64_t round_trip_ns = 0;
};
ClockSync sync_clocks(int rounds = 32);

/// The latest of every rank's `local_ns` in rank 0's clock, plus `margin_ns`, back in this rank's
/// clock: a moment every rank reaches at once. Collective.
int64_t common_moment(int64_t local_ns, const ClockSync& clock, int64_t margin_ns);

/// Rank 0's `value` on every rank. Collective.
int64_t broadcast(int64_t value);
std::string broadcast(const std::string& value);

/// Every rank's `payload`, in rank order, on rank 0 (other ranks get an empty list). Large
/// payloads go in pieces of 64 MiB. Collective.
std::vector<std::string> gather(const std::string& payload);

/// The other ranks' file `path` (a missing one is empty), appended to rank 0's own `path` in rank
/// order, read and written in pieces of 16 MiB: memory does not grow with the files. Collective.
/// Returns the bytes rank 0 appended (0 on other ranks). Throws std::runtime_error on a disk error.
int64_t append_to_root(const std::filesystem::path& path);

}  // namespace tokbench::cluster
