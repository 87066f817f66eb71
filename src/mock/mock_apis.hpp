#pragma once
// mock/mock_apis: the simulator's other APIs — Anthropic's Messages API (/v1/messages) and
// SGLang's native /generate — as their servers shape them: the request each takes, and the exact
// JSON of each event and body. Timing is mock_response's, the same for every API; only the words
// on the wire differ, so a test can hold every API to one ground truth.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "mock/mock_response.hpp"

namespace tokbench::mock {

// ---- Anthropic /v1/messages ----------------------------------------------------------------

/// Parses a Messages API body: model, max_tokens (required, as Anthropic requires it), messages
/// (string content or text and base64 image blocks), an optional system prompt, stream,
/// temperature; ignore_eos and min_tokens as vLLM-style servers take them. The conversation is
/// rendered with the simulator's chat template.
std::optional<CompletionRequest> parse_messages_request(std::string_view body, std::string* error);

/// Anthropic's stop_reason for the simulator's finish reason ("length" -> "max_tokens", else "end_turn").
std::string_view anthropic_stop_reason(std::string_view finish_reason);

/// Token counts as Anthropic reports them: input_tokens excludes the tokens read from the cache,
/// which are cache_read_input_tokens (sent only when the prefix cache is on: cached >= 0).
struct AnthropicUsage {
  int64_t prompt = 0;
  int64_t cached = -1;
  int64_t output = 0;
};

/// The stream's events, in order: message_start, content_block_start, content_block_delta
/// (one per chunk), content_block_stop, message_delta (stop_reason, output tokens), message_stop.
std::string anthropic_message_start(std::string_view id, std::string_view model, const AnthropicUsage& usage);
std::string anthropic_block_start();
std::string anthropic_text_delta(std::string_view text);
std::string anthropic_block_stop();
std::string anthropic_message_delta(std::string_view stop_reason, const AnthropicUsage& usage);
std::string anthropic_message_stop();
/// The whole non-streaming message; without usage when `usage` is empty (--no-usage).
std::string anthropic_body(std::string_view id, std::string_view model, std::string_view text, std::string_view stop_reason,
                           const std::optional<AnthropicUsage>& usage);
/// Anthropic's error body: {"type": "error", "error": {"type", "message"}}.
std::string anthropic_error(std::string_view message, std::string_view type);

// ---- SGLang /generate -----------------------------------------------------------------------

/// Parses a /generate body: text (or input_ids), sampling_params (max_new_tokens, default 128;
/// min_new_tokens; ignore_eos; n), stream, lora_path (the model the answer names). Rendered
/// as a completions prompt.
std::optional<CompletionRequest> parse_generate_request(std::string_view body, std::string_view base_model,
                                                        std::string* error);

/// One /generate event or body: the whole text so far (SGLang's default, cumulative), meta_info
/// with cumulative completion_tokens, and finish_reason null until the end, then
/// {"type": "length", "length": N} or {"type": "stop", "matched": ...}.
struct GenerateState {
  std::string_view id;
  std::string_view text;        ///< the answer so far
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  int64_t cached_tokens = 0;
  std::string_view finish;      ///< "" (not finished), "length" or "stop"
  int64_t index = 0;            ///< the choice (sampling_params.n > 1)
};
std::string generate_chunk(const GenerateState& st);

}  // namespace tokbench::mock
