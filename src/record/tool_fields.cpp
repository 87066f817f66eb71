// record/tool_fields: the details line's "tools" and "structured" objects — the calls a model made,
// as they came, and what they were found worth (core/tools' rules; measure/recorder decides them).
#include <stdexcept>
#include <string>

#include "record/record_io.hpp"

namespace tokbench::record {

void write_tool_fields(JsonWriter& w, const RequestRecord& r) {
  if (!r.tools_offered && r.tool_calls.empty()) return;
  w.key("tools").begin_object();
  w.key("calls").begin_array();
  for (const core::ToolCall& c : r.tool_calls)
    w.begin_object().field("name", c.name).field("arguments", c.arguments).end_object();
  w.end_array();
  w.field("check", core::tool_check_name(r.tool_check));
  if (!r.tool_why.empty()) w.field("why", r.tool_why);
  if (r.tool_match != AnswerMark::None) w.field("matched", r.tool_match == AnswerMark::Right);
  if (r.tool_calls_cut) w.field("cut", true);
  w.end_object();
}

void read_tool_fields(simdjson::dom::element tools, RequestRecord& r) {
  if (tools.is_null()) return;
  if (!tools.is_object()) throw std::runtime_error("\"tools\" must be an object");
  r.tools_offered = true;
  simdjson::dom::array calls;
  if (tools["calls"].get_array().get(calls))
    throw std::runtime_error("\"tools\" needs a \"calls\" array");
  for (auto c : calls) {
    std::string_view name, arguments;
    if (c["name"].get_string().get(name) || c["arguments"].get_string().get(arguments))
      throw std::runtime_error("\"tools.calls\" lists a call without a name and arguments string");
    if (r.tool_calls.size() < kMaxToolCalls)
      r.tool_calls.push_back({std::string(name), std::string(arguments)});
  }
  std::string_view check, why;
  if (!tools["check"].get_string().get(check)) r.tool_check = core::tool_check_named(check);
  if (!tools["why"].get_string().get(why)) r.tool_why = std::string(why);
  bool matched = false;
  if (!tools["matched"].get_bool().get(matched))
    r.tool_match = matched ? AnswerMark::Right : AnswerMark::Wrong;
  bool cut = false;
  if (!tools["cut"].get_bool().get(cut)) r.tool_calls_cut = cut;
}

void write_structured_fields(JsonWriter& w, const RequestRecord& r) {
  if (r.schema_check == core::ToolCheck::None) return;
  w.key("structured").begin_object().field("check", core::tool_check_name(r.schema_check));
  if (!r.schema_why.empty()) w.field("why", r.schema_why);
  w.end_object();
}

void read_structured_fields(simdjson::dom::element structured, RequestRecord& r) {
  std::string_view check, why;
  if (structured.is_null()) return;
  if (structured["check"].get_string().get(check))
    throw std::runtime_error("\"structured\" needs a \"check\" string");
  r.schema_check = core::tool_check_named(check);
  if (!structured["why"].get_string().get(why)) r.schema_why = std::string(why);
}

}  // namespace tokbench::record
