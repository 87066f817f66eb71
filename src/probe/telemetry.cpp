#include "probe/telemetry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>

namespace tokbench::probe {

namespace {

enum class Field {
  Power,
  EnergyMj,
  Util,
  MemUsedMib,
  MemFreeMib,
  MemTotalMib,
  Temperature,
  SmClock,
  GrActive,
  SmActive,
  TensorActive,
  DramActive,
  Health,
  HostMemTotal,
  HostMemAvailable,
  HostCpu,
  HostRx,
  HostTx
};

struct Known {
  std::string_view name;
  ExporterDialect dialect;
  Field field;
};

// The series each dialect names, with the unit it is in (converted in apply()).
constexpr Known kKnown[] = {
    {"DCGM_FI_DEV_POWER_USAGE", ExporterDialect::Dcgm, Field::Power},  // W
    {"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", ExporterDialect::Dcgm,
     Field::EnergyMj},                                                          // mJ since boot
    {"DCGM_FI_DEV_GPU_UTIL", ExporterDialect::Dcgm, Field::Util},               // %
    {"DCGM_FI_DEV_FB_USED", ExporterDialect::Dcgm, Field::MemUsedMib},          // MiB
    {"DCGM_FI_DEV_FB_FREE", ExporterDialect::Dcgm, Field::MemFreeMib},          // MiB
    {"DCGM_FI_DEV_GPU_TEMP", ExporterDialect::Dcgm, Field::Temperature},        // °C
    {"DCGM_FI_DEV_SM_CLOCK", ExporterDialect::Dcgm, Field::SmClock},            // MHz
    {"DCGM_FI_PROF_GR_ENGINE_ACTIVE", ExporterDialect::Dcgm, Field::GrActive},  // ratio 0..1
    {"DCGM_FI_PROF_SM_ACTIVE", ExporterDialect::Dcgm, Field::SmActive},         // ratio
    {"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", ExporterDialect::Dcgm, Field::TensorActive},       // ratio
    {"DCGM_FI_PROF_DRAM_ACTIVE", ExporterDialect::Dcgm, Field::DramActive},                // ratio
    {"npu_chip_info_power", ExporterDialect::NpuExporter, Field::Power},                   // W
    {"npu_chip_info_utilization", ExporterDialect::NpuExporter, Field::Util},              // %
    {"npu_chip_info_hbm_used_memory", ExporterDialect::NpuExporter, Field::MemUsedMib},    // MB
    {"npu_chip_info_hbm_total_memory", ExporterDialect::NpuExporter, Field::MemTotalMib},  // MB
    {"npu_chip_info_temperature", ExporterDialect::NpuExporter, Field::Temperature},       // °C
    {"npu_chip_info_health_status", ExporterDialect::NpuExporter, Field::Health},  // 1 healthy
    {"gpu_package_power", ExporterDialect::AmdExporter, Field::Power},             // W
    {"gpu_power_usage", ExporterDialect::AmdExporter, Field::Power},  // W (older releases)
    {"gpu_gfx_activity", ExporterDialect::AmdExporter, Field::Util},  // %
    {"gpu_junction_temperature", ExporterDialect::AmdExporter, Field::Temperature},  // °C
    {"node_memory_MemTotal_bytes", ExporterDialect::NodeExporter, Field::HostMemTotal},
    {"node_memory_MemAvailable_bytes", ExporterDialect::NodeExporter, Field::HostMemAvailable},
    {"node_cpu_seconds_total", ExporterDialect::NodeExporter,
     Field::HostCpu},  // s, per cpu and mode
    {"node_network_receive_bytes_total", ExporterDialect::NodeExporter,
     Field::HostRx},  // bytes, per device
    {"node_network_transmit_bytes_total", ExporterDialect::NodeExporter, Field::HostTx},
};

// Other series of a recognised dialect that are known but not read (clocks, profiling, ...), and
// every exporter's own process and Go runtime series: not "not recognised". (AMD's `gpu_` prefix
// is too common to claim: its other series are listed.)
bool known_family(std::string_view name) {
  for (std::string_view prefix :
       {"DCGM_FI_", "npu_chip_info_", "node_", "go_", "process_", "promhttp_"})
    if (name.rfind(prefix, 0) == 0) return true;
  return false;
}

std::string label(const Sample& s, const char* key) {
  const auto it = s.labels.find(key);
  return it == s.labels.end() ? std::string() : it->second;
}

std::string device_of(const Sample& s, ExporterDialect d) {
  switch (d) {
    case ExporterDialect::Dcgm: {
      std::string id = "gpu " + label(s, "gpu");
      const std::string uuid = label(s, "UUID"), host = label(s, "Hostname");
      if (!uuid.empty() || !host.empty())
        id += fmt::format(" ({}{}{})", uuid, !uuid.empty() && !host.empty() ? ", " : "", host);
      return id;
    }
    case ExporterDialect::NpuExporter:
      return "npu " + label(s, "id");
    case ExporterDialect::AmdExporter:
      return "gpu " + label(s, "gpu_id");
    case ExporterDialect::NodeExporter:
      return "host";
    case ExporterDialect::Nvml:
      return {};
  }
  return {};
}

}  // namespace

const char* dialect_name(ExporterDialect d) {
  switch (d) {
    case ExporterDialect::Dcgm:
      return "dcgm-exporter";
    case ExporterDialect::NpuExporter:
      return "npu-exporter";
    case ExporterDialect::AmdExporter:
      return "amd device-metrics-exporter";
    case ExporterDialect::NodeExporter:
      return "node-exporter";
    case ExporterDialect::Nvml:
      return "nvml";
  }
  return "?";
}

TelemetryScrape read_telemetry(const std::vector<Sample>& samples) {
  TelemetryScrape out;
  std::set<std::string> unknown;
  std::vector<std::optional<double>> free_mib;  // DCGM reports used and free: total is their sum
  std::vector<std::optional<double>> host_total, host_available;
  // Devices by (dialect, name): a lookup per sample, not a scan (200,000 devices made it
  // quadratic and held a finished run for minutes).
  std::unordered_map<std::string, size_t> index;
  std::vector<uint64_t> seen;  // per device, the fields set so far (a bit per Field)
  auto reading = [&](const std::string& device, ExporterDialect d) -> std::optional<size_t> {
    std::string key = device;
    key += '\x1f';
    key += static_cast<char>('0' + static_cast<int>(d));
    if (const auto it = index.find(key); it != index.end()) return it->second;
    if (out.devices.size() >= kMaxDevicesRead) return std::nullopt;
    index.emplace(std::move(key), out.devices.size());
    seen.push_back(0);
    DeviceReading fresh;
    fresh.device = device;
    fresh.dialect = d;
    out.devices.push_back(std::move(fresh));
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
    if (std::find(out.dialects.begin(), out.dialects.end(), k->dialect) == out.dialects.end())
      out.dialects.push_back(k->dialect);
    const auto at = reading(device_of(s, k->dialect), k->dialect);
    if (!at) {
      ++out.devices_past_cap;
      continue;
    }
    const size_t i = *at;
    DeviceReading& r = out.devices[i];
    // A series the scrape already gave for this device (summed families aside): said, the last
    // value kept as before.
    const bool summed =
        k->field == Field::HostCpu || k->field == Field::HostRx || k->field == Field::HostTx;
    const uint64_t bit = uint64_t{1} << (static_cast<unsigned>(k->field) % 64);
    if (!summed && (seen[i] & bit) && out.duplicated++ == 0)
      out.duplicated_example = fmt::format("{} of {}", s.name, r.device);
    seen[i] |= bit;
    switch (k->field) {
      case Field::Power:
        r.power_w = s.value;
        break;
      case Field::EnergyMj:
        r.energy_j = s.value / 1000;
        break;
      case Field::Util:
        r.util_pct = s.value;
        break;
      case Field::MemUsedMib:
        r.mem_used_mib = s.value;
        break;
      case Field::MemFreeMib:
        free_mib[i] = s.value;
        break;
      case Field::MemTotalMib:
        r.mem_total_mib = s.value;
        break;
      case Field::Temperature:
        r.temperature_c = s.value;
        break;
      case Field::SmClock:
        r.sm_clock_mhz = s.value;
        break;
      case Field::GrActive:
        r.gr_engine_active_pct = s.value * 100;
        break;
      case Field::SmActive:
        r.sm_active_pct = s.value * 100;
        break;
      case Field::TensorActive:
        r.tensor_active_pct = s.value * 100;
        break;
      case Field::DramActive:
        r.dram_active_pct = s.value * 100;
        break;
      case Field::Health:
        r.healthy = s.value == 1;
        break;
      case Field::HostMemTotal:
        host_total[i] = s.value;
        break;
      case Field::HostMemAvailable:
        host_available[i] = s.value;
        break;
      case Field::HostCpu:
        r.cpu_total_s = r.cpu_total_s.value_or(0) + s.value;
        if (label(s, "mode") == "idle") r.cpu_idle_s = r.cpu_idle_s.value_or(0) + s.value;
        break;
      case Field::HostRx:
        if (label(s, "device") != "lo") r.net_rx_bytes = r.net_rx_bytes.value_or(0) + s.value;
        break;
      case Field::HostTx:
        if (label(s, "device") != "lo") r.net_tx_bytes = r.net_tx_bytes.value_or(0) + s.value;
        break;
    }
  }
  for (size_t i = 0; i < out.devices.size(); ++i) {
    DeviceReading& r = out.devices[i];
    if (!r.mem_total_mib && r.mem_used_mib && free_mib[i])
      r.mem_total_mib = *r.mem_used_mib + *free_mib[i];
    if (host_total[i]) r.mem_total_mib = *host_total[i] / (1024.0 * 1024.0);
    if (host_total[i] && host_available[i])
      r.mem_used_mib = (*host_total[i] - *host_available[i]) / (1024.0 * 1024.0);
  }
  out.not_recognised.assign(unknown.begin(), unknown.end());
  return out;
}

}  // namespace tokbench::probe
