// Fuzz target: otlp/ — an OTLP export body, any bytes, read as a trace export and as a metric
// export (what --otlp-receive and a collector stand-in read from the network): spans and points
// within their caps, or false with a reason; never a crash, a hang or memory past the caps.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "otlp/metric.hpp"
#include "otlp/protobuf.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  std::vector<tokbench::otlp::Span> spans;
  std::vector<tokbench::otlp::Metric> metrics;
  size_t dropped = 0;
  std::string why;
  (void)tokbench::otlp::decode_traces(body, spans, 64, &dropped, &why);
  if (spans.size() > 64) __builtin_trap();  // the cap holds whatever the body says
  for (const auto& s : spans) {
    if (s.events.size() > tokbench::otlp::kMaxEventsPerSpan) __builtin_trap();
    (void)s.number("gen_ai.latency.time_in_queue");
  }
  (void)tokbench::otlp::decode_metrics(body, metrics, 64, &dropped, &why);
  size_t points = 0;
  for (const auto& m : metrics) {
    points += m.points.size();
    for (const auto& p : m.points)
      if (p.bounds.size() > tokbench::otlp::kMaxBounds) __builtin_trap();
  }
  if (points > 64) __builtin_trap();
  return 0;
}
