#pragma once
// client/request_body: the protocol adapter — exactly which JSON body each request carries, for
// OpenAI's endpoints, Anthropic's Messages API and SGLang's native /generate. Fields the user
// did not ask for are never sent (the seed incident: a hidden min_tokens doubled TPOT), so every
// optional field here is sent only when given.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "client/chunk_parser.hpp"
#include "dataset/dataset.hpp"

namespace tokbench::client {

enum class Endpoint {
  Chat,         ///< OpenAI /v1/chat/completions
  Completions,  ///< OpenAI /v1/completions
  Embeddings,   ///< OpenAI /v1/embeddings
  Messages,     ///< Anthropic /v1/messages (vLLM and gateways serve it too)
  Generate,     ///< SGLang's native /generate: {text, sampling_params}
};

/// The payload format of an endpoint's answers.
Wire wire_of(Endpoint e);

/// Whose request body to reproduce (--compat): the fields each tool sends by itself
/// (reference/evalscope_vllm_sglang.md sections 1.2, 2.2, 3.2).
enum class Flavor {
  Tokbench,   ///< only what was asked for (also AISBench's: generation_kwargs pass through)
  Evalscope,  ///< temperature always (default 0.0); top-level min_tokens when given
  Vllm,       ///< chat: max_completion_tokens; completions: repetition_penalty 1.0
  Sglang,     ///< max_completion_tokens (chat), temperature 0.0, ignore_eos true, no stream_options;
              ///< /generate: bench_serving's native payload (temperature 0.0, ignore_eos in sampling_params)
};

struct BodySettings {
  Endpoint endpoint = Endpoint::Chat;
  Flavor flavor = Flavor::Tokbench;
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

/// The exact body for one request. OpenAI streaming bodies ask for stream_options.include_usage,
/// except under the SGLang flavor, which reproduces bench_serving's body (it does not ask);
/// Anthropic's and SGLang's native answers always carry usage.
std::string build_body(const BodySettings& s, const dataset::RequestSpec& spec);

/// The request made from one dataset item: its exact body and the facts of what was sent (the
/// output cap, ignore_eos, the input length the prompt was built to have; the prompt text itself
/// only when `keep_prompt`, for a local tokenizer to count). Thread-safe: a pure function.
core::PlannedRequest plan_request(const BodySettings& s, const dataset::RequestSpec& spec, bool keep_prompt);

/// A finding of the request-body audit.
struct AuditFinding {
  std::string level;  ///< "warning" or "note"
  std::string text;
};

/// Known traps in a request body: min_tokens with ignore_eos (the seed incident), a fixed seed,
/// no temperature, max_tokens vs max_completion_tokens, streaming without usage, no output cap.
/// /generate bodies are read inside sampling_params.
std::vector<AuditFinding> audit_body(const std::string& body, Endpoint endpoint);

}  // namespace tokbench::client
