#include "record/server_span.hpp"

#include <simdjson.h>

#include <array>
#include <fstream>
#include <span>

#include "common/json_fields.hpp"
#include "common/json_writer.hpp"

namespace tokbench::record {

namespace {

using json::Field;

// Each struct's JSON line, written and read from one table (common/json_fields).
constexpr std::array<Field<ServerSpansHeader>, 8> kHeaderFields{{
    {"origin_unix_ns", &ServerSpansHeader::origin_unix_ns},
    {"client_share_budget", &ServerSpansHeader::client_share_budget},
    {"listen", &ServerSpansHeader::listen},
    {"exports", &ServerSpansHeader::exports},
    {"refused", &ServerSpansHeader::refused},
    {"dropped", &ServerSpansHeader::dropped},
    {"spans", &ServerSpansHeader::spans},
    {"last_error", &ServerSpansHeader::last_error},
}};
constexpr std::array<Field<ServerSpan>, 10> kSpanFields{{
    {"trace_id", &ServerSpan::trace_id},
    {"span_id", &ServerSpan::span_id},
    {"parent_span_id", &ServerSpan::parent_span_id},
    {"name", &ServerSpan::name},
    {"request_id", &ServerSpan::request_id},
    {"start_unix_ns", &ServerSpan::start_unix_ns},
    {"end_unix_ns", &ServerSpan::end_unix_ns},
    {"queue_s", &ServerSpan::queue_s},  // -1: the span did not say
    {"prefill_s", &ServerSpan::prefill_s},
    {"decode_s", &ServerSpan::decode_s},
}};

}  // namespace

std::string to_json_line(const ServerSpansHeader& h) {
  JsonWriter w;
  w.begin_object().field("header", true);
  json::write_fields(w, h, std::span<const Field<ServerSpansHeader>>(kHeaderFields));
  w.end_object();
  return w.take();
}

std::string to_json_line(const ServerSpan& s) {
  JsonWriter w;
  json::write_object(w, s, std::span<const Field<ServerSpan>>(kSpanFields));
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
    if (json::bool_or(o, "header", false)) {
      json::read_fields(o, header, std::span<const Field<ServerSpansHeader>>(kHeaderFields));
      has_header = true;
      continue;
    }
    if (by_trace.size() >= max_spans) break;
    ServerSpan s;
    json::read_fields(o, s, std::span<const Field<ServerSpan>>(kSpanFields));
    if (!s.trace_id.empty()) by_trace[s.trace_id] = std::move(s);
  }
  if (!has_header && why) *why = path + " has no header line: it is not a server_spans file";
  return has_header;
}

}  // namespace tokbench::record
