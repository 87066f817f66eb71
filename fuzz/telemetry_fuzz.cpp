// Fuzz target: probe/telemetry — an accelerator or host exporter's /metrics body, any bytes: the
// devices it names (by known names only) or an error naming the line.
#include <cstdint>
#include <stdexcept>
#include <string_view>

#include "probe/telemetry.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const auto samples =
        tokbench::probe::parse_text(std::string_view(reinterpret_cast<const char*>(data), size));
    (void)tokbench::probe::read_telemetry(samples);
  } catch (const std::runtime_error&) {
  }
  return 0;
}
