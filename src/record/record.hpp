#pragma once
// record/: what happened to one request, in integer nanoseconds since the run's monotonic
// origin. The only input of metrics/ and report/. Knows nothing about HTTP, SSE or statistics;
// the client fills it, record_io writes and reads its JSON Lines form.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/agent.hpp"
#include "core/request.hpp"

namespace tokbench::record {

inline constexpr int64_t kNone = -1;  ///< a timestamp or count that was never observed
/// A request's tool calls are kept up to these bounds (what comes beyond is cut and said).
inline constexpr size_t kMaxToolCalls = 64;
inline constexpr size_t kMaxToolCallBytes = size_t{1} << 20;
inline constexpr int64_t kMaxChoiceIndex =
    32767;  ///< ChunkEvent::choice's range; a higher index is clamped to it

/// Every request ends in exactly one of these (h2load's and wrk2's habit: never just "failed").
/// TooLarge: the response passed a cap (an SSE line or event, a body, the event count); only
/// that request is lost, and memory stays bounded whatever the server sends. Cut: still in flight
/// when a --duration-s run's grace ended; cancelled, excluded from statistics, not a failure.
/// ClientCancelled: let go by the client on purpose (--cancel-rate), counted apart like Cut.
/// Cancelled: in flight when a stop (Ctrl-C, --stop-on-saturation) ended the phase.
enum class Outcome {
  Ok,
  ConnectError,
  Timeout,
  HttpStatus,
  StreamProtocol,
  Cancelled,
  TooLarge,
  Cut,
  ClientCancelled
};

/// What an SSE data event carried, decided by the client when it arrived.
/// How an output fared against its dataset line's reference (--check-answers; metrics/answers).
/// None: no reference, or answers were not checked. Unscored: the rule read no answer from it.
enum class AnswerMark : char { None, Right, Wrong, Unscored };
/// Why an output was not read in full (details' "not_checked"): RegexLimit: its answer_regex hit
/// the match limit or the time budget (core/answer_regex), so the answer is unscored; Backlog: the
/// checks fell behind (measure/recorder's bounds) and the text was let go unread.
enum class NotChecked : char { No, RegexLimit, Backlog };
std::string_view not_checked_name(NotChecked n);

enum class ChunkKind : char {
  Role = 'R',       ///< role-only delta (vLLM's first chunk), no generated text
  Content = 'C',    ///< carries generated text
  Reasoning = 'T',  ///< carries reasoning ("thinking") text and no content
  ToolCall = 'K',   ///< carries a tool call (its name or argument text) and no content or reasoning
  Finish = 'F',     ///< finish_reason with no text
  Usage = 'U',      ///< `choices: []` with usage only
  Empty = 'E',      ///< anything else (empty delta, keep-alive JSON)
};

std::string_view outcome_name(Outcome o);
std::optional<Outcome> outcome_from_name(std::string_view name);

/// One SSE data event (the `data: [DONE]` sentinel is not a chunk; it sets `done_ns`).
struct ChunkEvent {
  int64_t t_ns = 0;         ///< arrival, ns since run origin
  int32_t bytes = 0;        ///< size of the event's data payload
  int32_t cum_tokens = -1;  ///< usage.completion_tokens carried by this chunk; -1 = none
  ChunkKind kind = ChunkKind::Empty;
  int16_t choice = 0;  ///< the choice's `index` (n > 1: each choice streams its own events)

  /// Generated output: text, reasoning, or a tool call's name and arguments (TTFT's first token).
  bool has_text() const {
    return kind == ChunkKind::Content || kind == ChunkKind::Reasoning ||
           kind == ChunkKind::ToolCall;
  }
};

struct RequestRecord {
  int64_t index = 0;    ///< position in the run's request sequence
  bool warmup = false;  ///< warm-up requests are recorded but excluded from statistics
  bool stream = true;
  int attempts = 1;  ///< 1 + retries spent on this request

  int64_t scheduled_ns = kNone;  ///< intended start (open loop) or when it became eligible
  int64_t sent_ns = kNone;       ///< handed to the transport (connection set-up included)
  // HTTP phases of the last attempt, from libcurl (k6's and AIPerf's names in the report):
  int64_t dns_done_ns = kNone;       ///< name resolved (= sent on a reused connection)
  int64_t connect_done_ns = kNone;   ///< TCP connected (= sent on a reused connection)
  int64_t tls_done_ns = kNone;       ///< TLS handshake done (https; kNone for http)
  int64_t request_start_ns = kNone;  ///< the request starts on the wire (libcurl's pretransfer)
  /// The whole request was taken by the kernel (the socket transport; kNone from libcurl).
  int64_t request_sent_ns = kNone;
  int64_t connects = kNone;  ///< connections opened for it: 0 = a reused one
  /// Sent again on a new connection after a kept-alive one closed before any answer (the plain-
  /// socket transport; libcurl does the same without saying). The server may have read the first:
  /// RFC 9110 §9.2.2 warns against repeating a POST unasked, so it is counted and said.
  bool resent = false;
  /// --cancel-rate drew this request to be cancelled (core/cancel): it ends ClientCancelled, or
  /// Ok when its answer was whole before the cancel point came.
  bool cancel_planned = false;
  int64_t first_byte_ns = kNone;   ///< first response header byte
  int64_t first_event_ns = kNone;  ///< first SSE data event of any kind
  int64_t first_token_ns = kNone;  ///< first event carrying generated text
  /// When the bytes of the read that held the first token reached this host (the kernel's
  /// receive time, common/receive_time; the socket transport only): first_token_ns minus this is
  /// how long they waited for the client to read them (a lower bound where the kernel merged the
  /// first token's segment with a later one: it keeps the later one's time).
  int64_t first_token_host_ns = kNone;
  int64_t last_token_ns = kNone;  ///< last event carrying generated text
  int64_t last_event_ns = kNone;  ///< last SSE data event (often the usage chunk)
  int64_t done_ns = kNone;        ///< `[DONE]`, end of body, or the moment of failure

  std::vector<ChunkEvent> chunks;

  int64_t prompt_tokens = kNone;      ///< from the server's usage
  int64_t completion_tokens = kNone;  ///< from the server's usage
  int64_t cached_tokens = kNone;      ///< usage.prompt_tokens_details.cached_tokens
  /// The server's own times of this answer, where its answers carry them (llama.cpp's
  /// `timings`): its prompt processing, its generation and the tokens generated in it; and
  /// the time it took to have the model ready for it (Ollama's load_duration).
  int64_t server_prompt_us = kNone;
  int64_t server_predicted_us = kNone;
  int64_t server_predicted_n = kNone;
  int64_t server_load_us = kNone;
  int64_t server_queue_us = kNone;          ///< its queue wait (TGI's x-queue-time header)
  int64_t output_chars = 0;                 ///< bytes of generated text (content + reasoning)
  int64_t prompt_tokens_local = kNone;      ///< the prompt counted by --tokenizer (no specials)
  int64_t completion_tokens_local = kNone;  ///< the generated text counted by --tokenizer
  int64_t expected_prompt_tokens = kNone;   ///< what the client built the prompt to be (synthetic)
  int64_t requested_max_tokens =
      kNone;                     ///< the output cap sent (max_tokens / max_completion_tokens)
  bool ignore_eos_sent = false;  ///< ignore_eos was sent: output must equal the cap
  std::string output_text;  ///< generated text, kept only while --tokenizer needs it; not saved
  /// The answer's content alone (no reasoning, no call arguments), kept with output_text: what an
  /// agent task's next turn sends back as the assistant's text. Not saved.
  std::string content_text;
  std::string prompt_text;  ///< the prompt sent, kept only while --tokenizer needs it; not saved
  std::string finish_reason;

  int64_t malformed_sse_lines = 0;  ///< lines of the stream that were not SSE (skipped)
  int64_t choices =
      1;  ///< choices the answer carried (n > 1: metrics/ times each choice's stream apart)
  int http_status = 0;
  Outcome outcome = Outcome::Ok;
  std::string error;       ///< human-readable cause; for http_status, the first KiB of the body
  std::string request_id;  ///< the server's completion id
  /// The id tokbench sent in its request-id header (--request-id-header): "<run id>-<index>", a
  /// warm-up's "<run id>-w<index>"; "" = none sent. vLLM takes it as its request's id, so the
  /// server's log finds this request.
  std::string client_request_id;
  /// The W3C trace context it carried (--trace-context): "00-<trace id>-<span id>-01", one trace
  /// per request, one span per attempt; a server that exports spans (vLLM's
  /// --otlp-traces-endpoint) parents its own to it. "" = none sent.
  std::string traceparent;
  std::string
      model;  ///< the model named in the body when not the run's (a LoRA adapter); "" = the run's
  int64_t images = 0;  ///< image_url parts the body carried (multimodal; their tokens are in usage)
  int64_t documents = 0;  ///< documents the body asked to rank (rerank; their tokens are in usage)
  int64_t rank = kNone;   ///< a multi-host run: the rank that sent it (kNone on a single host)
  /// --class: the traffic class that sent it ("" = a run without classes). Its index is unique
  /// within its class only: (class, index) names a request.
  std::string traffic_class;
  int64_t session = kNone;  ///< multi-turn: the conversation (kNone outside sessions)
  int64_t turn = kNone;     ///< multi-turn: 0-based turn in it
  int64_t session_start_ns =
      kNone;               ///< multi-turn: when the conversation's first turn was handed out
  bool last_turn = false;  ///< multi-turn: the conversation's last turn (its done ends the session)
  /// Agent tasks (load/agents; kNone elsewhere): when the turn could go (the task's start, or
  /// its stubs' last answer), the stubs' time before it, and — on a task's last turn — how the
  /// task ended. Client time of the turn = sent_ns - ready_ns.
  int64_t ready_ns = kNone, tool_ns = kNone;
  core::TaskEnd task_end = core::TaskEnd::None;
  // Output checks (--check-answers, --determinism-probe): measure/recorder reads output_text on its
  // own thread, fills these, and lets the text go.
  core::AnswerKey answer_key;  ///< the line's reference; not saved
  AnswerMark answer_mark = AnswerMark::None;
  std::string answer;      ///< what the rule read from the output ("" = nothing)
  int8_t repeating = -1;   ///< runaway repetition at the output's end: 1 or 0; -1 = not checked
  int8_t valid_utf8 = -1;  ///< the output is well-formed UTF-8: 1 or 0; -1 = not checked
  NotChecked not_checked = NotChecked::No;
  bool probe = false;  ///< a --determinism-probe request (the same prompt as every other probe)
  std::string output_hash;  ///< probes: FNV-1a 64 of the output text, 16 hex digits ("" = none)
  // Tool calls (core/tools): assembled by the client from the answer's deltas when the body
  // offered tools, checked by measure/recorder against them and the line's reference call.
  bool tools_offered = false;              ///< the body offered tools (the details' "tools")
  std::vector<core::ToolCall> tool_calls;  ///< in the order of their index; saved
  bool tool_calls_cut = false;  ///< a call or the count passed its cap (kMaxToolCalls/-Bytes)
  core::ToolCheck tool_check = core::ToolCheck::None;
  std::string tool_why;                          ///< the first failure the check found
  AnswerMark tool_match = AnswerMark::None;      ///< against the reference call (Right/Wrong)
  core::SharedTools tools;                       ///< the tools offered; not saved
  std::optional<core::ToolCall> tool_reference;  ///< the line's reference call; not saved
  // Structured output (--json-schema): the answer against the schema it was asked for.
  std::shared_ptr<const std::string> json_schema;        ///< the schema sent; not saved
  core::ToolCheck schema_check = core::ToolCheck::None;  ///< Valid, BadJson, Invalid, Unchecked
  std::string schema_why;                                ///< the first failure

  bool ok() const { return outcome == Outcome::Ok; }
  /// Neither a success nor a failure, and in no statistic: cut at a duration's end, or
  /// cancelled by the client on purpose (counted apart).
  bool apart() const { return outcome == Outcome::Cut || outcome == Outcome::ClientCancelled; }
  /// Where the output token count comes from: "usage", "tokenizer" or "chunks".
  std::string_view token_source() const {
    return completion_tokens != kNone         ? "usage"
           : completion_tokens_local != kNone ? "tokenizer"
                                              : "chunks";
  }
  /// Server usage and the local tokenizer both counted the output, and disagree.
  bool token_mismatch() const {
    return completion_tokens != kNone && completion_tokens_local != kNone &&
           completion_tokens != completion_tokens_local;
  }
};

}  // namespace tokbench::record
