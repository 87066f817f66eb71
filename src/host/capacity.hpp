#pragma once
// host/capacity: what one load host can drive, from the client's measured cost per SSE event
// (`tokbench doctor` measures it against a loopback server) and the host's limits
// (host/limits): events per second within the TTFT bound, streams at a token rate, and the hosts
// a target load needs. Every figure here is an estimate from one measurement, and is printed as
// one.
#include <cstdint>
#include <string>

#include "host/limits.hpp"

namespace tokbench::host {

/// The client's own cost over a measured phase (a run's client_sse_events, client_cpu_s).
struct EventCost {
  int64_t events = 0;
  double cpu_s = 0;            ///< CPU time of the worker threads
  int64_t streams = 0;         ///< concurrent streams it was measured at
  double peak_rss_bytes = -1;  ///< growth of the process's peak RSS over the phase (-1: unknown)
  double us_per_event() const { return events > 0 ? cpu_s * 1e6 / static_cast<double>(events) : 0; }
};

/// The share of each worker core a client may spend and still read every first token on time:
/// busier, a closed loop's wave of first tokens queues behind it (docs/PERFORMANCE.md, "Events per
/// client core": TTFT within 0.8 % at 0.6 of a core, +7 … +27 % saturated; docs/MULTIHOST.md's
/// sizing keeps the same 30 % headroom).
inline constexpr double kBusyBound = 0.7;

struct Capacity {
  double us_per_event = 0;
  double cpus = 1;  ///< the usable CPUs (affinity, quota)
  /// SSE events per second this host reads within the TTFT bound: cpus × kBusyBound / cost.
  double events_per_s = 0;
  /// Streams the descriptors, the ports and the memory allow (INT64_MAX: no limit known).
  int64_t stream_cap = INT64_MAX;
  std::string stream_cap_by;     ///< which limit sets stream_cap ("" when none)
  double bytes_per_stream = -1;  ///< memory per stream, from the measurement (-1: unknown)

  /// Streams this host drives when each reads `tokens_per_s` (one SSE event per token).
  int64_t streams_at(double tokens_per_s) const;
};

/// The capacity of a host with `limits` whose client costs `cost`, its streams going to a server
/// elsewhere (one descriptor each).
Capacity capacity(const HostLimits& limits, const EventCost& cost);

/// Hosts like this one that `streams` streams at `tokens_per_s` each need: by events, and by the
/// stream cap, whichever needs more (at least 1).
struct HostsNeeded {
  int64_t hosts = 1;
  int64_t by_events = 1, by_streams = 1;
};
HostsNeeded hosts_needed(const Capacity& c, int64_t streams, double tokens_per_s);

}  // namespace tokbench::host
