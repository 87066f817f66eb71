#include "mock/mock_apis.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include "common/json_writer.hpp"

namespace tokbench::mock {

namespace {

int64_t int_or(simdjson::dom::object o, std::string_view k, int64_t fallback) {
  int64_t v = fallback;
  if (o[k].get_int64().get(v)) return fallback;
  return v;
}

bool flag(simdjson::dom::object o, std::string_view k) {
  bool v = false;
  return !o[k].get_bool().get(v) && v;
}

void anthropic_usage(JsonWriter& w, const AnthropicUsage& u) {
  w.key("usage").begin_object().field("input_tokens", u.prompt - std::max<int64_t>(0, u.cached));
  if (u.cached >= 0) w.field("cache_read_input_tokens", u.cached).field("cache_creation_input_tokens", 0);
  w.field("output_tokens", u.output).end_object();
}

}  // namespace

std::optional<CompletionRequest> parse_messages_request(std::string_view body, std::string* error) {
  simdjson::dom::parser parser;
  simdjson::dom::object o;
  if (auto err = parser.parse(body.data(), body.size(), true).get_object().get(o)) {
    *error = fmt::format("request body is not a JSON object ({})", simdjson::error_message(err));
    return std::nullopt;
  }
  CompletionRequest r;
  r.api = Api::Messages;
  r.chat = true;
  std::string_view model;
  if (o["model"].get_string().get(model)) {
    *error = "model: Field required";
    return std::nullopt;
  }
  r.model = std::string(model);
  if (o["max_tokens"].get_int64().get(r.max_tokens) || r.max_tokens < 1) {
    *error = "max_tokens: Field required (an integer >= 1)";
    return std::nullopt;
  }
  r.stream = flag(o, "stream");
  r.include_usage = true;  // Anthropic's answers always carry usage
  r.min_tokens = int_or(o, "min_tokens", -1);
  r.ignore_eos = flag(o, "ignore_eos");
  std::vector<std::pair<std::string, std::string>> turns;
  simdjson::dom::element system;
  if (!o["system"].get(system)) {  // a string or a list of text blocks
    std::string text;
    if (!count_content(system, r.prompt_tokens, text)) {
      *error = "system: a string or a list of text blocks";
      return std::nullopt;
    }
    turns.emplace_back("system", std::move(text));
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
      *error = "messages: each role must be \"user\" or \"assistant\" (a system prompt goes in \"system\")";
      return std::nullopt;
    }
    simdjson::dom::element content;
    std::string text;
    int64_t images = 0;
    if (m["content"].get(content) || !count_content(content, r.prompt_tokens, text, &images)) {
      *error = "messages: each content must be a string or a list of content blocks";
      return std::nullopt;
    }
    if (images < 0) {
      *error = "messages: an image block needs a base64 source (the simulator fetches nothing)";
      return std::nullopt;
    }
    r.images += images;
    turns.emplace_back(std::string(role), std::move(text));
    r.prompt_tokens += 1;
  }
  r.rendered = render_chat(turns);
  return r;
}

std::string_view anthropic_stop_reason(std::string_view finish_reason) {
  return finish_reason == "length" ? "max_tokens" : "end_turn";
}

std::string anthropic_message_start(std::string_view id, std::string_view model, const AnthropicUsage& usage) {
  JsonWriter w;
  w.begin_object().field("type", "message_start").key("message").begin_object();
  w.field("id", id).field("type", "message").field("role", "assistant").key("content").begin_array().end_array();
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
  w.key("delta").begin_object().field("type", "text_delta").field("text", text).end_object().end_object();
  return w.take();
}

std::string anthropic_block_stop() { return R"({"type":"content_block_stop","index":0})"; }

std::string anthropic_message_delta(std::string_view stop_reason, const AnthropicUsage& usage) {
  JsonWriter w;
  w.begin_object().field("type", "message_delta");
  w.key("delta").begin_object().field("stop_reason", stop_reason).key("stop_sequence").null().end_object();
  w.key("usage").begin_object().field("output_tokens", usage.output).end_object();
  w.end_object();
  return w.take();
}

std::string anthropic_message_stop() { return R"({"type":"message_stop"})"; }

std::string anthropic_body(std::string_view id, std::string_view model, std::string_view text, std::string_view stop_reason,
                           const std::optional<AnthropicUsage>& usage) {
  JsonWriter w;
  w.begin_object().field("id", id).field("type", "message").field("role", "assistant").field("model", model);
  w.key("content").begin_array().begin_object().field("type", "text").field("text", text).end_object().end_array();
  w.field("stop_reason", stop_reason).key("stop_sequence").null();
  if (usage) anthropic_usage(w, *usage);
  w.end_object();
  return w.take();
}

std::string anthropic_error(std::string_view message, std::string_view type) {
  JsonWriter w;
  w.begin_object().field("type", "error").key("error").begin_object().field("type", type).field("message", message);
  w.end_object().end_object();
  return w.take();
}

std::optional<CompletionRequest> parse_generate_request(std::string_view body, std::string_view base_model,
                                                        std::string* error) {
  simdjson::dom::parser parser;
  simdjson::dom::object o;
  if (auto err = parser.parse(body.data(), body.size(), true).get_object().get(o)) {
    *error = fmt::format("request body is not a JSON object ({})", simdjson::error_message(err));
    return std::nullopt;
  }
  CompletionRequest r;
  r.api = Api::Generate;
  r.chat = false;
  r.include_usage = true;  // meta_info in every event
  r.stream = flag(o, "stream");
  std::string_view lora;
  r.model = !o["lora_path"].get_string().get(lora) && !lora.empty() ? std::string(lora) : std::string(base_model);
  simdjson::dom::element text;
  simdjson::dom::array ids;
  if (!o["text"].get(text) && text.is_string()) {
    if (!count_content(text, r.prompt_tokens, r.rendered)) return std::nullopt;
  } else if (!o["input_ids"].get_array().get(ids) && ids.size() > 0) {
    r.prompt_tokens = static_cast<int64_t>(ids.size());
    for (auto id : ids) r.rendered += fmt::format("<{}>", id.is_int64() ? id.get_int64().value_unsafe() : 0);
  } else {
    *error = "Either text or input_ids should be provided.";
    return std::nullopt;
  }
  simdjson::dom::object sp;
  r.max_tokens = 128;  // SGLang's default max_new_tokens
  if (!o["sampling_params"].get_object().get(sp)) {
    r.max_tokens = int_or(sp, "max_new_tokens", 128);
    r.min_tokens = int_or(sp, "min_new_tokens", -1);
    r.ignore_eos = flag(sp, "ignore_eos");
    r.n = int_or(sp, "n", 1);
    if (r.max_tokens < 0 || r.n < 1 || r.n > kMaxChoices) {
      *error = fmt::format("sampling_params: max_new_tokens must be >= 0 and n from 1 to {}", kMaxChoices);
      return std::nullopt;
    }
  }
  return r;
}

std::string generate_chunk(const GenerateState& st) {
  JsonWriter w;
  w.begin_object().field("text", st.text).key("meta_info").begin_object().field("id", st.id);
  w.key("finish_reason");
  if (st.finish.empty()) {
    w.null();
  } else if (st.finish == "length") {
    w.begin_object().field("type", "length").field("length", st.completion_tokens).end_object();
  } else {
    w.begin_object().field("type", "stop").field("matched", 2).end_object();
  }
  w.field("prompt_tokens", st.prompt_tokens).field("completion_tokens", st.completion_tokens);
  w.field("cached_tokens", st.cached_tokens).end_object();
  w.field("index", st.index).end_object();
  return w.take();
}

}  // namespace tokbench::mock
