#include "host/limits.hpp"

#include <fmt/format.h>
#include <sched.h>
#include <sys/resource.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>
#include <sstream>
#include <system_error>

namespace tokbench::host {

namespace {

namespace fs = std::filesystem;

std::optional<std::string> read_text(const fs::path& p) {
  std::ifstream in(p);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::optional<int64_t> read_number(const fs::path& p) {
  const auto text = read_text(p);
  if (!text) return std::nullopt;
  std::istringstream in(*text);
  int64_t v = 0;
  if (!(in >> v)) return std::nullopt;
  return v;
}

// The process's cgroup paths: v2's "0::/path" and v1's "N:cpu,cpuacct:/path" (the cpu line).
struct CgroupPaths {
  std::optional<std::string> v2, v1_cpu;
};
CgroupPaths own_cgroups(const fs::path& root) {
  CgroupPaths out;
  std::istringstream in(read_text(root / "proc/self/cgroup").value_or(""));
  for (std::string line; std::getline(in, line);) {
    const size_t a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    if (controllers.empty()) out.v2 = path;
    std::istringstream names(controllers);
    for (std::string n; std::getline(names, n, ',');)
      if (n == "cpu") out.v1_cpu = path;
  }
  return out;
}

// The tightest CPU quota on the way from the process's cgroup up to the root (a parent's quota
// binds its children too); nullopt when none is set.
std::optional<double> cpu_quota(const fs::path& root) {
  const CgroupPaths own = own_cgroups(root);
  std::optional<double> best;
  auto take = [&best](double cpus) {
    if (cpus > 0) best = best ? std::min(*best, cpus) : cpus;
  };
  // The cgroup's folder and each one above it, up to the hierarchy's top.
  auto walk = [](const fs::path& top, const std::string& own, auto&& visit) {
    fs::path dir = top;
    visit(dir);
    for (const fs::path& part : fs::path(own).relative_path()) {
      if (part.empty()) continue;
      dir /= part;
      visit(dir);
    }
  };
  if (own.v1_cpu) {
    walk(root / "sys/fs/cgroup/cpu", *own.v1_cpu, [&](const fs::path& d) {
      const auto quota = read_number(d / "cpu.cfs_quota_us");
      const auto period = read_number(d / "cpu.cfs_period_us");
      if (quota && period && *quota > 0 && *period > 0)
        take(static_cast<double>(*quota) / static_cast<double>(*period));
    });
  }
  if (own.v2) {
    walk(root / "sys/fs/cgroup", *own.v2, [&](const fs::path& d) {
      std::istringstream in(read_text(d / "cpu.max").value_or(""));  // "QUOTA PERIOD" or "max …"
      double quota = 0;
      int64_t period = 0;
      if (in >> quota >> period && period > 0) take(quota / static_cast<double>(period));
    });
  }
  return best;
}

std::vector<std::string> governors(const fs::path& root) {
  std::set<std::string> seen;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(root / "sys/devices/system/cpu", ec)) {
    const std::string name = e.path().filename().string();
    if (!name.starts_with("cpu") || name.size() < 4 ||
        !std::isdigit(static_cast<unsigned char>(name[3])))
      continue;
    if (auto g = read_text(e.path() / "cpufreq/scaling_governor")) {
      g->erase(std::remove(g->begin(), g->end(), '\n'), g->end());
      if (!g->empty()) seen.insert(*g);
    }
  }
  return {seen.begin(), seen.end()};
}

int64_t mem_available(const fs::path& root) {
  std::istringstream in(read_text(root / "proc/meminfo").value_or(""));
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with("MemAvailable:")) continue;
    std::istringstream v(line.substr(13));
    int64_t kib = 0;
    if (v >> kib) return kib * 1024;
  }
  return -1;
}

std::string cpu_model(const fs::path& root) {
  std::istringstream in(read_text(root / "proc/cpuinfo").value_or(""));
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with("model name")) continue;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) break;
    const size_t start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? "" : line.substr(start);
  }
  return "";
}

}  // namespace

double HostLimits::usable_cpus() const {
  const double cpus = std::max(1, affinity_cpus);
  return quota_cpus ? std::min(cpus, *quota_cpus) : cpus;
}

HostLimits read_host_limits(const fs::path& root) {
  HostLimits h;
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0) {
    h.nofile_soft = lim.rlim_cur == RLIM_INFINITY ? INT64_MAX : static_cast<int64_t>(lim.rlim_cur);
    h.nofile_hard = lim.rlim_max == RLIM_INFINITY ? INT64_MAX : static_cast<int64_t>(lim.rlim_max);
  }
  std::istringstream range(read_text(root / "proc/sys/net/ipv4/ip_local_port_range").value_or(""));
  int64_t low = 0, high = 0;
  if (range >> low >> high && low > 0 && high >= low) {
    h.port_low = low;
    h.port_high = high;
  }
  h.tcp_tw_reuse =
      static_cast<int>(read_number(root / "proc/sys/net/ipv4/tcp_tw_reuse").value_or(-1));
  h.tcp_fin_timeout_s = read_number(root / "proc/sys/net/ipv4/tcp_fin_timeout").value_or(-1);
  cpu_set_t set;
  CPU_ZERO(&set);
  h.affinity_cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
  h.quota_cpus = cpu_quota(root);
  h.governors = governors(root);
  h.mem_available_bytes = mem_available(root);
  h.cpu_model = cpu_model(root);
  return h;
}

std::vector<std::string> stream_limit_warnings(const HostLimits& limits, int64_t streams,
                                               bool in_process_server) {
  std::vector<std::string> out;
  const int64_t per_stream = in_process_server ? 2 : 1;
  const int64_t open = limits.nofile_hard == INT64_MAX ? INT64_MAX
                       : limits.nofile_hard < 0        ? -1
                                                       : limits.nofile_hard - kSpareDescriptors;
  if (open >= 0 && streams * per_stream > open)
    out.push_back(fmt::format(
        "{} streams need {} open files{} but this process may hold {} (ulimit -Hn {}): connections "
        "past it fail with 'Too many open files'; raise the hard limit (`ulimit -Hn`, "
        "limits.conf's "
        "nofile, systemd's LimitNOFILE) or share the load over hosts (`tokbench doctor "
        "--hosts-needed`)",
        streams, streams * per_stream + kSpareDescriptors,
        in_process_server ? " (the built-in simulator holds the other end of each)" : "",
        std::max<int64_t>(0, open), limits.nofile_hard));
  if (limits.ports() > 0 && streams > limits.ports())
    out.push_back(fmt::format(
        "{} streams to one server address need {} local ports but net.ipv4.ip_local_port_range "
        "({}–{}) has {}: connections past it fail with 'Cannot assign requested address'; widen "
        "it (`sysctl -w net.ipv4.ip_local_port_range=\"1024 65535\"`) or share the load over hosts",
        streams, streams, limits.port_low, limits.port_high, limits.ports()));
  return out;
}

}  // namespace tokbench::host
