#pragma once
// host/limits: the load host's own limits, read before a large run (`tokbench doctor`, and the
// check `run` makes before it sends): open files, the ephemeral port range and TIME_WAIT reuse,
// the CPUs this process may use (affinity and a cgroup's CPU quota), CPU frequency scaling and
// the memory available. Reads /proc and /sys under a root a test can point elsewhere; knows
// nothing of HTTP or of a run.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace tokbench::host {

struct HostLimits {
  int64_t nofile_soft = -1;  ///< RLIMIT_NOFILE (ulimit -n); -1: unknown
  int64_t nofile_hard = -1;  ///< its ceiling (ulimit -Hn): tokbench raises the soft limit to it
  int64_t port_low = -1, port_high = -1;  ///< net.ipv4.ip_local_port_range; -1: unknown
  int tcp_tw_reuse = -1;  ///< net.ipv4.tcp_tw_reuse: 0 off, 1 on, 2 loopback only; -1 unknown
  int64_t tcp_fin_timeout_s = -1;      ///< net.ipv4.tcp_fin_timeout
  int affinity_cpus = 0;               ///< CPUs this process may run on (taskset, cpuset)
  std::optional<double> quota_cpus;    ///< a cgroup's CPU quota in CPUs (cpu.max, cfs_quota_us)
  std::vector<std::string> governors;  ///< cpufreq scaling governors in use (empty: none exposed)
  int64_t mem_available_bytes = -1;    ///< MemAvailable of /proc/meminfo
  std::string cpu_model;               ///< /proc/cpuinfo's model name

  /// The CPUs the client can count on: the affinity, capped by a quota.
  double usable_cpus() const;
  /// Local ports for connections to one server address (each needs its own): the range's size.
  int64_t ports() const { return port_low < 0 ? -1 : port_high - port_low + 1; }
};

/// Reads the limits. `root` replaces "/" for /proc and /sys (tests); the open-file limit and the
/// affinity are this process's own (getrlimit, sched_getaffinity).
HostLimits read_host_limits(const std::filesystem::path& root = "/");

/// Connections a process can keep open under an open-file limit, after the descriptors a run
/// holds besides its sockets (files, logs, epoll, pipes).
inline constexpr int64_t kSpareDescriptors = 64;

/// What the limits say of a run of `streams` concurrent connections to one server address, one
/// line each (empty: nothing stands in its way). `in_process_server`: the built-in simulator runs
/// in the same process and holds a descriptor for every connection too. Each line names the limit
/// and the fix.
std::vector<std::string> stream_limit_warnings(const HostLimits& limits, int64_t streams,
                                               bool in_process_server);

}  // namespace tokbench::host
