#pragma once
// common/clock: the one monotonic clock every interval in tokbench is measured with.
// Integers in nanoseconds; wall-clock time is read once per run, for labels only.
#include <chrono>
#include <cstdint>

namespace tokbench {

/// Nanoseconds on std::chrono::steady_clock (CLOCK_MONOTONIC on Linux, so comparable across
/// processes on one machine: the simulator's trace and the client's records share this axis).
inline int64_t steady_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace tokbench
