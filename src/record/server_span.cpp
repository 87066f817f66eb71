#include "record/server_span.hpp"

#include <simdjson.h>

#include <fstream>

#include "common/json_fields.hpp"
#include "common/json_writer.hpp"

namespace tokbench::record {

using json::bool_or;
using json::int_or;
using json::number_or;
using json::string_or;

std::string to_json_line(const ServerSpansHeader& h) {
  JsonWriter w;
  w.begin_object()
      .field("header", true)
      .field("origin_unix_ns", h.origin_unix_ns)
      .field("client_share_budget", h.client_share_budget)
      .field("listen", h.listen)
      .field("exports", h.exports)
      .field("refused", h.refused)
      .field("dropped", h.dropped)
      .field("spans", h.spans)
      .field("last_error", h.last_error)
      .end_object();
  return w.take();
}

std::string to_json_line(const ServerSpan& s) {
  JsonWriter w;
  w.begin_object()
      .field("trace_id", s.trace_id)
      .field("span_id", s.span_id)
      .field("parent_span_id", s.parent_span_id)
      .field("name", s.name)
      .field("request_id", s.request_id)
      .field("start_unix_ns", s.start_unix_ns)
      .field("end_unix_ns", s.end_unix_ns);
  if (s.queue_s >= 0) w.field("queue_s", s.queue_s);
  if (s.prefill_s >= 0) w.field("prefill_s", s.prefill_s);
  if (s.decode_s >= 0) w.field("decode_s", s.decode_s);
  w.end_object();
  return w.take();
}

bool read_server_spans(const std::string& path, ServerSpansHeader& header,
                       std::unordered_map<std::string, ServerSpan>& by_trace, size_t max_spans,
                       std::string* why) {
  std::ifstream in(path);
  if (!in) {
    if (why) *why = "cannot read " + path;
    return false;
  }
  simdjson::dom::parser p;
  bool has_header = false;
  for (std::string line; std::getline(in, line);) {
    simdjson::dom::element o;
    if (p.parse(line).get(o) || !o.is_object()) continue;  // a cut last line: the rest holds
    if (bool_or(o, "header", false)) {
      header.origin_unix_ns = int_or(o, "origin_unix_ns", 0);
      header.client_share_budget = number_or(o, "client_share_budget", 10);
      header.listen = string_or(o, "listen");
      header.exports = int_or(o, "exports", 0);
      header.refused = int_or(o, "refused", 0);
      header.dropped = int_or(o, "dropped", 0);
      header.spans = int_or(o, "spans", 0);
      header.last_error = string_or(o, "last_error");
      has_header = true;
      continue;
    }
    if (by_trace.size() >= max_spans) break;
    ServerSpan s;
    s.trace_id = string_or(o, "trace_id");
    s.span_id = string_or(o, "span_id");
    s.parent_span_id = string_or(o, "parent_span_id");
    s.name = string_or(o, "name");
    s.request_id = string_or(o, "request_id");
    s.start_unix_ns = int_or(o, "start_unix_ns", 0);
    s.end_unix_ns = int_or(o, "end_unix_ns", 0);
    s.queue_s = number_or(o, "queue_s", -1);
    s.prefill_s = number_or(o, "prefill_s", -1);
    s.decode_s = number_or(o, "decode_s", -1);
    if (!s.trace_id.empty()) by_trace[s.trace_id] = std::move(s);
  }
  if (!has_header && why) *why = path + " has no header line: it is not a server_spans file";
  return has_header;
}

}  // namespace tokbench::record
