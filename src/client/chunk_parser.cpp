#include "client/chunk_parser.hpp"

#include <algorithm>

namespace tokbench::client {

using record::ChunkKind;

namespace {

template <class Obj>
int64_t int_or(Obj obj, std::string_view key) {
  int64_t v = -1;
  if (obj[key].get_int64().get(v)) return -1;
  return v;
}

std::string_view text_of(simdjson::dom::element obj, std::string_view key) {
  std::string_view s;
  if (obj[key].get_string().get(s)) return {};
  return s;
}

}  // namespace

ChunkParser::ChunkParser() { padded_.reserve(4096); }

bool ChunkParser::parse(std::string_view json, ChunkInfo& out, std::string* why) {
  out = ChunkInfo{};
  padded_.assign(json);
  padded_.resize(json.size() + simdjson::SIMDJSON_PADDING, '\0');
  simdjson::dom::element doc;
  if (auto err = parser_.parse(padded_.data(), json.size(), false).get(doc)) {
    if (why) *why = simdjson::error_message(err);
    return false;
  }
  simdjson::dom::object root;
  if (doc.get_object().get(root)) {
    if (why) *why = "expected a JSON object";
    return false;
  }
  out.id = text_of(doc, "id");
  simdjson::dom::element err_obj;
  if (!doc["error"].get(err_obj) && !err_obj.is_null()) {
    out.error = err_obj.is_object() ? text_of(err_obj, "message") : std::string_view("error");
    if (out.error.empty()) out.error = "error";
  }
  simdjson::dom::object usage;
  if (!doc["usage"].get_object().get(usage)) {
    out.prompt_tokens = int_or(usage, "prompt_tokens");
    out.completion_tokens = int_or(usage, "completion_tokens");
    simdjson::dom::object details;
    if (!usage["prompt_tokens_details"].get_object().get(details))
      out.cached_tokens = int_or(details, "cached_tokens");
  }

  simdjson::dom::array choices;
  if (doc["choices"].get_array().get(choices) || choices.size() == 0) {
    if (out.completion_tokens >= 0) out.kind = ChunkKind::Usage;
    return true;
  }
  simdjson::dom::element choice = choices.at(0).value_unsafe();
  // n > 1: a stream interleaves one event per choice (its `index`); a body lists them all.
  bool first = true;
  for (auto c : choices) {
    int64_t index = 0;
    if (!c["index"].get_int64().get(index) && index >= 0 && index < (int64_t{1} << 20)) {
      out.choices = std::max(out.choices, index + 1);
      if (first) out.choice = index;
    }
    first = false;
  }
  out.choices = std::max<int64_t>(out.choices, static_cast<int64_t>(choices.size()));
  out.finish_reason = text_of(choice, "finish_reason");
  // Chat streams carry `delta`, chat bodies `message`, completions `text`.
  simdjson::dom::element msg;
  std::string_view content, reasoning, role;
  if (!choice["delta"].get(msg) || !choice["message"].get(msg)) {
    content = text_of(msg, "content");
    reasoning = text_of(msg, "reasoning_content");
    if (reasoning.empty()) reasoning = text_of(msg, "reasoning");
    role = text_of(msg, "role");
    // Tool calls: a name on a call's first delta, then argument text; both are generated output.
    simdjson::dom::array calls;
    if (!msg["tool_calls"].get_array().get(calls)) {
      bool first = true;
      for (auto call : calls) {
        simdjson::dom::element fn;
        if (call["function"].get(fn) || !fn.is_object()) continue;
        const std::string_view args = text_of(fn, "arguments");
        out.tool_bytes += static_cast<int64_t>(text_of(fn, "name").size() + args.size());
        if (first) out.tool_args = args;
        first = false;
      }
    }
  } else {
    content = text_of(choice, "text");
  }
  out.text_bytes = static_cast<int64_t>(content.size() + reasoning.size()) + out.tool_bytes;
  out.content = content;
  out.reasoning = reasoning;
  if (!content.empty()) {
    out.kind = ChunkKind::Content;
  } else if (!reasoning.empty()) {
    out.kind = ChunkKind::Reasoning;
  } else if (out.tool_bytes > 0) {
    out.kind = ChunkKind::ToolCall;
  } else if (!out.finish_reason.empty()) {
    out.kind = ChunkKind::Finish;
  } else if (!role.empty()) {
    out.kind = ChunkKind::Role;
  }
  return true;
}

}  // namespace tokbench::client
