// mock/routes/anthropic_messages: Anthropic's Messages API (/v1/messages) as Anthropic shapes it —
// a body whose max_tokens is required, typed events (message_start, content_block_start,
// content_block_delta per write, content_block_stop, message_delta with the stop reason and output
// count, message_stop), usage in every answer, errors as {"type": "error", "error": {...}}.
#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>

#include "common/json_writer.hpp"
#include "mock/route.hpp"

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
  open_answer(r.rendered);
  return r;
}

std::string_view anthropic_stop_reason(std::string_view finish_reason) {
  return finish_reason == "length" ? "max_tokens" : "end_turn";
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

  void begin(const Answer& a, Events& ev) const override {
    ev.add(anthropic_message_start(a.id, a.cr.model, usage(a)), 'R', 0, "message_start");
    ev.add(anthropic_block_start(), 'R', 0, "content_block_start");
  }
  void piece(const Answer& a, std::string_view piece, int tokens, bool, Events& ev) const override {
    if (!piece.empty()) ev.add(anthropic_text_delta(piece), 'C', tokens, "content_block_delta");
  }
  void end(const Answer& a, bool end_marker, Events& ev) const override {
    ev.add(anthropic_block_stop(), 'F', 0, "content_block_stop");
    ev.add(anthropic_message_delta(anthropic_stop_reason(a.finish), usage(a)), 'U', 0,
           "message_delta");
    if (end_marker) ev.add(anthropic_message_stop(), 'D', 0, "message_stop");
  }
  std::string body(const Answer& a) const override {
    std::optional<AnthropicUsage> u;
    if (a.usage) u = usage(a);
    return anthropic_body(a.id, a.cr.model, a.text, anthropic_stop_reason(a.finish), u);
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
