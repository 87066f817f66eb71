#include "otlp/protobuf.hpp"

#include <cstdint>
#include <cstring>
#include <map>

#include "otlp/wire.hpp"

namespace tokbench::otlp {

using namespace wire;  // NOLINT: the wire helpers are this file's vocabulary

// ---- writing --------------------------------------------------------------------------------

namespace {

// Event { time_unix_nano 1; name 2; attributes 3 }.
std::string event_message(const Event& e) {
  std::string o;
  fixed64_field(o, 1, e.time_unix_ns);
  bytes_field(o, 2, e.name);
  for (const auto& a : e.attributes) bytes_field(o, 3, key_value(a));
  return o;
}

// Span { trace_id 1; span_id 2; parent_span_id 4; name 5; kind 6; start 7; end 8; attributes 9;
// events 11; status 15 { message 2; code 3 } }.
std::string span_message(const Span& s) {
  std::string o;
  bytes_field(o, 1, from_hex(s.trace_id));
  bytes_field(o, 2, from_hex(s.span_id));
  if (!s.parent_span_id.empty()) bytes_field(o, 4, from_hex(s.parent_span_id));
  bytes_field(o, 5, s.name);
  varint_field(o, 6, static_cast<uint64_t>(s.kind));
  fixed64_field(o, 7, s.start_unix_ns);
  fixed64_field(o, 8, s.end_unix_ns);
  for (const auto& a : s.attributes) bytes_field(o, 9, key_value(a));
  for (const auto& e : s.events) bytes_field(o, 11, event_message(e));
  if (s.status != StatusCode::Unset) {
    std::string status;
    if (!s.status_message.empty()) bytes_field(status, 2, s.status_message);
    varint_field(status, 3, static_cast<uint64_t>(s.status));
    bytes_field(o, 15, status);
  }
  return o;
}

}  // namespace

std::string encode_traces(const std::vector<Span>& spans, std::string_view scope) {
  std::map<std::string_view, std::vector<const Span*>> by_service;
  for (const auto& s : spans) by_service[s.service].push_back(&s);
  std::string request;
  for (const auto& [service, members] : by_service) {
    std::string resource;  // Resource { attributes 1 }
    if (!service.empty())
      bytes_field(resource, 1, key_value({"service.name", std::string(service)}));
    std::string scoped;  // ScopeSpans { scope 1 (InstrumentationScope { name 1 }); spans 2 }
    std::string scope_message;
    bytes_field(scope_message, 1, scope);
    bytes_field(scoped, 1, scope_message);
    for (const Span* s : members) bytes_field(scoped, 2, span_message(*s));
    std::string resource_spans;  // ResourceSpans { resource 1; scope_spans 2 }
    bytes_field(resource_spans, 1, resource);
    bytes_field(resource_spans, 2, scoped);
    bytes_field(request, 1, resource_spans);  // ExportTraceServiceRequest { resource_spans 1 }
  }
  return request;
}

// ---- reading --------------------------------------------------------------------------------

namespace {

bool read_event(std::string_view b, Event& e, std::string* why) {
  Reader r(b);
  int field = 0, wire = 0;
  while (!r.done() && r.next(field, wire)) {
    uint64_t v = 0;
    std::string_view m;
    if (field == 1 && wire == kFixed64 && r.take_fixed64(v)) {
      e.time_unix_ns = v;
    } else if ((field == 2 || field == 3) && wire == kLen && r.take_bytes(m)) {
      if (field == 2) e.name = std::string(m);
      if (field == 3 && !read_key_value(m, e.attributes, why)) return false;
    } else if (r.error().empty()) {
      r.skip(wire);
    }
  }
  if (!r.error().empty() && why && why->empty()) *why = r.error();
  return r.error().empty();
}

bool read_status(std::string_view b, Span& s, std::string* why) {
  Reader r(b);
  int field = 0, wire = 0;
  while (!r.done() && r.next(field, wire)) {
    uint64_t v = 0;
    std::string_view m;
    if (field == 2 && wire == kLen && r.take_bytes(m))
      s.status_message = std::string(m);
    else if (field == 3 && wire == kVarint && r.take_varint(v))
      s.status = v <= 2 ? static_cast<StatusCode>(static_cast<int>(v)) : StatusCode::Unset;
    else if (r.error().empty())
      r.skip(wire);
  }
  if (!r.error().empty() && why && why->empty()) *why = r.error();
  return r.error().empty();
}

bool read_span(std::string_view b, Span& s, std::string* why) {
  Reader r(b);
  int field = 0, wire = 0;
  while (!r.done() && r.next(field, wire)) {
    uint64_t v = 0;
    std::string_view m;
    if (wire == kLen && (field == 1 || field == 2 || field == 4 || field == 5 || field == 9 ||
                         field == 11 || field == 15)) {
      if (!r.take_bytes(m)) break;
      if (field == 1) s.trace_id = to_hex(m);
      if (field == 2) s.span_id = to_hex(m);
      if (field == 4) s.parent_span_id = to_hex(m);
      if (field == 5) s.name = std::string(m);
      if (field == 9 && !read_key_value(m, s.attributes, why)) return false;
      // Events past kMaxEventsPerSpan are skipped: a span's memory is not the sender's to size.
      if (field == 11 && s.events.size() < kMaxEventsPerSpan &&
          !read_event(m, s.events.emplace_back(), why))
        return false;
      if (field == 15 && !read_status(m, s, why)) return false;
    } else if (field == 6 && wire == kVarint && r.take_varint(v)) {
      s.kind = static_cast<SpanKind>(static_cast<int>(v));
    } else if ((field == 7 || field == 8) && wire == kFixed64 && r.take_fixed64(v)) {
      (field == 7 ? s.start_unix_ns : s.end_unix_ns) = v;
    } else if (r.error().empty()) {
      r.skip(wire);
    }
  }
  if (!r.error().empty()) {
    if (why && why->empty()) *why = r.error();
    return false;
  }
  return true;
}

}  // namespace

bool decode_traces(std::string_view body, std::vector<Span>& out, size_t max_spans, size_t* dropped,
                   std::string* why) {
  return each_message(body, 1, why, [&](std::string_view resource_spans) {
    std::string service;  // ResourceSpans { resource 1; scope_spans 2 { spans 2 } }
    if (!read_resource_service(resource_spans, service, why)) return false;
    return each_message(resource_spans, 2, why, [&](std::string_view scope_spans) {
      return each_message(scope_spans, 2, why, [&](std::string_view m) {
        if (out.size() >= max_spans) {
          if (dropped) ++*dropped;
          return true;
        }
        Span s;
        if (!read_span(m, s, why)) return false;
        s.service = service;
        out.push_back(std::move(s));
        return true;
      });
    });
  });
}

}  // namespace tokbench::otlp
