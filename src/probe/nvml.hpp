#pragma once
// probe/nvml: `--telemetry nvml` — this host's NVIDIA GPUs read through NVML, loaded at run time
// (dlopen of libnvidia-ml.so.1, or $TOKBENCH_NVML_LIBRARY: a path, for a container's own copy or
// the tests' fake library), so tokbench neither builds against nor needs the driver elsewhere.
// A handful of NVML's C functions, declared here with NVML's own signatures: the energy counter,
// power, utilisation, memory, temperature and SM clock of each GPU. A GPU that does not support a
// reading (NVML_ERROR_NOT_SUPPORTED) leaves it absent; a missing library or no GPU is an error
// naming the fix.
#include <memory>

#include "probe/telemetry_scraper.hpp"

namespace tokbench::probe {

/// The NVML reader; throws std::runtime_error (naming the library and the fix) when NVML cannot
/// be loaded or initialised, or when it sees no GPU.
std::unique_ptr<TelemetryReader> nvml_reader();

/// For --version: whether NVML's library can be loaded on this host (loaded lazily and
/// unloaded, never initialised: no GPU is touched).
std::string nvml_presence();

}  // namespace tokbench::probe
