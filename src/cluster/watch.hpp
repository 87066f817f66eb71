#pragma once
// cluster/watch: the ranks' lifeline beside MPI. Open MPI 4.1 (no ULFM) cannot survive a lost
// rank: a collective waits for it forever, or the launcher ends every rank a moment later. So each
// rank keeps a TCP connection to rank 0 with a heartbeat both ways; a connection that closes
// without a goodbye, or stays silent kSilentLimitNs, is a lost rank. Rank 0 tells the others at
// once; each rank's handler (point/cluster_run) stops its load and marks the point's folder, and
// from then on every collective of cluster.hpp returns at once. After the point, each surviving
// rank ships that point's records to rank 0 over its connection (collect_files / ship_files),
// and nobody enters MPI again. A watchdog ends a rank still stuck in a collective.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tokbench::cluster {

/// A rank lost, as this rank learned of it.
struct RankLoss {
  int rank = -1;        ///< the rank lost (0 when another rank saw rank 0 go)
  int64_t seen_ns = 0;  ///< when this rank learned of it (its steady clock)
  std::string how;      ///< what was seen: its connection closed, or silence
};

/// A rank heard from in none of this long (heartbeats every 250 ms) is lost: its host stopped,
/// or the network to it. A process that dies is seen at once (its connection closes).
inline constexpr int64_t kSilentLimitNs = 10'000'000'000;

/// Sets up the lifeline once (later calls do nothing): rank 0 listens (on 127.0.0.1 when every
/// rank is on its host), every other rank connects. Collective. Returns "" or, on rank 0, what
/// could not be set up (the run goes on; a loss there would not be seen). A world of one: "".
std::string watch_ranks();

/// The loss this rank knows of, if any.
std::optional<RankLoss> rank_lost();

/// What to do when this rank first learns of a loss (called on the lifeline's thread; nullptr
/// clears it). Set while a point is measured, so the point's folder is marked at once. Returns
/// once a handler already called has returned: after on_rank_loss(nullptr), none runs.
void on_rank_loss(std::function<void(const RankLoss&)> handler);

/// After a loss, on rank 0: asks every surviving rank for the files of the point it measured
/// and appends them, whole lines only, to `paths` (in the order ship_files sends them); waits
/// until each has sent them, is lost too, or `limit` passes. Returns the lines appended to the
/// first path, per rank.
std::map<int, int64_t> collect_files(const std::vector<std::filesystem::path>& paths,
                                     std::chrono::milliseconds limit);
/// After a loss, on another rank: waits (within `limit`) for rank 0 to ask, then sends `paths`.
/// False when rank 0 never asked (it was lost, or stuck).
bool ship_files(const std::vector<std::filesystem::path>& paths, std::chrono::milliseconds limit);

/// Called once the rank is past every collective after a loss: the watchdog is called off.
void loss_handled();

/// The lifeline's end, before MPI_Finalize (or after a loss, instead of it): a goodbye to the
/// other end, so closing is not taken for a loss.
void end_watch();

}  // namespace tokbench::cluster
