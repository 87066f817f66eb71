#include "probe/telemetry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <string_view>

namespace tokbench::probe {

namespace {

enum class Field { Power, EnergyMj, Util, MemUsedMib, MemFreeMib, MemTotalMib, Temperature, Health, HostMemTotal, HostMemAvailable };

struct Known {
  std::string_view name;
  Dialect dialect;
  Field field;
};

// The series each dialect names, with the unit it is in (converted in apply()).
constexpr Known kKnown[] = {
    {"DCGM_FI_DEV_POWER_USAGE", Dialect::Dcgm, Field::Power},                   // W
    {"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", Dialect::Dcgm, Field::EnergyMj},  // mJ since boot
    {"DCGM_FI_DEV_GPU_UTIL", Dialect::Dcgm, Field::Util},                      // %
    {"DCGM_FI_DEV_FB_USED", Dialect::Dcgm, Field::MemUsedMib},                 // MiB
    {"DCGM_FI_DEV_FB_FREE", Dialect::Dcgm, Field::MemFreeMib},                 // MiB
    {"DCGM_FI_DEV_GPU_TEMP", Dialect::Dcgm, Field::Temperature},               // °C
    {"npu_chip_info_power", Dialect::NpuExporter, Field::Power},               // W
    {"npu_chip_info_utilization", Dialect::NpuExporter, Field::Util},          // %
    {"npu_chip_info_hbm_used_memory", Dialect::NpuExporter, Field::MemUsedMib},   // MB
    {"npu_chip_info_hbm_total_memory", Dialect::NpuExporter, Field::MemTotalMib}, // MB
    {"npu_chip_info_temperature", Dialect::NpuExporter, Field::Temperature},   // °C
    {"npu_chip_info_health_status", Dialect::NpuExporter, Field::Health},      // 1 healthy
    {"gpu_package_power", Dialect::AmdExporter, Field::Power},                 // W
    {"gpu_power_usage", Dialect::AmdExporter, Field::Power},                   // W (older releases)
    {"gpu_gfx_activity", Dialect::AmdExporter, Field::Util},                   // %
    {"gpu_junction_temperature", Dialect::AmdExporter, Field::Temperature},    // °C
    {"node_memory_MemTotal_bytes", Dialect::NodeExporter, Field::HostMemTotal},
    {"node_memory_MemAvailable_bytes", Dialect::NodeExporter, Field::HostMemAvailable},
};

// Other series of a recognised dialect that are known but not read (clocks, profiling, ...), and
// every exporter's own process and Go runtime series: not "not recognised". (AMD's `gpu_` prefix
// is too common to claim: its other series are listed.)
bool known_family(std::string_view name) {
  for (std::string_view prefix : {"DCGM_FI_", "npu_chip_info_", "node_", "go_", "process_", "promhttp_"})
    if (name.rfind(prefix, 0) == 0) return true;
  return false;
}

std::string label(const Sample& s, const char* key) {
  const auto it = s.labels.find(key);
  return it == s.labels.end() ? std::string() : it->second;
}

std::string device_of(const Sample& s, Dialect d) {
  switch (d) {
    case Dialect::Dcgm: {
      std::string id = "gpu " + label(s, "gpu");
      const std::string uuid = label(s, "UUID"), host = label(s, "Hostname");
      if (!uuid.empty() || !host.empty())
        id += fmt::format(" ({}{}{})", uuid, !uuid.empty() && !host.empty() ? ", " : "", host);
      return id;
    }
    case Dialect::NpuExporter: return "npu " + label(s, "id");
    case Dialect::AmdExporter: return "gpu " + label(s, "gpu_id");
    case Dialect::NodeExporter: return "host";
  }
  return {};
}

}  // namespace

const char* dialect_name(Dialect d) {
  switch (d) {
    case Dialect::Dcgm: return "dcgm-exporter";
    case Dialect::NpuExporter: return "npu-exporter";
    case Dialect::AmdExporter: return "amd device-metrics-exporter";
    case Dialect::NodeExporter: return "node-exporter";
  }
  return "?";
}

TelemetryScrape read_telemetry(const std::vector<Sample>& samples) {
  TelemetryScrape out;
  std::set<std::string> unknown;
  std::vector<std::optional<double>> free_mib;  // DCGM reports used and free: total is their sum
  std::vector<std::optional<double>> host_total, host_available;
  auto reading = [&](const std::string& device, Dialect d) -> size_t {
    for (size_t i = 0; i < out.devices.size(); ++i)
      if (out.devices[i].device == device && out.devices[i].dialect == d) return i;
    out.devices.push_back({device, d, {}, {}, {}, {}, {}, {}, {}});
    free_mib.emplace_back();
    host_total.emplace_back();
    host_available.emplace_back();
    return out.devices.size() - 1;
  };
  for (const Sample& s : samples) {
    const Known* k = nullptr;
    for (const Known& c : kKnown)
      if (c.name == s.name) k = &c;
    if (!k) {
      if (!known_family(s.name)) unknown.insert(s.name);
      continue;
    }
    if (std::find(out.dialects.begin(), out.dialects.end(), k->dialect) == out.dialects.end()) out.dialects.push_back(k->dialect);
    const size_t i = reading(device_of(s, k->dialect), k->dialect);
    DeviceReading& r = out.devices[i];
    switch (k->field) {
      case Field::Power: r.power_w = s.value; break;
      case Field::EnergyMj: r.energy_j = s.value / 1000; break;
      case Field::Util: r.util_pct = s.value; break;
      case Field::MemUsedMib: r.mem_used_mib = s.value; break;
      case Field::MemFreeMib: free_mib[i] = s.value; break;
      case Field::MemTotalMib: r.mem_total_mib = s.value; break;
      case Field::Temperature: r.temperature_c = s.value; break;
      case Field::Health: r.healthy = s.value == 1; break;
      case Field::HostMemTotal: host_total[i] = s.value; break;
      case Field::HostMemAvailable: host_available[i] = s.value; break;
    }
  }
  for (size_t i = 0; i < out.devices.size(); ++i) {
    DeviceReading& r = out.devices[i];
    if (!r.mem_total_mib && r.mem_used_mib && free_mib[i]) r.mem_total_mib = *r.mem_used_mib + *free_mib[i];
    if (host_total[i]) r.mem_total_mib = *host_total[i] / (1024.0 * 1024.0);
    if (host_total[i] && host_available[i]) r.mem_used_mib = (*host_total[i] - *host_available[i]) / (1024.0 * 1024.0);
  }
  out.not_recognised.assign(unknown.begin(), unknown.end());
  return out;
}

}  // namespace tokbench::probe
