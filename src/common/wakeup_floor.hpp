#pragma once
// common/wakeup_floor: how late this machine wakes a thread for an absolute deadline — the floor
// under any client's send lag (wrk2's and LoadGen's concern). A run with an arrival schedule
// measures it for a moment before its measured phase, the way the engine waits for a send
// (sleep to 100 µs before the deadline with 1 ns timer slack, then poll the clock), so its
// verdict can tell a VM's timer jitter from a client that fell behind; bench/wakeup_floor prints
// it alone.
#include <cstdint>

namespace tokbench {

struct WakeupFloor {
  int64_t deadlines = 0;                                      ///< how many were measured (0: none)
  double p50_ms = -1, p90_ms = -1, p99_ms = -1, max_ms = -1;  ///< lateness (NearestLower ranks)
};

/// Sleeps on the calling thread to `count` absolute deadlines `period_ns` apart, waking
/// `spin_ns` before each and polling the clock for the rest, and returns how late it saw them.
/// The thread's timer slack is 1 ns meanwhile (as the engine's), then what it was. Takes
/// count × period_ns.
WakeupFloor measure_wakeup_floor(int count, int64_t period_ns = 1'000'000,
                                 int64_t spin_ns = 100'000);

}  // namespace tokbench
