// Fuzz target: probe/prometheus — a /metrics body, any bytes: samples or an error naming the line.
#include <cstdint>
#include <stdexcept>
#include <string_view>

#include "probe/prometheus.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const auto samples =
        tokbench::probe::parse_text(std::string_view(reinterpret_cast<const char*>(data), size));
    tokbench::probe::Snapshot a{0, samples}, b{1, samples};
    (void)tokbench::probe::histogram_delta(a, b, "vllm:time_to_first_token_seconds");
  } catch (const std::runtime_error&) {
  }
  return 0;
}
