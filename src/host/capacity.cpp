#include "host/capacity.hpp"

#include <algorithm>
#include <cmath>

namespace tokbench::host {

int64_t Capacity::streams_at(double tokens_per_s) const {
  if (tokens_per_s <= 0 || events_per_s <= 0) return 0;
  const double by_events = std::floor(events_per_s / tokens_per_s + 1e-9);  // 1049.99… is 1050
  return std::min<int64_t>(stream_cap, static_cast<int64_t>(std::min(by_events, 1e15)));
}

Capacity capacity(const HostLimits& limits, const EventCost& cost) {
  Capacity c;
  c.us_per_event = cost.us_per_event();
  c.cpus = limits.usable_cpus();
  if (c.us_per_event > 0) c.events_per_s = c.cpus * kBusyBound * 1e6 / c.us_per_event;
  auto cap = [&c](int64_t n, const char* by) {
    if (n >= 0 && n < c.stream_cap) {
      c.stream_cap = n;
      c.stream_cap_by = by;
    }
  };
  if (limits.nofile_hard >= 0 && limits.nofile_hard != INT64_MAX)
    cap(std::max<int64_t>(0, limits.nofile_hard - kSpareDescriptors), "open files (ulimit -Hn)");
  if (limits.ports() > 0) cap(limits.ports(), "local ports (ip_local_port_range)");
  if (cost.peak_rss_bytes > 0 && cost.streams > 0) {
    c.bytes_per_stream = cost.peak_rss_bytes / static_cast<double>(cost.streams);
    if (limits.mem_available_bytes > 0)
      cap(static_cast<int64_t>(static_cast<double>(limits.mem_available_bytes) /
                               c.bytes_per_stream),
          "memory available");
  }
  return c;
}

HostsNeeded hosts_needed(const Capacity& c, int64_t streams, double tokens_per_s) {
  HostsNeeded h;
  if (c.events_per_s > 0 && tokens_per_s > 0)
    h.by_events =
        std::max<int64_t>(1, static_cast<int64_t>(std::ceil(static_cast<double>(streams) *
                                                            tokens_per_s / c.events_per_s)));
  if (c.stream_cap > 0 && c.stream_cap != INT64_MAX)
    h.by_streams = std::max<int64_t>(1, (streams + c.stream_cap - 1) / c.stream_cap);
  h.hosts = std::max(h.by_events, h.by_streams);
  return h;
}

}  // namespace tokbench::host
