// client/api/openai_responses: OpenAI's Responses API (/v1/responses), as OpenAI, vLLM and
// gateways serve it. In: `input` (the prompt, or a conversation with input_text and input_image
// parts), max_output_tokens. Out, streamed: typed events — response.created, output items and
// content parts, response.output_text.delta (and reasoning and function-call argument deltas),
// then one terminal event, response.completed, response.incomplete or response.failed, which
// carries the usage; there is no data: [DONE]. Not streamed: one "response" object.
#include <algorithm>

#include "client/api.hpp"
#include "client/api/body_parts.hpp"
#include "client/api/json_read.hpp"

namespace tokbench::client {

namespace {

using namespace api_detail;
using record::ChunkKind;

// The response object's usage, id and how it ended: status "completed", or the reason it is
// incomplete ("max_output_tokens"), or "failed" with its error.
void read_response(simdjson::dom::element resp, ChunkInfo& out) {
  out.id = text_of(resp, "id");
  simdjson::dom::object usage;
  if (!resp["usage"].get_object().get(usage)) {
    out.prompt_tokens = int_or(usage, "input_tokens");
    out.completion_tokens = int_or(usage, "output_tokens");
    simdjson::dom::object details;
    if (!usage["input_tokens_details"].get_object().get(details))
      out.cached_tokens = int_or(details, "cached_tokens");
  }
  const std::string_view status = text_of(resp, "status");
  std::string_view reason;
  simdjson::dom::element details;
  if (!resp["incomplete_details"].get(details) && details.is_object())
    reason = text_of(details, "reason");
  out.finish_reason = status == "incomplete" && !reason.empty() ? reason : status;
  if (status == "in_progress" || status == "queued") out.finish_reason = {};
  take_error(resp, out);
  if (status == "failed" && out.error.empty()) out.error = "the response failed";
}

// A non-streaming body's output items: messages' output_text (and refusal), reasoning text and
// summaries, function calls' names and arguments. Every item's text counts; the first message
// text and the first reasoning text are kept.
void read_output(simdjson::dom::element resp, ChunkInfo& out) {
  simdjson::dom::array items;
  if (resp["output"].get_array().get(items)) return;
  int64_t bytes = 0;
  auto parts = [&](simdjson::dom::element item, std::string_view key, std::string_view& keep) {
    simdjson::dom::array list;
    if (item[key].get_array().get(list)) return;
    for (auto part : list) {
      std::string_view t = text_of(part, "text");
      if (t.empty()) t = text_of(part, "refusal");
      bytes += static_cast<int64_t>(t.size());
      if (keep.empty()) keep = t;
    }
  };
  int64_t position = 0;  // a call is its place among the output items, as a stream's output_index
  for (auto item : items) {
    const std::string_view type = text_of(item, "type");
    if (type == "message") {
      parts(item, "content", out.content);
    } else if (type == "reasoning") {
      parts(item, "content", out.reasoning);
      parts(item, "summary", out.reasoning);
    } else if (type == "function_call") {
      out.tool_bytes +=
          static_cast<int64_t>(text_of(item, "name").size() + text_of(item, "arguments").size());
      if (out.tool_args.empty()) out.tool_args = text_of(item, "arguments");
      add_tool_delta(out, {position, text_of(item, "name"), text_of(item, "arguments")});
    }
    ++position;
  }
  out.text_bytes = bytes - static_cast<int64_t>(out.content.size() + out.reasoning.size());
}

// Which output item an event speaks of (its function call's place); 0 when it does not say.
int64_t output_index(simdjson::dom::element doc) {
  const int64_t i = int_or(doc, "output_index");
  return i >= 0 && i < (int64_t{1} << 20) ? i : 0;
}

// The tools in the Responses shape (the function's fields at the top), and the choice.
void write_response_tools(JsonWriter& w, const BodySettings& s, const dataset::RequestSpec& spec) {
  if (const core::ToolSet* tools = s.tools_for(spec); tools && !s.overridden("tools")) {
    w.key("tools").begin_array();
    for (const core::Tool& t : tools->tools) {
      w.begin_object().field("type", "function").field("name", t.name);
      if (!t.description.empty()) w.field("description", t.description);
      if (!t.parameters.empty()) w.field_raw("parameters", t.parameters);
      w.end_object();
    }
    w.end_array();
  }
  const std::string& c = s.tool_choice;
  if (c.empty() || s.overridden("tool_choice")) return;
  if (c == "auto" || c == "required" || c == "none")
    w.field("tool_choice", c);
  else
    w.key("tool_choice").begin_object().field("type", "function").field("name", c).end_object();
}

class OpenAiResponses : public ApiAdapter {
 public:
  std::string_view name() const override { return "responses"; }
  std::string_view title() const override { return "OpenAI Responses"; }
  std::string_view path() const override { return "/v1/responses"; }
  std::string_view path_tail() const override { return "/responses"; }
  ApiCaps caps() const override {
    ApiCaps c;
    c.conversation = c.images = c.tools = c.json_schema = true;
    // finish_reason is the response's status, or its incomplete_details.reason.
    c.finish_reasons = "completed,incomplete,max_output_tokens,content_filter,failed,cancelled";
    c.cap_reason = "max_output_tokens";
    return c;
  }

  // Usage comes with every answer (the terminal event's response), so nothing asks for it;
  // ignore_eos and min_tokens are the extensions vLLM-style servers take, sent only when asked.
  void write_body(JsonWriter& w, const BodySettings& s,
                  const dataset::RequestSpec& spec) const override {
    if (!s.overridden("model")) w.field("model", spec.model.empty() ? s.model : spec.model);
    if (const core::Conversation* c = spec.conversation();
        !c || (c->messages_json.empty() && c->image_urls.empty())) {
      if (!s.overridden("input")) w.field("input", spec.prompt);  // the plain form: a string
    } else {
      write_conversation(
          w, "input", s, spec, "input_text", [](JsonWriter& iw, const std::string& url) {
            iw.begin_object().field("type", "input_image").field("image_url", url).end_object();
          });
    }
    write_response_tools(w, s, spec);
    if (s.json_schema && !s.overridden("text")) {  // Responses: text.format
      w.key("text").begin_object().key("format").begin_object().field("type", "json_schema");
      w.field("name", "tokbench").field_raw("schema", *s.json_schema).field("strict", true);
      w.end_object().end_object();
    }
    const int64_t max_tokens = s.cap_for(spec);
    if (max_tokens > 0 && !s.overridden("max_output_tokens"))
      w.field("max_output_tokens", max_tokens);
    if (s.min_tokens && !s.overridden("min_tokens")) w.field("min_tokens", *s.min_tokens);
    if (s.ignore_eos && !s.overridden("ignore_eos")) w.field("ignore_eos", true);
    if (s.temperature && !s.overridden("temperature")) w.field("temperature", *s.temperature);
    if (!s.overridden("stream")) w.field("stream", s.stream);
  }

  void parse(simdjson::dom::element doc, ChunkInfo& out, StreamMemory&) const override {
    out.choices = 1;
    const std::string_view type = text_of(doc, "type");
    if (type.empty()) {  // a non-streaming body: the response object itself
      read_response(doc, out);
      read_output(doc, out);
      out.kind = kind_of(out, false);
      return;
    }
    if (type == "response.output_text.delta" || type == "response.refusal.delta") {
      out.content = text_of(doc, "delta");
    } else if (type == "response.reasoning_text.delta" ||
               type == "response.reasoning_summary_text.delta") {
      out.reasoning = text_of(doc, "delta");
    } else if (type == "response.function_call_arguments.delta") {
      out.tool_args = text_of(doc, "delta");
      out.tool_bytes = static_cast<int64_t>(out.tool_args.size());
      add_tool_delta(out, {output_index(doc), {}, out.tool_args});
    } else if (type == "response.output_item.added") {  // a function call's first sign: its name
      simdjson::dom::element item;
      if (!doc["item"].get(item) && text_of(item, "type") == "function_call") {
        out.tool_bytes = static_cast<int64_t>(text_of(item, "name").size());
        add_tool_delta(out, {output_index(doc), text_of(item, "name"), text_of(item, "arguments")});
      }
    } else if (type == "response.created") {
      simdjson::dom::element resp;
      if (!doc["response"].get(resp)) out.id = text_of(resp, "id");
      out.kind = ChunkKind::Role;
      return;
    } else if (type == "response.completed" || type == "response.incomplete" ||
               type == "response.failed") {
      simdjson::dom::element resp;
      if (!doc["response"].get(resp) && resp.is_object()) read_response(resp, out);
      if (type == "response.failed" && out.error.empty()) out.error = "the response failed";
      out.end = true;  // the terminal event: nothing follows, and its usage is the answer's
    } else if (type == "error") {  // {"type": "error", "code", "message", "param"}
      out.error = text_of(doc, "message");
      if (out.error.empty()) out.error = "error";
    }
    // Everything else (in_progress, content_part.*, *.done repeating the text) says nothing new.
    out.kind = kind_of(out, false);
  }
  bool done_sentinel() const override { return false; }
  std::string_view end_of_stream() const override { return "a response.completed event"; }

  void audit(simdjson::dom::object o, std::vector<AuditFinding>& out) const override {
    audit_sampling(o, {.cap = "max_output_tokens", .other_cap = "max_tokens"},
                   out);  // usage always comes
  }
};

}  // namespace

const ApiAdapter& openai_responses_api() {
  static const OpenAiResponses api;
  return api;
}

}  // namespace tokbench::client
