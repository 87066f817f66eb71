#pragma once
// metrics/saturation: --stop-on-saturation — is the server past saturation, so that the point can
// only fail? Read on the run's own windows (measure/saturation_watch closes one every
// --saturation-window-s): the requests in flight at its end, and the output tokens and mean TTFT
// of the requests that ended in it.
// Rule (kSaturationRule): over the last kSaturationWindows windows (the phase's first window, the
// fill, never counts), the in-flight count rose at every window and ended at least 1.5x (and 4
// requests) above where it began; the mean TTFT rose at every window and ended at least 1.5x above;
// and output tokens/s stayed flat, its highest window within 25% of its lowest. The queue and the
// wait grow while what the server delivers does not: arrivals exceed what it can serve, and the
// backlog grows without bound. This is the stable stage's question (metrics/stable_stage: does the
// in-flight count hold a level?) asked while the run goes on. A closed loop holds its in-flight
// count at --concurrency, so it never matches: only an open loop (a rate, a trace) can run away.
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>

namespace tokbench::metrics {

inline constexpr int kSaturationWindows = 4;
/// How end.json's stop_reason begins for a point the rule stopped (its verdict: SATURATED).
inline constexpr std::string_view kSaturatedStopReason = "saturated: ";
inline constexpr const char* kSaturationRule =
    "over 4 consecutive windows (the first window of the phase excluded), the requests in flight "
    "rose at every window "
    "end to at least 1.5x (and 4 more than) the first, the mean TTFT rose at every window to at "
    "least 1.5x the first, "
    "and output tokens/s stayed flat (highest window within 25% of the lowest)";

struct SaturationWindow {
  double end_s = 0;                ///< when it closed, seconds into the measured phase
  int64_t in_flight = 0;           ///< requests sent and not yet ended, at its end
  double output_tokens_per_s = 0;  ///< output tokens of the requests that ended in it, per second
  std::optional<double> ttft_ms;   ///< mean TTFT of the requests that ended in it
};

class SaturationDetector {
 public:
  /// Adds the window just closed; returns why the point is past saturation once the rule holds.
  std::optional<std::string> add(const SaturationWindow& w);

 private:
  int seen_ = 0;
  std::deque<SaturationWindow> last_;
};

}  // namespace tokbench::metrics
