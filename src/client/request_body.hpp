#pragma once
// client/request_body: the OpenAI protocol adapter — exactly which JSON body each request
// carries. Fields the user did not ask for are never sent (the seed incident: a hidden
// min_tokens doubled TPOT), so every optional field here is sent only when given.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dataset/dataset.hpp"

namespace tokbench::client {

enum class Endpoint { Chat, Completions };

struct BodySettings {
  Endpoint endpoint = Endpoint::Chat;
  std::string model;
  bool stream = true;
  int64_t max_tokens = 256;  ///< 0 = not sent (the server's default applies)
  bool ignore_eos = false;   ///< sent only when true
  std::optional<int64_t> min_tokens;  ///< sent only when given
  std::optional<double> temperature;  ///< sent only when given
  bool continuous_usage = false;      ///< stream_options.continuous_usage_stats (vLLM, SGLang)
  /// Top-level fields from --extra-body, already validated: (key, raw JSON value). They override
  /// any field of the same name that tokbench would send.
  std::vector<std::pair<std::string, std::string>> extra;
};

/// Parses a --extra-body value: it must be a JSON object. Throws naming the problem.
std::vector<std::pair<std::string, std::string>> parse_extra_body(const std::string& json);

/// The exact body for one request (streaming bodies always ask for stream_options.include_usage).
std::string build_body(const BodySettings& s, const dataset::RequestSpec& spec);

}  // namespace tokbench::client
