// client/api/anthropic_messages: Anthropic's Messages API (/v1/messages), as Anthropic, vLLM and
// gateways serve it — x-api-key and anthropic-version, a body whose max_tokens is required, typed
// stream events that end with message_stop (no [DONE]), usage in every answer.
#include <algorithm>

#include "client/api.hpp"
#include "client/api/body_parts.hpp"
#include "client/api/json_read.hpp"
#include "net/http_get.hpp"

namespace tokbench::client {

namespace {

using namespace api_detail;
using record::ChunkKind;

// An image as Anthropic takes it: a base64 source from a data URL, else the URL itself.
void anthropic_image(JsonWriter& w, const std::string& url) {
  w.begin_object().field("type", "image").key("source").begin_object();
  const size_t semi = url.find(";base64,");
  if (url.starts_with("data:") && semi != std::string::npos) {
    w.field("type", "base64")
        .field("media_type", url.substr(5, semi - 5))
        .field("data", url.substr(semi + 8));
  } else {
    w.field("type", "url").field("url", url);
  }
  w.end_object().end_object();
}

// The tools in Anthropic's shape (input_schema, which it requires), and the choice in its words:
// required is "any", a name is {"type": "tool", "name": ...}.
void write_anthropic_tools(JsonWriter& w, const BodySettings& s, const dataset::RequestSpec& spec) {
  if (const core::ToolSet* tools = s.tools_for(spec); tools && !s.overridden("tools")) {
    w.key("tools").begin_array();
    for (const core::Tool& t : tools->tools) {
      w.begin_object().field("name", t.name);
      if (!t.description.empty()) w.field("description", t.description);
      w.field_raw("input_schema", t.parameters.empty() ? R"({"type":"object"})" : t.parameters);
      w.end_object();
    }
    w.end_array();
  }
  const std::string& c = s.tool_choice;
  if (c.empty() || s.overridden("tool_choice")) return;
  w.key("tool_choice").begin_object();
  if (c == "auto" || c == "none")
    w.field("type", c);
  else if (c == "required")
    w.field("type", "any");
  else
    w.field("type", "tool").field("name", c);
  w.end_object();
}

class AnthropicMessages : public ApiAdapter {
 public:
  std::string_view name() const override { return "messages"; }
  std::string_view title() const override { return "Anthropic Messages"; }
  std::string_view path() const override { return "/v1/messages"; }
  ApiCaps caps() const override {
    ApiCaps c;
    c.conversation = c.images = c.requires_cap = c.tools = true;
    c.finish_reasons = "end_turn,max_tokens,stop_sequence,tool_use,pause_turn,refusal";
    c.cap_reason = "max_tokens";
    return c;
  }

  // The key goes as x-api-key, on set-up calls too, and every call names the API version.
  std::vector<std::string> credential_headers(const std::vector<std::string>& given,
                                              const std::string& key) const override {
    std::vector<std::string> h;
    if (!key.empty() && !net::has_header(given, "x-api-key")) h.push_back("x-api-key: " + key);
    if (!net::has_header(given, "anthropic-version"))
      h.emplace_back("anthropic-version: 2023-06-01");
    return h;
  }

  // max_tokens is required here (validation refuses --max-tokens 0); usage comes with every
  // stream, so nothing asks for it. ignore_eos and min_tokens are the extensions vLLM-style
  // servers take, sent only when asked, as on every endpoint.
  void write_body(JsonWriter& w, const BodySettings& s,
                  const dataset::RequestSpec& spec) const override {
    if (!s.overridden("model")) w.field("model", spec.model.empty() ? s.model : spec.model);
    write_conversation(w, "messages", s, spec, "text", anthropic_image);
    write_anthropic_tools(w, s, spec);
    const int64_t max_tokens = s.cap_for(spec);
    if (max_tokens > 0 && !s.overridden("max_tokens")) w.field("max_tokens", max_tokens);
    if (s.min_tokens && !s.overridden("min_tokens")) w.field("min_tokens", *s.min_tokens);
    if (s.ignore_eos && !s.overridden("ignore_eos")) w.field("ignore_eos", true);
    if (s.temperature && !s.overridden("temperature")) w.field("temperature", *s.temperature);
    if (!s.overridden("stream")) w.field("stream", s.stream);
  }

  // A stream is typed events: message_start (id, input usage), content_block_start / _delta /
  // _stop (text_delta, thinking_delta, input_json_delta for a tool_use block), message_delta
  // (stop_reason and the output token count so far), message_stop (the end), ping and error. A
  // non-streaming body is one "message" with its content blocks. Input tokens: Anthropic counts
  // cached and cache-written tokens apart from input_tokens, so the prompt is their sum.
  void parse(simdjson::dom::element doc, ChunkInfo& out, StreamMemory& mem) const override {
    take_error(doc, out);
    const std::string_view type = text_of(doc, "type");
    int64_t index = int_or(doc, "index");  // a stream's content block: a call is its block
    if (index < 0 || index >= (int64_t{1} << 20)) index = 0;
    auto take_usage = [&](simdjson::dom::element msg, bool output) {
      simdjson::dom::object usage;
      if (msg["usage"].get_object().get(usage)) return;
      const int64_t input = int_or(usage, "input_tokens");
      const int64_t read = int_or(usage, "cache_read_input_tokens");
      const int64_t written = int_or(usage, "cache_creation_input_tokens");
      if (input >= 0)
        out.prompt_tokens = input + std::max<int64_t>(0, read) + std::max<int64_t>(0, written);
      if (read >= 0) out.cached_tokens = read;
      if (output) out.completion_tokens = int_or(usage, "output_tokens");
    };
    auto take_block = [&](simdjson::dom::element block) {
      const std::string_view kind = text_of(block, "type");
      if (kind == "text" || kind == "text_delta") {
        out.content = text_of(block, "text");
      } else if (kind == "thinking" || kind == "thinking_delta") {
        out.reasoning = text_of(block, "thinking");
      } else if (kind == "tool_use") {
        out.tool_bytes += static_cast<int64_t>(text_of(block, "name").size());
        // A body's block carries its input whole (an object); a stream's comes in deltas.
        simdjson::dom::element input;
        std::string_view args;
        if (type == "message" && !block["input"].get(input))
          args = input.is_object()
                     ? std::string_view(mem.owned.emplace_back(simdjson::minify(input)))
                     : string_or_empty(input);  // not an object: its text
        add_tool_delta(out, {index, text_of(block, "name"), args});
      } else if (kind == "input_json_delta") {
        out.tool_args = text_of(block, "partial_json");
        out.tool_bytes += static_cast<int64_t>(out.tool_args.size());
        add_tool_delta(out, {index, {}, out.tool_args});
      }
    };
    out.choices = 1;
    if (type == "message_start") {
      simdjson::dom::element msg;
      if (!doc["message"].get(msg) && msg.is_object()) {
        out.id = text_of(msg, "id");
        take_usage(msg, false);  // its output_tokens is a placeholder (1), not a count of text sent
      }
      out.kind = ChunkKind::Role;
      return;
    }
    if (type == "content_block_start" || type == "content_block_delta") {
      simdjson::dom::element block;
      if (!doc[type == "content_block_start" ? "content_block" : "delta"].get(block) &&
          block.is_object())
        take_block(block);
    } else if (type == "message_delta") {
      simdjson::dom::element delta;
      if (!doc["delta"].get(delta) && delta.is_object())
        out.finish_reason = text_of(delta, "stop_reason");
      take_usage(doc, true);  // output_tokens here is cumulative: the answer's count so far
    } else if (type == "message_stop") {
      out.end = true;
    } else if (type == "message") {  // a non-streaming body
      out.id = text_of(doc, "id");
      out.finish_reason = text_of(doc, "stop_reason");
      take_usage(doc, true);
      simdjson::dom::array blocks;
      if (!doc["content"].get_array().get(blocks)) {
        int64_t bytes = 0;
        index = -1;
        for (auto block :
             blocks) {  // every block's text counts; the first text and thinking are kept
          ++index;
          const std::string_view content = out.content, reasoning = out.reasoning;
          out.content = out.reasoning = {};
          take_block(block);
          bytes += static_cast<int64_t>(out.content.size() + out.reasoning.size());
          if (!content.empty()) out.content = content;
          if (!reasoning.empty()) out.reasoning = reasoning;
        }
        out.text_bytes = bytes - static_cast<int64_t>(out.content.size() + out.reasoning.size());
      }
    }
    out.kind = kind_of(out, false);
  }
  bool done_sentinel() const override { return false; }
  std::string_view end_of_stream() const override { return "a message_stop event"; }

  void audit(simdjson::dom::object o, std::vector<AuditFinding>& out) const override {
    audit_sampling(o, {.other_cap = "max_completion_tokens"},
                   out);  // Anthropic's streams always carry usage
  }
};

}  // namespace

const ApiAdapter& anthropic_messages_api() {
  static const AnthropicMessages api;
  return api;
}

}  // namespace tokbench::client
