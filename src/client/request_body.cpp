#include "client/request_body.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "common/json_writer.hpp"

namespace tokbench::client {

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
  p.facts.ignore_eos_sent = s.ignore_eos || s.flavor == Flavor::Sglang;
  if (keep_prompt) p.facts.prompt_text = spec.prompt;
  if (spec.model != s.model) p.facts.model = spec.model;
  if (s.endpoint == Endpoint::Chat && spec.messages_json.empty()) p.facts.images = static_cast<int64_t>(spec.image_urls.size());
  return p;
}

std::string build_body(const BodySettings& s, const dataset::RequestSpec& spec) {
  auto overridden = [&](std::string_view key) {
    return std::any_of(s.extra.begin(), s.extra.end(), [&](const auto& kv) { return kv.first == key; });
  };
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

std::vector<AuditFinding> audit_body(const std::string& body, bool chat) {
  std::vector<AuditFinding> out;
  simdjson::dom::parser parser;
  simdjson::dom::object o;
  if (parser.parse(body).get_object().get(o)) return {{"warning", "the request body is not a JSON object"}};
  auto has = [&](std::string_view k) { return !o[k].error() && !o[k].is_null(); };
  auto flag = [&](simdjson::simdjson_result<simdjson::dom::element> e) {
    bool b = false;
    return !e.get_bool().get(b) && b;
  };
  const bool ignore_eos = flag(o["ignore_eos"]);
  const bool stream = flag(o["stream"]);
  const bool include_usage = flag(o["stream_options"]["include_usage"]);
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
  if (stream && !include_usage) {
    out.push_back({"warning", "streaming without stream_options.include_usage: the server reports no token counts, so "
                              "output tokens come from --tokenizer or from counting chunks"});
  }
  return out;
}

}  // namespace tokbench::client
