#pragma once
// probe/telemetry: what an accelerator or host exporter's /metrics says about each device, read by
// metric names that are known, never guessed: NVIDIA's dcgm-exporter (DCGM_FI_DEV_*, per `gpu` /
// `UUID` / `Hostname`), Ascend's npu-exporter (npu_chip_info_*, per chip `id`), AMD's
// device-metrics-exporter (gpu_package_power / gpu_power_usage, gpu_gfx_activity, temperatures,
// per `gpu_id`) and node-exporter (host memory). Every metric family of a scrape that none of these
// names is listed as not recognised. Units are converted to W, J, %, MiB and °C here.
#include <optional>
#include <string>
#include <vector>

#include "probe/prometheus.hpp"

namespace tokbench::probe {

enum class ExporterDialect { Dcgm, NpuExporter, AmdExporter, NodeExporter, Nvml };
const char* dialect_name(ExporterDialect d);

struct DeviceReading {
  std::string device;  ///< e.g. "gpu 0 (GPU-5fd4..., host-a)", "npu 3", "host"
  ExporterDialect dialect = ExporterDialect::Dcgm;
  std::optional<double> power_w, energy_j, util_pct, mem_used_mib, mem_total_mib, temperature_c,
      sm_clock_mhz;
  /// DCGM's profiling fields when the exporter has them (DCGM_FI_PROF_*), as % of the time.
  std::optional<double> gr_engine_active_pct, sm_active_pct, tensor_active_pct, dram_active_pct;
  /// node-exporter's counters, summed over CPUs (idle mode, every mode) and over network devices
  /// but `lo`: their rates between scrapes are the host's CPU use and traffic
  /// (report/telemetry_view).
  std::optional<double> cpu_idle_s, cpu_total_s, net_rx_bytes, net_tx_bytes;
  std::optional<bool> healthy;  ///< npu-exporter's health status
};

/// Devices read from one scrape at most: an exporter of 200,000 devices must not hold a run (the
/// ones past it are counted, not read).
inline constexpr size_t kMaxDevicesRead = 4096;

struct TelemetryScrape {
  std::vector<ExporterDialect> dialects;  ///< recognised in this scrape, in first-seen order
  std::vector<DeviceReading> devices;     ///< one per device, in first-seen order
  int64_t devices_past_cap = 0;           ///< samples of devices past kMaxDevicesRead, not read
  /// A series the scrape holds twice for one device (the last value is kept): how many, and the
  /// first one's name and device.
  int64_t duplicated = 0;
  std::string duplicated_example;
  std::vector<std::string>
      not_recognised;  ///< metric families no dialect names (exporters' own go_*, ... included)
};

/// Reads one scrape's samples.
TelemetryScrape read_telemetry(const std::vector<Sample>& samples);

}  // namespace tokbench::probe
