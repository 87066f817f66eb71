#pragma once
// core/: the request nouns every stage shares — what to send (RequestSpec, from dataset/), and a
// request made at send time (PlannedRequest: its body, when it is due, and the facts of what was
// sent, which travel into its record so nothing downstream looks them up by index). Depends on
// nothing in tokbench; knows nothing about HTTP, JSON, time sources or statistics.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/cancel.hpp"
#include "core/tools.hpp"

namespace tokbench::core {

inline constexpr int64_t kNotSet = -1;

/// What a right answer is, as a dataset line states it (--check-answers; metrics/answers scores
/// an output against it). Kept as written: the rules normalise both sides when they compare.
struct AnswerKey {
  enum class Kind : uint8_t {
    None,    ///< the line carries no reference: the output gets the integrity checks only
    Gsm8k,   ///< `reference`: the text after the answer field's last "####"
    Choice,  ///< `reference`: the right letter, "A" + index; `choices`: how many the line lists
    Exact,   ///< `reference`: the answer text, compared whole after trimming
    Regex,   ///< `reference`: a PCRE2 pattern (a qa line's "answer_regex"): right when the output
             ///< matches it
  };
  Kind kind = Kind::None;
  std::string reference;
  int choices = 0;
};

/// The prompt alone: the spec's `prompt` is all there is to send.
struct PlainPrompt {};

/// A chat conversation: a dataset's own `messages` array (minified JSON, sent as is), or ("" ) one
/// user turn of the prompt with `image_urls` (data: URLs) as content parts after it.
struct Conversation {
  std::string messages_json;
  std::vector<std::string> image_urls;
};

/// A query with the documents to rank against it (/v1/rerank): the spec's `prompt` is the query.
struct Ranking {
  std::vector<std::string> documents;
};

/// What a request carries beside its text, one alternative per shape of API input. client/api's
/// adapters write it in their API's words; an adapter's capabilities (ApiCaps) say which shapes it
/// takes, and measure/target refuses a dataset whose shape its API cannot take.
using Payload = std::variant<PlainPrompt, Conversation, Ranking>;

/// What to send: produced by dataset/ (files, synthetic prompts), turned into a body by client/.
struct RequestSpec {
  /// The text a tokenizer counts and a session remembers: the prompt (completions), the user
  /// message (chat), every message's text joined (a conversation), or a ranking's query.
  std::string prompt;
  int64_t max_tokens = -1;  ///< per-item output cap; -1 = use the run's --max-tokens
  int64_t expected_input_tokens =
      -1;             ///< what usage.prompt_tokens should be (synthetic); -1 = unknown
  Payload payload;    ///< what else it carries (a conversation, documents)
  std::string model;  ///< the model name for this request (a LoRA adapter); "" = the run's model
  AnswerKey key;      ///< the line's reference answer, when it has one
  SharedTools tools;  ///< the tools offered (a line's own, else --tools); null = none
  std::optional<ToolCall> tool_call;  ///< the line's reference call (--check-answers matches it)

  RequestSpec() = default;
  /// A prompt with its own output cap (-1 = the run's), as most datasets make them.
  RequestSpec(std::string p, int64_t cap = -1) : prompt(std::move(p)), max_tokens(cap) {}

  const Conversation* conversation() const { return std::get_if<Conversation>(&payload); }
  const Ranking* ranking() const { return std::get_if<Ranking>(&payload); }
  /// The conversation, made one (empty: one user turn of the prompt) when it was another shape.
  Conversation& as_conversation() {
    if (!std::holds_alternative<Conversation>(payload)) payload = Conversation{};
    return std::get<Conversation>(payload);
  }
};

/// Facts of what was sent that the response alone cannot tell; copied into the request's record.
struct SentFacts {
  int64_t expected_prompt_tokens = kNotSet;  ///< the input length the prompt was built to have
  int64_t requested_max_tokens =
      kNotSet;                   ///< the output cap sent (max_tokens / max_completion_tokens)
  bool ignore_eos_sent = false;  ///< the body asks for exactly the cap
  int64_t images = 0;            ///< image_url parts sent (multimodal)
  int64_t documents = 0;         ///< documents sent to be ranked (rerank)
  std::string model;  ///< the model named in the body when not the run's (a LoRA adapter)
  // Multi-turn sessions (load/sessions): where this request sits; kNotSet outside sessions.
  int64_t session = kNotSet;           ///< the conversation
  int64_t turn = kNotSet;              ///< 0-based turn in it
  int64_t session_start_ns = kNotSet;  ///< when its first turn was handed out
  bool last_turn = false;              ///< the conversation's last turn
  // Agent tasks (load/agents): when this turn could go, and how long its tools took before it.
  int64_t ready_ns = kNotSet;  ///< the task's start (turn 0), or its stubs' last answer
  int64_t tool_ns = kNotSet;   ///< the stubs' time before this turn (0 on turn 0)
  std::string
      turn_text;  ///< this turn's user message (the session keeps it in its history); not saved
  std::string prompt_text;  ///< only when a local tokenizer will count it; never saved
  AnswerKey key;            ///< the line's reference (--check-answers scores the output); not saved
  SharedTools tools;        ///< the tools the body offered (each call is checked against them)
  std::shared_ptr<const std::string> json_schema;  ///< --json-schema the answer is held to
  std::optional<ToolCall> tool_call;               ///< the line's reference call; not saved
  bool probe = false;  ///< a --determinism-probe request: the same prompt as the other probes
  CancelPoint cancel;  ///< --cancel-rate drew it: when the client lets it go (none: never)
};

/// One request, made when the engine has room for it (closed loop) or when it is due (open loop).
struct PlannedRequest {
  int64_t index = 0;    ///< position in the phase's request sequence
  bool warmup = false;  ///< recorded, excluded from statistics
  int64_t scheduled_ns =
      kNotSet;       ///< intended start, ns since the run origin; kNotSet = when a slot frees
  std::string body;  ///< the exact bytes POSTed
  SentFacts facts;
};

/// Makes the request of sequence index i (dataset item, body, facts). Called from worker threads
/// concurrently: it must be thread-safe (a pure function of its inputs is).
using RequestMaker = std::function<PlannedRequest(int64_t index)>;

}  // namespace tokbench::core
