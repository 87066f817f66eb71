#pragma once
// report/telemetry_view: a run folder's telemetry.jsonl (probe/telemetry_scraper) read in one
// pass, memory flat in the run's length: per device, each series' statistics over the measured
// phase (and the stable stage's window), its energy over the phase (metrics/energy: the counter,
// else power by trapezoids) and, with --telemetry-idle-s, its idle power; per source, what was
// recognised and every gap; for the page, each device's power and utilisation in at most
// kPageBins bins on the page's time axis. Then the energy figures: J per output token, tokens per
// J, J per request, goodput per W, and cost, each only where the samples cover the phase.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/stats.hpp"
#include "metrics/energy.hpp"

namespace tokbench::report {

/// A time window on the run's clock.
struct Window {
  int64_t start_ns = 0, end_ns = 0;
};

/// The series a device reading may carry, as telemetry.jsonl names them, with their units.
struct SeriesName {
  const char* key;   ///< "power_w"
  const char* unit;  ///< "W"
};
inline constexpr SeriesName kSeries[] = {{"power_w", "W"},
                                         {"util_pct", "%"},
                                         {"mem_used_mib", "MiB"},
                                         {"mem_total_mib", "MiB"},
                                         {"temperature_c", "°C"},
                                         {"sm_clock_mhz", "MHz"},
                                         {"gr_engine_active_pct", "%"},
                                         {"sm_active_pct", "%"},
                                         {"tensor_active_pct", "%"},
                                         {"dram_active_pct", "%"},
                                         {"cpu_util_pct", "%"},
                                         {"net_rx_mb_s", "MB/s"},
                                         {"net_tx_mb_s", "MB/s"}};
/// The series that are rates of a counter between two scrapes (node-exporter's), not readings.
inline constexpr size_t kFirstRateSeries = 10;
inline constexpr size_t kSeriesCount = std::size(kSeries);

/// --slice-s: the slices' grid (the same as the client's slices, metrics/slices).
struct SliceGrid {
  int64_t t0_ns = 0, width_ns = 0, count = 0;
};

/// One device over one slice: its samples' mean power and utilisation, and its energy (the
/// phase's rules applied to the slice's window).
struct DeviceSlice {
  double start_s = 0, end_s = 0;            ///< from the first measured send
  std::optional<double> power_w, util_pct;  ///< means of the samples inside the slice
  int64_t samples = 0;
  metrics::Energy energy;
};

struct DeviceTelemetry {
  std::string source;   ///< the exporter's URL (secrets removed) or "nvml"
  std::string device;   ///< "gpu 0 (GPU-5fd4..., host-a)", "npu 3", "host"
  std::string dialect;  ///< "dcgm-exporter", "npu-exporter", ...
  std::optional<metrics::Summary>
      series[kSeriesCount];  ///< over the measured phase; absent: never read
  std::optional<metrics::Summary> stable_series[kSeriesCount];  ///< over the stable stage's window
  metrics::Energy energy;                                       ///< over the measured phase
  std::optional<metrics::Energy> stable_energy;
  std::optional<double> idle_w;  ///< --telemetry-idle-s: mean power while nothing was sent
  int64_t unhealthy = 0;  ///< scrapes in the phase whose health status was not OK (npu-exporter)
  std::vector<DeviceSlice> slices;  ///< --slice-s (the first kMaxSliceDevices devices)
  bool accelerator() const { return dialect != "node-exporter"; }
};

struct TelemetrySource {
  std::string name;
  std::vector<std::string> dialects;        ///< recognised ("" none: the note says so)
  std::vector<std::string> not_recognised;  ///< metric families no dialect names (the first 100)
  int64_t not_recognised_total = 0;
  int64_t scrapes = 0, errors = 0;
  int64_t duplicated = 0;          ///< series given twice for one device in a scrape (summed)
  std::string duplicated_example;  ///< the first: "DCGM_FI_DEV_POWER_USAGE of gpu 0 (...)"
  /// The most readings one scrape left unread: devices past the scraper's caps (probe/telemetry).
  int64_t devices_dropped = 0;
  std::string first_error;                       ///< "" = none
  double first_error_s = 0, last_answer_s = -1;  ///< on the page's time axis (-1: never answered)
};

/// One device's page series: [bin centre s, mean power W or null, mean utilisation % or null].
struct PageSeries {
  std::string label;  ///< "gpu 0 (...)"
  std::vector<std::tuple<double, std::optional<double>, std::optional<double>>> points;
};

inline constexpr size_t kPageBins = 600;
inline constexpr size_t kMaxSliceDevices = 64;

struct TelemetryView {
  int64_t interval_ms = 0;
  std::vector<TelemetrySource> sources;
  std::vector<DeviceTelemetry> devices;
  std::optional<Window> idle;
  std::vector<PageSeries> page;
  std::vector<std::string> notes;  ///< gaps, exporters that went away, devices dropped, torn lines
};

/// Reads `file` (a missing file: nullopt). `phase` is the measured phase (first measured send to
/// last end), `stable` the stable stage's window, `t0_ns` the page's time 0 and `span_ns` its
/// length.
std::optional<TelemetryView> read_telemetry_view(const std::filesystem::path& file, Window phase,
                                                 std::optional<Window> stable, int64_t t0_ns,
                                                 int64_t span_ns,
                                                 std::optional<SliceGrid> slices = std::nullopt);

/// The figures the energy makes with the client's counts, and the cost.
struct EnergyFigures {
  bool known = false;
  std::string why;  ///< why not known
  std::string
      method;  ///< the methods used, e.g. "energy counter" ("mixed: ..." when devices differ)
  int64_t devices = 0;  ///< accelerators counted
  /// Where `devices` came from when no exporter read them ("--server-devices"); "" = telemetry.
  std::string devices_from;
  double joules = 0, seconds = 0, mean_power_w = 0;
  std::optional<double> j_per_output_token, output_tokens_per_j, j_per_request, goodput_per_w;
  std::optional<double> idle_w, joules_above_idle;  ///< --telemetry-idle-s
};

struct Pricing {
  double per_device_hour = 0;  ///< $ per accelerator-hour (0 = not given)
  double per_kwh = 0;          ///< $ per kWh (0 = not given)
  bool any() const { return per_device_hour > 0 || per_kwh > 0; }
};

struct Cost {
  bool known = false;
  std::string why;
  double dollars = 0;
  std::optional<double> per_m_input, per_m_output,
      per_m_total;          ///< $ per million tokens at this load
  std::string basis;        ///< "2 device(s) × 3.611 s × $2/device-hour + ..."
  std::string assumptions;  ///< the basis and how it is charged to the tokens
};

/// Energy figures over the measured phase (`seconds` long) from the accelerators of `v`.
EnergyFigures energy_figures(const TelemetryView& v, double seconds, double output_tokens,
                             double input_tokens, int64_t requests,
                             std::optional<double> goodput_rps);
/// The cost of the phase: devices × hours × per_device_hour + kWh × per_kwh.
Cost cost_of(const EnergyFigures& e, const Pricing& p, double input_tokens, double output_tokens);

/// result.json's "telemetry" object (and the page's).
std::string telemetry_json(const TelemetryView& v, const EnergyFigures& e,
                           const std::optional<Cost>& cost);
/// <ds>_telemetry.csv: one row per device and series (phase, stable stage), with its energy.
std::string telemetry_csv(const TelemetryView& v);
/// The console's lines: devices, power and utilisation, energy per token, cost, and the gaps.
std::vector<std::string> telemetry_lines(const TelemetryView& v, const EnergyFigures& e,
                                         const std::optional<Cost>& cost);
/// The console's cost line: "cost: $0.000123 for the phase = $1.2345/M output tokens, ... (basis)".
std::string cost_line(const Cost& cost);

}  // namespace tokbench::report
