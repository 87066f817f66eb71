#pragma once
// record/client_health: the client's own cost over a measured phase — one struct for a point's
// result, end.json, each rank of a multi-host run and result.json, with one field table for
// reading and writing it (its names are end.json's); and a rank's health in a multi-host run.
#include <array>
#include <cstdint>

#include "common/json_fields.hpp"

namespace tokbench::record {

struct ClientHealth {
  double measured_wall_s = 0;  ///< the measured phase's wall time
  double cpu_s = -1;           ///< CPU of the worker threads (-1: unknown)
  double process_cpu_s = -1;  ///< CPU of the whole client process (recorder, scraper, progress too)
  double cpu_share = -1;      ///< the busiest worker thread's CPU / wall
  double busy_share =
      -1;  ///< the busiest worker thread's share of the phase not waiting for the network
  double peak_busy = -1;  ///< a worker's busiest 100 ms: the share it never waited for the network
  double peak_busy_at_s = -1;  ///< when it began, s since the origin
  int64_t events = -1;         ///< SSE events the workers parsed
  /// Kept-alive connections the server closed after a response (client::ServerHabits; -1: not
  /// counted, an older run folder).
  int64_t server_closed = -1;
  /// This machine's wake-up floor, measured just before an open loop's phase (common/
  /// wakeup_floor: 200 deadlines 1 ms apart): how late a thread woke, p50 and p99 (-1: not
  /// measured, a closed loop or an older run folder). Send lag is judged against it.
  double wakeup_floor_p50_ms = -1, wakeup_floor_p99_ms = -1;
};

inline constexpr std::array<json::Field<ClientHealth>, 11> kClientHealthFields{{
    {"measured_wall_s", &ClientHealth::measured_wall_s},
    {"client_cpu_s", &ClientHealth::cpu_s},
    {"client_process_cpu_s", &ClientHealth::process_cpu_s},
    {"client_cpu_share", &ClientHealth::cpu_share},
    {"client_busy_share", &ClientHealth::busy_share},
    {"client_peak_busy", &ClientHealth::peak_busy},
    {"client_peak_busy_at_s", &ClientHealth::peak_busy_at_s},
    {"client_sse_events", &ClientHealth::events},
    {"server_closed_connections", &ClientHealth::server_closed},
    {"wakeup_floor_p50_ms", &ClientHealth::wakeup_floor_p50_ms},
    {"wakeup_floor_p99_ms", &ClientHealth::wakeup_floor_p99_ms},
}};

/// One rank's client in a multi-host run (mpirun): its cost and its clock against rank 0's.
struct RankHealth {
  int64_t rank = 0;
  ClientHealth client;
  int64_t clock_offset_ns = 0,
          clock_residual_ns = 0;  ///< rank-0 time = local + offset, |error| <= residual
};

/// RankHealth's own fields (its `client` is written with kClientHealthFields beside them).
inline constexpr std::array<json::Field<RankHealth>, 3> kRankFields{{
    {"rank", &RankHealth::rank},
    {"clock_offset_ns", &RankHealth::clock_offset_ns},
    {"clock_residual_ns", &RankHealth::clock_residual_ns},
}};

}  // namespace tokbench::record
