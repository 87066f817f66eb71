#pragma once
// otlp/protobuf: OTLP's binary encoding of a trace export (opentelemetry-proto's
// collector.trace.v1.ExportTraceServiceRequest: resource spans → scope spans → spans), written and
// read by hand over protobuf's wire format. Why by hand: Debian ships libprotobuf but not the OTLP
// message definitions, and copying them in is third-party source in the repository; the handful of
// fields a span needs are a page of wire-format code, and unknown fields are skipped as protobuf
// requires. This is what vLLM's exporter sends (OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf).
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "otlp/span.hpp"

namespace tokbench::otlp {

/// One ExportTraceServiceRequest holding `spans`, grouped by their `service` (each a resource with
/// its service.name), under the instrumentation scope `scope`.
std::string encode_traces(const std::vector<Span>& spans, std::string_view scope);

/// The most events read of one span (the rest are skipped).
inline constexpr size_t kMaxEventsPerSpan = 64;

/// Appends the spans of an ExportTraceServiceRequest body to `out`, at most `max_spans` in all
/// (the rest are counted in `*dropped`). False, with why, when the body is not one (truncated,
/// a length past its end, a group wire type); the spans read before the fault are kept.
bool decode_traces(std::string_view body, std::vector<Span>& out, size_t max_spans, size_t* dropped,
                   std::string* why);

}  // namespace tokbench::otlp
