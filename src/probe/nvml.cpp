#include "probe/nvml.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <mutex>
#include <stdexcept>

#include "common/dynamic_library.hpp"

namespace tokbench::probe {

namespace {

// NVML's C types and constants (nvml.h), as far as tokbench uses them.
using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;
struct nvmlUtilization_t {
  unsigned int gpu, memory;
};
struct nvmlMemory_t {
  unsigned long long total, free, used;
};
constexpr nvmlReturn_t kSuccess = 0;
constexpr int kTemperatureGpu = 0;  // NVML_TEMPERATURE_GPU
constexpr int kClockSm = 1;         // NVML_CLOCK_SM

struct NvmlApi {
  nvmlReturn_t (*init)();
  const char* (*error_string)(nvmlReturn_t);
  nvmlReturn_t (*count)(unsigned int*);
  nvmlReturn_t (*handle)(unsigned int, nvmlDevice_t*);
  nvmlReturn_t (*uuid)(nvmlDevice_t, char*, unsigned int);
  nvmlReturn_t (*energy)(nvmlDevice_t, unsigned long long*);  // mJ since the driver loaded
  nvmlReturn_t (*power)(nvmlDevice_t, unsigned int*);         // mW
  nvmlReturn_t (*utilization)(nvmlDevice_t, nvmlUtilization_t*);
  nvmlReturn_t (*memory)(nvmlDevice_t, nvmlMemory_t*);  // bytes
  nvmlReturn_t (*temperature)(nvmlDevice_t, int, unsigned int*);
  nvmlReturn_t (*clock)(nvmlDevice_t, int, unsigned int*);  // MHz
};

constexpr const char* kFix =
    "--telemetry nvml needs the NVIDIA driver's libnvidia-ml.so.1 on this host (or "
    "$TOKBENCH_NVML_LIBRARY naming it); "
    "on a host without NVIDIA GPUs, point --telemetry at an exporter's URL instead";

void bind(void* lib, auto& f, const char* name) {
  bind_symbol(lib, f, name, "libnvidia-ml.so.1", "tokbench needs NVML 5 or later");
}

// Loaded and initialised once per process; the error, if any, is kept and said every time.
const NvmlApi& api() {
  static std::once_flag once;
  static NvmlApi a{};
  static std::string error;
  std::call_once(once, [] {
    const char* env = std::getenv("TOKBENCH_NVML_LIBRARY");
    const std::string path = env && *env ? env : "libnvidia-ml.so.1";
    void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      error = fmt::format("cannot load {} ({}): {}", path, dlerror(), kFix);
      return;
    }
    try {
      bind(lib, a.init, "nvmlInit_v2");
      bind(lib, a.error_string, "nvmlErrorString");
      bind(lib, a.count, "nvmlDeviceGetCount_v2");
      bind(lib, a.handle, "nvmlDeviceGetHandleByIndex_v2");
      bind(lib, a.uuid, "nvmlDeviceGetUUID");
      bind(lib, a.energy, "nvmlDeviceGetTotalEnergyConsumption");
      bind(lib, a.power, "nvmlDeviceGetPowerUsage");
      bind(lib, a.utilization, "nvmlDeviceGetUtilizationRates");
      bind(lib, a.memory, "nvmlDeviceGetMemoryInfo");
      bind(lib, a.temperature, "nvmlDeviceGetTemperature");
      bind(lib, a.clock, "nvmlDeviceGetClockInfo");
    } catch (const std::exception& e) {
      error = e.what();
      return;
    }
    if (const nvmlReturn_t r = a.init(); r != kSuccess)
      error = fmt::format("nvmlInit failed: {}: {}", a.error_string(r), kFix);
  });
  if (!error.empty()) throw std::runtime_error(error);
  return a;
}

class NvmlReader : public TelemetryReader {
 public:
  NvmlReader() : a_(api()) {
    unsigned int n = 0;
    if (const nvmlReturn_t r = a_.count(&n); r != kSuccess)
      throw std::runtime_error(fmt::format("NVML cannot count the GPUs: {}", a_.error_string(r)));
    if (n == 0) throw std::runtime_error(fmt::format("NVML sees no GPU on this host: {}", kFix));
    for (unsigned int i = 0; i < n; ++i) {
      nvmlDevice_t h = nullptr;
      if (a_.handle(i, &h) != kSuccess) continue;
      char uuid[96] = {};
      std::string name = fmt::format("gpu {}", i);
      if (a_.uuid(h, uuid, sizeof uuid) == kSuccess) name += fmt::format(" ({})", uuid);
      devices_.emplace_back(h, name);
    }
  }
  std::string name() const override { return "nvml"; }
  TelemetryScrape read() override {
    TelemetryScrape s;
    s.dialects.push_back(ExporterDialect::Nvml);
    for (const auto& [h, device] : devices_) {
      DeviceReading r;
      r.device = device;
      r.dialect = ExporterDialect::Nvml;
      unsigned long long mj = 0;
      unsigned int u = 0;
      nvmlUtilization_t util{};
      nvmlMemory_t mem{};
      if (a_.energy(h, &mj) == kSuccess) r.energy_j = static_cast<double>(mj) / 1000;
      if (a_.power(h, &u) == kSuccess) r.power_w = u / 1000.0;
      if (a_.utilization(h, &util) == kSuccess) r.util_pct = util.gpu;
      if (a_.memory(h, &mem) == kSuccess) {
        r.mem_used_mib = static_cast<double>(mem.used) / (1024.0 * 1024.0);
        r.mem_total_mib = static_cast<double>(mem.total) / (1024.0 * 1024.0);
      }
      if (a_.temperature(h, kTemperatureGpu, &u) == kSuccess) r.temperature_c = u;
      if (a_.clock(h, kClockSm, &u) == kSuccess) r.sm_clock_mhz = u;
      s.devices.push_back(std::move(r));
    }
    return s;
  }

 private:
  const NvmlApi& a_;
  std::vector<std::pair<nvmlDevice_t, std::string>> devices_;
};

}  // namespace

std::unique_ptr<TelemetryReader> nvml_reader() { return std::make_unique<NvmlReader>(); }

std::string nvml_presence() {
  const char* env = std::getenv("TOKBENCH_NVML_LIBRARY");
  const std::string path = env && *env ? env : "libnvidia-ml.so.1";
  void* lib = dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL);
  if (!lib)
    return "no NVML library on this host (--telemetry nvml unavailable; exporters' URLs work)";
  dlclose(lib);
  return "NVML found (--telemetry nvml)";
}

}  // namespace tokbench::probe
