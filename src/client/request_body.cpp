#include "client/request_body.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <stdexcept>

#include "common/json_writer.hpp"

namespace tokbench::client {

Wire wire_of(Endpoint e) {
  return e == Endpoint::Messages ? Wire::Anthropic : e == Endpoint::Generate ? Wire::SglangGenerate : Wire::OpenAI;
}

namespace {

using Overridden = std::function<bool(std::string_view)>;

// An image as Anthropic takes it: a base64 source from a data URL, else the URL itself.
void anthropic_image(JsonWriter& w, const std::string& url) {
  w.begin_object().field("type", "image").key("source").begin_object();
  const size_t semi = url.find(";base64,");
  if (url.starts_with("data:") && semi != std::string::npos) {
    w.field("type", "base64").field("media_type", url.substr(5, semi - 5)).field("data", url.substr(semi + 8));
  } else {
    w.field("type", "url").field("url", url);
  }
  w.end_object().end_object();
}

// Anthropic's Messages API: max_tokens is required there (validation refuses --max-tokens 0);
// usage comes with every stream, so nothing asks for it. ignore_eos and min_tokens are the
// extensions vLLM-style servers take, sent only when asked, as on every endpoint.
std::string messages_body(const BodySettings& s, const dataset::RequestSpec& spec, const Overridden& overridden) {
  JsonWriter w;
  w.begin_object();
  if (!overridden("model")) w.field("model", spec.model.empty() ? s.model : spec.model);
  if (overridden("messages")) {
  } else if (!spec.messages_json.empty()) {
    w.field_raw("messages", spec.messages_json);  // a dataset's conversation, as written
  } else if (!spec.image_urls.empty()) {
    w.key("messages").begin_array().begin_object().field("role", "user").key("content").begin_array();
    w.begin_object().field("type", "text").field("text", spec.prompt).end_object();
    for (const auto& url : spec.image_urls) anthropic_image(w, url);
    w.end_array().end_object().end_array();
  } else {
    w.key("messages").begin_array().begin_object().field("role", "user").field("content", spec.prompt).end_object().end_array();
  }
  const int64_t max_tokens = spec.max_tokens > 0 ? spec.max_tokens : s.max_tokens;
  if (max_tokens > 0 && !overridden("max_tokens")) w.field("max_tokens", max_tokens);
  if (s.min_tokens && !overridden("min_tokens")) w.field("min_tokens", *s.min_tokens);
  if (s.ignore_eos && !overridden("ignore_eos")) w.field("ignore_eos", true);
  if (s.temperature && !overridden("temperature")) w.field("temperature", *s.temperature);
  if (!overridden("stream")) w.field("stream", s.stream);
  for (const auto& [k, v] : s.extra) w.field_raw(k, v);
  w.end_object();
  return w.take();
}

// SGLang's native /generate: the text and sampling_params (max_new_tokens, min_new_tokens,
// ignore_eos, temperature); a LoRA adapter is named by lora_path. There is no model field.
// --compat sglang reproduces bench_serving's native payload: temperature 0.0 and ignore_eos.
std::string generate_body(const BodySettings& s, const dataset::RequestSpec& spec, const Overridden& overridden) {
  JsonWriter w;
  w.begin_object();
  if (!overridden("text")) w.field("text", spec.prompt);
  if (!overridden("sampling_params")) {
    w.key("sampling_params").begin_object();
    const int64_t max_tokens = spec.max_tokens > 0 ? spec.max_tokens : s.max_tokens;
    if (max_tokens > 0) w.field("max_new_tokens", max_tokens);
    if (s.min_tokens) w.field("min_new_tokens", *s.min_tokens);
    if (s.ignore_eos || s.flavor == Flavor::Sglang) w.field("ignore_eos", true);
    std::optional<double> temperature = s.temperature;
    if (!temperature && s.flavor == Flavor::Sglang) temperature = 0.0;
    if (temperature) w.field("temperature", *temperature);
    w.end_object();
  }
  if (!overridden("stream")) w.field("stream", s.stream);
  if (!spec.model.empty() && spec.model != s.model && !overridden("lora_path")) w.field("lora_path", spec.model);
  for (const auto& [k, v] : s.extra) w.field_raw(k, v);
  w.end_object();
  return w.take();
}

}  // namespace

std::vector<std::pair<std::string, std::string>> parse_extra_body(const std::string& json) {
  simdjson::dom::parser parser;
  simdjson::dom::object obj;
  if (auto err = parser.parse(json).get_object().get(obj)) {
    throw std::runtime_error(fmt::format(
        "--extra-body: bad value '{}' ({}; expected a JSON object, e.g. '{{\"top_p\": 0.9}}')", json,
        simdjson::error_message(err)));
  }
  std::vector<std::pair<std::string, std::string>> out;
  for (auto field : obj) out.emplace_back(std::string(field.key), simdjson::minify(field.value));
  return out;
}

core::PlannedRequest plan_request(const BodySettings& s, const dataset::RequestSpec& spec, bool keep_prompt) {
  core::PlannedRequest p;
  p.body = build_body(s, spec);
  p.facts.expected_prompt_tokens = spec.expected_input_tokens;
  if (s.endpoint == Endpoint::Embeddings) {  // nothing is generated: no cap, no ignore_eos
    if (keep_prompt) p.facts.prompt_text = spec.prompt;
    if (spec.model != s.model) p.facts.model = spec.model;
    return p;
  }
  const int64_t cap = spec.max_tokens > 0 ? spec.max_tokens : s.max_tokens;
  if (cap > 0) p.facts.requested_max_tokens = cap;
  p.facts.ignore_eos_sent = s.ignore_eos || (s.flavor == Flavor::Sglang && s.endpoint != Endpoint::Messages);
  if (keep_prompt) p.facts.prompt_text = spec.prompt;
  if (spec.model != s.model) p.facts.model = spec.model;
  if ((s.endpoint == Endpoint::Chat || s.endpoint == Endpoint::Messages) && spec.messages_json.empty())
    p.facts.images = static_cast<int64_t>(spec.image_urls.size());
  return p;
}

std::string build_body(const BodySettings& s, const dataset::RequestSpec& spec) {
  const Overridden overridden = [&](std::string_view key) {
    return std::any_of(s.extra.begin(), s.extra.end(), [&](const auto& kv) { return kv.first == key; });
  };
  if (s.endpoint == Endpoint::Messages) return messages_body(s, spec, overridden);
  if (s.endpoint == Endpoint::Generate) return generate_body(s, spec, overridden);
  JsonWriter w;
  w.begin_object();
  if (!overridden("model")) w.field("model", spec.model.empty() ? s.model : spec.model);
  if (s.endpoint == Endpoint::Embeddings) {  // OpenAI's /v1/embeddings: the text, nothing to generate
    if (!overridden("input")) w.field("input", spec.prompt);
    for (const auto& [k, v] : s.extra) w.field_raw(k, v);
    w.end_object();
    return w.take();
  }
  if (s.endpoint == Endpoint::Chat) {
    if (overridden("messages")) {
    } else if (!spec.messages_json.empty()) {
      w.field_raw("messages", spec.messages_json);  // a dataset's whole conversation, as written
    } else if (!spec.image_urls.empty()) {  // OpenAI's content parts: the text, then each image
      w.key("messages").begin_array().begin_object().field("role", "user").key("content").begin_array();
      w.begin_object().field("type", "text").field("text", spec.prompt).end_object();
      for (const auto& url : spec.image_urls) {
        w.begin_object().field("type", "image_url").key("image_url").begin_object().field("url", url).end_object().end_object();
      }
      w.end_array().end_object().end_array();
    } else {
      w.key("messages").begin_array().begin_object();
      w.field("role", "user").field("content", spec.prompt);
      w.end_object().end_array();
    }
  } else if (!overridden("prompt")) {
    w.field("prompt", spec.prompt);
  }
  const bool chat = s.endpoint == Endpoint::Chat;
  const int64_t max_tokens = spec.max_tokens > 0 ? spec.max_tokens : s.max_tokens;
  const char* max_key = chat && (s.flavor == Flavor::Vllm || s.flavor == Flavor::Sglang) ? "max_completion_tokens" : "max_tokens";
  if (max_tokens > 0 && !overridden(max_key)) w.field(max_key, max_tokens);
  if (s.flavor == Flavor::Vllm && !chat && !overridden("repetition_penalty")) w.field("repetition_penalty", 1.0);
  if (s.flavor == Flavor::Sglang && !chat && !overridden("best_of")) w.field("best_of", 1);
  if (s.min_tokens && !overridden("min_tokens")) w.field("min_tokens", *s.min_tokens);
  const bool ignore_eos = s.ignore_eos || s.flavor == Flavor::Sglang;
  if (ignore_eos && !overridden("ignore_eos")) w.field("ignore_eos", true);
  std::optional<double> temperature = s.temperature;
  if (!temperature && (s.flavor == Flavor::Evalscope || s.flavor == Flavor::Sglang)) temperature = 0.0;
  if (temperature && !overridden("temperature")) w.field("temperature", *temperature);
  if (!overridden("stream")) w.field("stream", s.stream);
  if (s.stream && s.flavor != Flavor::Sglang && !overridden("stream_options")) {
    w.key("stream_options").begin_object().field("include_usage", true);
    if (s.continuous_usage) w.field("continuous_usage_stats", true);
    w.end_object();
  }
  for (const auto& [k, v] : s.extra) w.field_raw(k, v);
  w.end_object();
  return w.take();
}

std::vector<AuditFinding> audit_body(const std::string& body, Endpoint endpoint) {
  std::vector<AuditFinding> out;
  simdjson::dom::parser parser;
  simdjson::dom::object top;
  if (parser.parse(body).get_object().get(top)) return {{"warning", "the request body is not a JSON object"}};
  const bool chat = endpoint == Endpoint::Chat;
  const bool generate = endpoint == Endpoint::Generate;
  simdjson::dom::object o = top;  // where the sampling fields are: /generate keeps them in sampling_params
  const bool have_o = !generate || !top["sampling_params"].get_object().get(o);
  auto has = [&](std::string_view k) { return have_o && !o[k].error() && !o[k].is_null(); };
  auto flag = [&](simdjson::simdjson_result<simdjson::dom::element> e) {
    bool b = false;
    return !e.get_bool().get(b) && b;
  };
  const bool ignore_eos = has("ignore_eos") && flag(o["ignore_eos"]);
  const bool stream = flag(top["stream"]);
  const bool include_usage = flag(top["stream_options"]["include_usage"]);
  if (generate) {  // SGLang's names for the same traps
    if (has("min_new_tokens") && ignore_eos) {
      out.push_back({"warning", "min_new_tokens together with ignore_eos: redundant (ignore_eos already produces "
                                "max_new_tokens) and a per-step logits processor on the server"});
    }
    if (!has("temperature")) out.push_back({"note", "no temperature is sent: the server's default (its generation_config) applies"});
    if (!has("max_new_tokens")) out.push_back({"note", "no max_new_tokens is sent: SGLang's default of 128 applies"});
    return out;
  }
  if (has("min_tokens") && ignore_eos) {
    out.push_back({"warning",
                   "min_tokens together with ignore_eos: redundant (ignore_eos already produces max_tokens) and it slows "
                   "vLLM's speculative-decoding path for the whole batch (MinTokensLogitsProcessor is not argmax-invariant): "
                   "the seed incident's 2x TPOT; drop min_tokens unless that cost is what you measure"});
  } else if (has("min_tokens")) {
    out.push_back({"note", "min_tokens is sent: under vLLM speculative decoding it slows every step of the batch"});
  }
  if (has("seed")) out.push_back({"note", "a fixed seed is sent with every request: identical sampling for identical prompts"});
  if (!has("temperature")) out.push_back({"note", "no temperature is sent: the server's default (its generation_config) applies"});
  if (has("max_tokens") && has("max_completion_tokens")) {
    out.push_back({"warning", "both max_tokens and max_completion_tokens are sent: servers differ in which one wins"});
  } else if (chat && has("max_tokens")) {
    out.push_back({"note", "chat request caps output with max_tokens (OpenAI deprecated it for max_completion_tokens; vLLM honours both)"});
  } else if (!has("max_tokens") && !has("max_completion_tokens")) {
    out.push_back({"note", "no output cap is sent: the server's default length applies"});
  }
  if (stream && !include_usage && endpoint != Endpoint::Messages) {  // Anthropic's streams always carry usage
    out.push_back({"warning", "streaming without stream_options.include_usage: the server reports no token counts, so "
                              "output tokens come from --tokenizer or from counting chunks"});
  }
  return out;
}

}  // namespace tokbench::client
