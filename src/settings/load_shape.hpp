#pragma once
// settings/load_shape: the load one point puts on the server, as one typed value decided once from
// its (validated) settings — exactly one shape: a closed loop, an open loop with its arrival
// process, AISBench's pressure mode, a trace replayed at its timestamps, multi-turn sessions or
// the adaptive controller — with the ramp and the duration as properties. Everything that asks
// "is this an open loop", "how many in flight at most" or "what do we call these arrivals" asks
// this, not the flags.
#include <cstdint>
#include <string>
#include <variant>

#include "core/run_control.hpp"
#include "settings/settings.hpp"

namespace tokbench::runner {

/// An open loop or a trace with no --concurrency is not capped by the client (vLLM's default):
/// this is only the client's safety ceiling, said in the header.
inline constexpr int kOpenLoopCeiling = 1024;

/// --concurrency requests in flight, each sent as soon as one finishes.
struct ClosedLoop {
  int concurrency = 1;
};
/// Requests due on a schedule (--request-rate), at most `max_in_flight` at once.
struct OpenLoop {
  double rate_rps = 0;  ///< infinity: every request due at the phase start
  core::ArrivalKind process = core::ArrivalKind::Poisson;
  double burstiness = 1;  ///< gamma's shape
  int max_in_flight = 1;
  bool capped = true;  ///< --concurrency was given (else max_in_flight is kOpenLoopCeiling)
  double burst_on_s = 0, burst_off_s = 0;  ///< --bursts: arrivals only while on (0 = always)
  bool all_at_once() const;
};
/// AISBench's pressure mode: `clients` added `clients_per_s` a second (0: all at once), each
/// sending back to back.
struct Pressure {
  int clients = 1;
  double clients_per_s = 0;
};
/// A trace's own timestamps (--dataset trace:PATH), `speed` times as fast.
struct TraceReplay {
  double speed = 1;
  int max_in_flight = 1;
  bool capped = true;  ///< --concurrency was given (else max_in_flight is kOpenLoopCeiling)
};
/// Multi-turn conversations, `active` at once; each turn goes when the last answer is in.
struct Sessions {
  int active = 1;
  int64_t turns = 0;  ///< 0: a file's conversations decide (--multi-turn)
  double think_time_ms = 0;
  bool agent_tasks = false;  ///< agent:PATH: each session is a task whose calls decide its turns
};
/// The in-run controller: starts at `start` in flight, never above `max`, judged every window.
struct Adaptive {
  int start = 1;
  int max = 1;
  double window_s = 0;
};

/// The load ramp (--ramp-up-s): concurrency 1..C (closed loop) or the rate (open loop).
struct Ramp {
  double seconds = 0;  ///< 0: no ramp
  bool exponential = false;
  double start_rps = 0;
  bool measured = false;  ///< its requests count in the statistics (default: recorded as warm-up)
};

struct LoadShape {
  std::variant<ClosedLoop, OpenLoop, Pressure, TraceReplay, Sessions, Adaptive> shape;
  Ramp ramp;
  double duration_s = 0;  ///< 0: bounded by the request count
  double grace_s = 0;     ///< with a duration: how long requests in flight at its end may finish

  /// Requests carry intended send times (an open loop or a trace): the *_FromIntended rows, send
  /// lag.
  bool open_loop() const;
  /// The in-flight cap the engine's pool is sized for.
  int max_in_flight() const;
  /// --concurrency capped the in-flight count of a schedule (false: only kOpenLoopCeiling did).
  bool in_flight_capped() const;
  /// The rate the requests are paced at, in req/s (0: not paced; a trace's is its own, known
  /// later).
  double paced_rate() const;
  /// The rate averaged over time: the paced rate, less the off windows of --bursts.
  double mean_rate() const;
  /// The manifest's name of the arrivals: closed, poisson, gamma, constant, all-at-once, pressure,
  /// trace, sessions or adaptive.
  std::string arrivals() const;
  /// One line for the console: "concurrency 8  rate 4 req/s (poisson)  ramp-up 10 s ...".
  std::string text(bool warms_connections) const;
};

/// The load shape of validated settings: the load part's, unless the workload paces itself (a
/// trace, sessions) or the experiment's controller sets it.
LoadShape load_shape(const LoadSettings& load, const WorkloadSettings& workload,
                     const ExperimentSettings& experiment);

}  // namespace tokbench::runner
