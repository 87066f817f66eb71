// mockapi/routes/anthropic_messages: Anthropic's Messages API (/v1/messages) as Anthropic shapes it
// — a body whose max_tokens is required, typed events (message_start, content_block_start,
// content_block_delta per write, content_block_stop, message_delta with the stop reason and output
// count, message_stop), usage in every answer, errors as {"type": "error", "error": {...}}.
#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>

#include "common/json_writer.hpp"
#include "mockapi/route.hpp"

namespace tokbench::mock {

namespace {

// Token counts as Anthropic reports them: input_tokens excludes the tokens read from the cache,
// which are cache_read_input_tokens (sent only when the prefix cache is on: cached >= 0).
struct AnthropicUsage {
  int64_t prompt = 0;
  int64_t cached = -1;
  int64_t output = 0;
};

void anthropic_usage(JsonWriter& w, const AnthropicUsage& u) {
  w.key("usage").begin_object().field("input_tokens", u.prompt - std::max<int64_t>(0, u.cached));
  if (u.cached >= 0)
    w.field("cache_read_input_tokens", u.cached).field("cache_creation_input_tokens", 0);
  w.field("output_tokens", u.output).end_object();
}

// The tools a Messages body offers ({"name", "input_schema"}) and its tool_choice in Anthropic's
// words: "any" calls the first tool, {"type": "tool", "name"} that one, "none" never calls.
bool anthropic_tools(simdjson::dom::object o, CompletionRequest& r, std::string* error) {
  simdjson::dom::array tools;
  if (!o["tools"].get_array().get(tools))
    for (auto t : tools) {
      std::string_view name;
      simdjson::dom::element schema;
      if (t["name"].get_string().get(name) || t["input_schema"].get(schema) ||
          !schema.is_object()) {
        *error = "tools: each tool needs a \"name\" and an \"input_schema\" object";
        return false;
      }
      r.tools.push_back({std::string(name), {}, simdjson::minify(schema)});
    }
  std::string_view type, named;
  if (o["tool_choice"]["type"].get_string().get(type)) return true;
  if (r.tools.empty() && type != "none" && type != "auto") {
    *error = "tool_choice: requires tools";
    return false;
  }
  r.tool_choice_none = type == "none";
  if (type == "any") r.tool_name = r.tools.front().name;
  if (type == "tool") {
    if (o["tool_choice"]["name"].get_string().get(named) ||
        std::none_of(r.tools.begin(), r.tools.end(),
                     [&](const core::Tool& t) { return t.name == named; })) {
      *error = "tool_choice: names no tool of tools";
      return false;
    }
    r.tool_name = std::string(named);
  }
  return true;
}

// Parses a Messages API body: model, max_tokens (required, as Anthropic requires it), messages
// (string content or text and base64 image blocks), an optional system prompt, stream,
// temperature; ignore_eos and min_tokens as vLLM-style servers take them. The conversation is
// rendered with the simulator's chat template.
std::optional<CompletionRequest> parse_messages_request(const std::string& body,
                                                        std::string* error) {
  simdjson::dom::parser parser;
  simdjson::dom::object o;
  if (!body_object(parser, body, o, error)) return std::nullopt;
  CompletionRequest r;
  r.chat = true;
  if (!required_model(o, r, error)) return std::nullopt;
  if (o["max_tokens"].get_int64().get(r.max_tokens) || r.max_tokens < 1) {
    *error = "max_tokens: Field required (an integer >= 1)";
    return std::nullopt;
  }
  r.stream = bool_field(o, "stream");
  r.include_usage = true;  // Anthropic's answers always carry usage
  r.min_tokens = int_field(o, "min_tokens", -1);
  r.ignore_eos = bool_field(o, "ignore_eos");
  r.rendered.reserve(body.size() +
                     64);  // never much longer than the JSON it came in: one allocation
  simdjson::dom::element system;
  if (!o["system"].get(system)) {  // a string or a list of text blocks
    open_turn(r.rendered, "system");
    if (!count_content(system, r.prompt_tokens, r.rendered)) {
      *error = "system: a string or a list of text blocks";
      return std::nullopt;
    }
    close_turn(r.rendered);
    r.prompt_tokens += 1;
  }
  simdjson::dom::array messages;
  if (o["messages"].get_array().get(messages) || messages.size() == 0) {
    *error = "messages: a non-empty list is required";
    return std::nullopt;
  }
  for (auto m : messages) {
    std::string_view role;
    if (m["role"].get_string().get(role) || (role != "user" && role != "assistant")) {
      *error =
          "messages: each role must be \"user\" or \"assistant\" (a system prompt goes in "
          "\"system\")";
      return std::nullopt;
    }
    if (!add_turn(
            r, role, m["content"],
            {"messages: each content must be a string or a list of content blocks",
             "messages: an image block needs a base64 source (the simulator fetches nothing)"},
            error))
      return std::nullopt;
  }
  if (!anthropic_tools(o, r, error)) return std::nullopt;
  open_answer(r.rendered);
  return r;
}

// A call's end is "tool_use"; the cap's is "max_tokens".
std::string_view anthropic_stop_reason(const Answer& a) {
  if (a.finish == "length") return "max_tokens";
  return a.cr.tool_name.empty() ? "end_turn" : "tool_use";
}

// The arguments as a tool_use block's input: the object when they are one, else their text
// (a drawn bad call: a body has no other place for what is not JSON).
void tool_input(JsonWriter& w, std::string_view args) {
  if (core::check_schema(args, "") == core::ToolCheck::Valid)
    w.field_raw("input", args);
  else
    w.field("input", args);
}

std::string anthropic_message_start(std::string_view id, std::string_view model,
                                    const AnthropicUsage& usage) {
  JsonWriter w;
  w.begin_object().field("type", "message_start").key("message").begin_object();
  w.field("id", id)
      .field("type", "message")
      .field("role", "assistant")
      .key("content")
      .begin_array()
      .end_array();
  w.field("model", model).key("stop_reason").null().key("stop_sequence").null();
  AnthropicUsage start = usage;
  start.output = 1;  // as Anthropic's: a placeholder, not a count of text sent
  anthropic_usage(w, start);
  w.end_object().end_object();
  return w.take();
}

std::string anthropic_block_start() {
  return R"({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}})";
}

std::string anthropic_text_delta(std::string_view text) {
  JsonWriter w;
  w.begin_object().field("type", "content_block_delta").field("index", 0);
  w.key("delta")
      .begin_object()
      .field("type", "text_delta")
      .field("text", text)
      .end_object()
      .end_object();
  return w.take();
}

std::string anthropic_block_stop() { return R"({"type":"content_block_stop","index":0})"; }

std::string anthropic_message_delta(std::string_view stop_reason, const AnthropicUsage& usage) {
  JsonWriter w;
  w.begin_object().field("type", "message_delta");
  w.key("delta")
      .begin_object()
      .field("stop_reason", stop_reason)
      .key("stop_sequence")
      .null()
      .end_object();
  w.key("usage").begin_object().field("output_tokens", usage.output).end_object();
  w.end_object();
  return w.take();
}

std::string anthropic_message_stop() { return R"({"type":"message_stop"})"; }

std::string anthropic_body(std::string_view id, std::string_view model, std::string_view text,
                           std::string_view stop_reason,
                           const std::optional<AnthropicUsage>& usage) {
  JsonWriter w;
  w.begin_object()
      .field("id", id)
      .field("type", "message")
      .field("role", "assistant")
      .field("model", model);
  w.key("content")
      .begin_array()
      .begin_object()
      .field("type", "text")
      .field("text", text)
      .end_object()
      .end_array();
  w.field("stop_reason", stop_reason).key("stop_sequence").null();
  if (usage) anthropic_usage(w, *usage);
  w.end_object();
  return w.take();
}

std::string anthropic_error(std::string_view message, std::string_view type) {
  JsonWriter w;
  w.begin_object()
      .field("type", "error")
      .key("error")
      .begin_object()
      .field("type", type)
      .field("message", message);
  w.end_object().end_object();
  return w.take();
}

class AnthropicMessagesRoute : public MockRoute {
 public:
  std::string_view path() const override { return "/v1/messages"; }
  std::optional<CompletionRequest> parse(const std::string& body, std::string_view,
                                         std::string* why) const override {
    return parse_messages_request(body, why);
  }
  std::string refusal(const std::string& why) const override {
    return anthropic_error(why, "invalid_request_error");
  }
  std::string_view id_prefix() const override { return "msg_"; }

  // A call (mockapi/mock_tools) is one tool_use block whose input streams as input_json_delta.
  void begin(const Answer& a, Events& ev) const override {
    ev.add(anthropic_message_start(a.id, a.cr.model, usage(a)), 'R', 0, "message_start");
    if (a.cr.tool_name.empty()) {
      ev.add(anthropic_block_start(), 'R', 0, "content_block_start");
      return;
    }
    JsonWriter w;
    w.begin_object().field("type", "content_block_start").field("index", 0);
    w.key("content_block").begin_object().field("type", "tool_use");
    w.field("id", fmt::format("toolu_{}", a.id)).field("name", a.cr.tool_name);
    w.key("input").begin_object().end_object().end_object().end_object();
    ev.add(w.take(), 'R', 0, "content_block_start");
  }
  void piece(const Answer& a, std::string_view piece, int tokens, bool, Events& ev) const override {
    if (piece.empty()) return;
    if (a.cr.tool_name.empty()) {
      ev.add(anthropic_text_delta(piece), 'C', tokens, "content_block_delta");
      return;
    }
    JsonWriter w;
    w.begin_object().field("type", "content_block_delta").field("index", 0);
    w.key("delta").begin_object().field("type", "input_json_delta");
    w.field("partial_json", piece).end_object().end_object();
    ev.add(w.take(), 'C', tokens, "content_block_delta");
  }
  void end(const Answer& a, bool end_marker, Events& ev) const override {
    ev.add(anthropic_block_stop(), 'F', 0, "content_block_stop");
    ev.add(anthropic_message_delta(anthropic_stop_reason(a), usage(a)), 'U', 0, "message_delta");
    if (end_marker) ev.add(anthropic_message_stop(), 'D', 0, "message_stop");
  }
  std::string body(const Answer& a) const override {
    std::optional<AnthropicUsage> u;
    if (a.usage) u = usage(a);
    if (a.cr.tool_name.empty())
      return anthropic_body(a.id, a.cr.model, a.text, anthropic_stop_reason(a), u);
    JsonWriter w;  // one tool_use block
    w.begin_object().field("id", a.id).field("type", "message").field("role", "assistant");
    w.field("model", a.cr.model).key("content").begin_array().begin_object();
    w.field("type", "tool_use").field("id", fmt::format("toolu_{}", a.id));
    w.field("name", a.cr.tool_name);
    tool_input(w, a.text);
    w.end_object().end_array();
    w.field("stop_reason", anthropic_stop_reason(a)).key("stop_sequence").null();
    if (u) anthropic_usage(w, *u);
    w.end_object();
    return w.take();
  }

 private:
  static AnthropicUsage usage(const Answer& a) {
    return {a.cr.prompt_tokens, a.cached, a.produced};
  }
};

}  // namespace

const MockRoute& anthropic_messages_route() {
  static const AnthropicMessagesRoute route;
  return route;
}

}  // namespace tokbench::mock
