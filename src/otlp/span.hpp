#pragma once
// otlp/span: one span as OTLP carries it (opentelemetry-proto's trace.v1.Span, the fields tokbench
// reads and writes): its trace and span ids (hex, as W3C traceparent spells them), its parent,
// name, kind, wall-clock start and end (ns since the Unix epoch: a span crosses hosts), its
// attributes, events and status. otlp/protobuf encodes and decodes ExportTraceServiceRequest bodies
// of these; otlp/receiver collects them, otlp/exporter sends them.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace tokbench::otlp {

/// An attribute's value: OTLP's AnyValue, less arrays, key-value lists and bytes (read as absent).
using Value = std::variant<std::string, bool, int64_t, double>;

/// The most attributes read of one span, event, resource or data point (the rest are skipped),
/// and the longest key or text value kept (cut at a UTF-8 boundary): what a sender's attributes
/// cost is not the sender's to size.
inline constexpr size_t kMaxAttributes = 128;
inline constexpr size_t kMaxAttributeBytes = 4096;

struct Attribute {
  std::string key;
  Value value;
};

/// OTLP's SpanKind.
enum class SpanKind : int { Unspecified = 0, Internal = 1, Server = 2, Client = 3 };
/// OTLP's Status.code: Unset for an operation that went as asked, Error with a message.
enum class StatusCode : int { Unset = 0, Ok = 1, Error = 2 };

/// A named instant inside a span (Span.Event), with attributes of its own.
struct Event {
  std::string name;
  uint64_t time_unix_ns = 0;
  std::vector<Attribute> attributes;
};

struct Span {
  std::string trace_id;        ///< 32 lower-case hex digits
  std::string span_id;         ///< 16 lower-case hex digits
  std::string parent_span_id;  ///< "" = a root span
  std::string name;
  SpanKind kind = SpanKind::Unspecified;
  uint64_t start_unix_ns = 0;
  uint64_t end_unix_ns = 0;
  std::vector<Attribute> attributes;
  std::vector<Event> events;
  StatusCode status = StatusCode::Unset;
  std::string status_message;
  std::string service;  ///< the resource's service.name ("" = none)

  /// The attribute `key` as a number (an int or a double), or nullopt.
  std::optional<double> number(std::string_view key) const;
  /// The attribute `key` as a string, or nullopt.
  std::optional<std::string> text(std::string_view key) const;
};

/// The trace id and parent span id of a W3C traceparent ("00-<32 hex>-<16 hex>-<2 hex>"), or
/// nullopt when it is not one (a wrong length, upper-case or non-hex digits, an all-zero id).
struct TraceParent {
  std::string trace_id, span_id;
};
std::optional<TraceParent> parse_traceparent(std::string_view header);

}  // namespace tokbench::otlp
