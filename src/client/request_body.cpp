#include "client/request_body.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
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

std::string build_body(const BodySettings& s, const dataset::RequestSpec& spec) {
  auto overridden = [&](std::string_view key) {
    return std::any_of(s.extra.begin(), s.extra.end(), [&](const auto& kv) { return kv.first == key; });
  };
  JsonWriter w;
  w.begin_object();
  if (!overridden("model")) w.field("model", s.model);
  if (s.endpoint == Endpoint::Chat) {
    if (!overridden("messages")) {
      w.key("messages").begin_array().begin_object();
      w.field("role", "user").field("content", spec.prompt);
      w.end_object().end_array();
    }
  } else if (!overridden("prompt")) {
    w.field("prompt", spec.prompt);
  }
  const int64_t max_tokens = spec.max_tokens > 0 ? spec.max_tokens : s.max_tokens;
  if (max_tokens > 0 && !overridden("max_tokens")) w.field("max_tokens", max_tokens);
  if (s.min_tokens && !overridden("min_tokens")) w.field("min_tokens", *s.min_tokens);
  if (s.ignore_eos && !overridden("ignore_eos")) w.field("ignore_eos", true);
  if (s.temperature && !overridden("temperature")) w.field("temperature", *s.temperature);
  if (!overridden("stream")) w.field("stream", s.stream);
  if (s.stream && !overridden("stream_options")) {
    w.key("stream_options").begin_object().field("include_usage", true);
    if (s.continuous_usage) w.field("continuous_usage_stats", true);
    w.end_object();
  }
  for (const auto& [k, v] : s.extra) w.field_raw(k, v);
  w.end_object();
  return w.take();
}

}  // namespace tokbench::client
