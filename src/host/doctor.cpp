#include "host/doctor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/abbreviate.hpp"
#include "common/json_writer.hpp"

namespace tokbench::host {

namespace {

std::string count_or_unknown(int64_t v) {
  return v == INT64_MAX ? "unlimited" : v < 0 ? "unknown" : fmt::format("{}", v);
}

std::string memory(int64_t bytes) {
  if (bytes < 0) return "unknown";
  const double b = static_cast<double>(bytes);
  return b < (1 << 30) ? fmt::format("{:.0f} MiB", b / (1 << 20))
                       : fmt::format("{:.1f} GiB", b / (1 << 30));
}

std::string tw_reuse_text(int v) {
  switch (v) {
    case 0:
      return "0 (off)";
    case 1:
      return "1 (on)";
    case 2:
      return "2 (loopback only)";
    default:
      return "unknown";
  }
}

}  // namespace

Capacity DoctorReport::capacity() const {
  return host::capacity(limits, cost.value_or(EventCost{}));
}

std::vector<std::string> host_advice(const HostLimits& l) {
  std::vector<std::string> out;
  if (l.nofile_hard >= 0 && l.nofile_hard < 65536)
    out.push_back(fmt::format(
        "open files: at most {} connections (ulimit -Hn {}); raise the hard limit for runs of "
        "thousands of streams (limits.conf nofile, systemd LimitNOFILE)",
        std::max<int64_t>(0, l.nofile_hard - kSpareDescriptors), l.nofile_hard));
  if (l.ports() > 0 && l.ports() < 16384)
    out.push_back(fmt::format(
        "local ports: {} to one server address; widen net.ipv4.ip_local_port_range", l.ports()));
  if (l.tcp_tw_reuse == 0)
    out.push_back(
        "net.ipv4.tcp_tw_reuse is 0: a port whose connection closed waits in TIME_WAIT before "
        "reuse; a load that opens connections fast (no keep-alive, a server that closes after "
        "each stream) can run out: `sysctl -w net.ipv4.tcp_tw_reuse=1`");
  for (const std::string& g : l.governors)
    if (g != "performance")
      out.push_back(fmt::format(
          "CPU frequency governor '{}': the client's cost per event follows the clock, which this "
          "governor moves with load; for stable figures `cpupower frequency-set -g performance`",
          g));
  if (l.quota_cpus && *l.quota_cpus < l.affinity_cpus)
    out.push_back(fmt::format(
        "a cgroup CPU quota gives this process {:.2f} of its {} CPUs: the estimates below count "
        "the quota",
        *l.quota_cpus, l.affinity_cpus));
  return out;
}

std::string doctor_text(const DoctorReport& r) {
  const HostLimits& l = r.limits;
  std::string out = "tokbench doctor: this load host's limits\n";
  auto row = [&out](std::string_view name, const std::string& value) {
    out += fmt::format("  {:<24} {}\n", name, value);
  };
  row("CPU", fmt::format("{}{}", l.cpu_model.empty() ? "unknown model" : l.cpu_model,
                         fmt::format(", {} usable", l.affinity_cpus)));
  row("CPU quota", l.quota_cpus ? fmt::format("{:.2f} CPUs (cgroup)", *l.quota_cpus) : "none");
  row("frequency governor", l.governors.empty() ? "not exposed (fixed clock, or a VM)"
                                                : fmt::format("{}", fmt::join(l.governors, ", ")));
  row("open files", fmt::format("{} (hard {})", count_or_unknown(l.nofile_soft),
                                count_or_unknown(l.nofile_hard)));
  row("local ports",
      l.ports() > 0 ? fmt::format("{} ({}–{})", l.ports(), l.port_low, l.port_high) : "unknown");
  row("tcp_tw_reuse", tw_reuse_text(l.tcp_tw_reuse));
  row("tcp_fin_timeout",
      l.tcp_fin_timeout_s < 0 ? "unknown" : fmt::format("{} s", l.tcp_fin_timeout_s));
  row("memory available", memory(l.mem_available_bytes));
  const Capacity c = r.capacity();
  if (r.cost) {
    out += fmt::format("measured against {}, {} streams on one worker thread:\n",
                       r.measured_against, r.cost->streams);
    row("cost per SSE event", fmt::format("{:.2f} µs of CPU ({} events, {:.3f} s)", c.us_per_event,
                                          r.cost->events, r.cost->cpu_s));
    row("events/s per core", fmt::format("{:.0f} at saturation; {:.0f} within the TTFT bound",
                                         1e6 / c.us_per_event, kBusyBound * 1e6 / c.us_per_event));
    if (c.bytes_per_stream > 0)
      row("memory per stream", fmt::format("≤ {:.0f} KiB{}", c.bytes_per_stream / 1024,
                                           r.in_process_server ? " (client and simulator)" : ""));
    out += fmt::format(
        "estimate (from the cost per event: {:.2f} CPUs each ≤ {:.0f} % busy, one event per "
        "token):\n",
        c.cpus, 100 * kBusyBound);
    row("events/s this host", fmt::format("{:.0f}", c.events_per_s));
    for (double rate : r.token_rates)
      row(fmt::format("streams at {:g} tok/s", rate),
          fmt::format("{} (TPOT {:g} ms){}", c.streams_at(rate), 1000 / rate,
                      c.streams_at(rate) == c.stream_cap
                          ? fmt::format(", capped by {}", c.stream_cap_by)
                          : ""));
  } else {
    out += "not measured (--no-measure): no events/s or streams estimate\n";
  }
  if (r.target_streams && r.cost) {
    const HostsNeeded h = hosts_needed(c, *r.target_streams, r.target_tokens_per_s);
    out += fmt::format(
        "hosts needed for {} streams at {:g} tok/s: {} (by events/s {}, by the stream cap {})\n",
        *r.target_streams, r.target_tokens_per_s, h.hosts, h.by_events, h.by_streams);
  }
  const auto advice = host_advice(l);
  for (const std::string& a : advice) out += fit_line("advice: " + a) + "\n";  // one screen wide
  return out;
}

std::string doctor_json(const DoctorReport& r) {
  const HostLimits& l = r.limits;
  JsonWriter w;
  auto number = [&w](std::string_view k, int64_t v) {
    w.key(k);
    if (v < 0 || v == INT64_MAX)
      w.null();
    else
      w.value(v);
  };
  w.begin_object().key("limits").begin_object();
  w.field("cpu_model", l.cpu_model).field("affinity_cpus", l.affinity_cpus);
  w.key("quota_cpus").value(l.quota_cpus);
  w.field("usable_cpus", l.usable_cpus()).field("governors", l.governors);
  number("nofile_soft", l.nofile_soft);
  number("nofile_hard", l.nofile_hard);
  number("port_low", l.port_low);
  number("port_high", l.port_high);
  number("tcp_tw_reuse", l.tcp_tw_reuse);
  number("tcp_fin_timeout_s", l.tcp_fin_timeout_s);
  number("mem_available_bytes", l.mem_available_bytes);
  w.end_object();
  const Capacity c = r.capacity();
  if (r.cost) {
    w.key("measured").begin_object();
    w.field("against", r.measured_against).field("streams", r.cost->streams);
    w.field("events", r.cost->events).field("cpu_s", r.cost->cpu_s);
    w.field("us_per_event", c.us_per_event);
    if (c.bytes_per_stream > 0) w.field("bytes_per_stream", c.bytes_per_stream);
    w.end_object();
    w.key("estimate").begin_object();
    w.field("estimated", true).field("busy_bound", kBusyBound).field("cpus", c.cpus);
    w.field("events_per_s", c.events_per_s);
    number("stream_cap", c.stream_cap);
    w.field("stream_cap_by", c.stream_cap_by);
    w.key("streams_at").begin_array();
    for (double rate : r.token_rates)
      w.begin_object()
          .field("tokens_per_s", rate)
          .field("streams", c.streams_at(rate))
          .end_object();
    w.end_array();
    if (r.target_streams) {
      const HostsNeeded h = hosts_needed(c, *r.target_streams, r.target_tokens_per_s);
      w.key("hosts_needed").begin_object();
      w.field("streams", *r.target_streams).field("tokens_per_s", r.target_tokens_per_s);
      w.field("hosts", h.hosts).field("by_events", h.by_events).field("by_streams", h.by_streams);
      w.end_object();
    }
    w.end_object();
  }
  w.field("advice", host_advice(l));
  w.end_object();
  return w.take() + "\n";
}

}  // namespace tokbench::host
