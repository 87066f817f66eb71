#pragma once
// mockapi/mock_response: the simulator's pure parts — what a request asks for (read by
// mockapi/mock_request.cpp), when each token is produced (the timing model), and the exact JSON of
// each chunk, vLLM-shaped. No sockets here; mock_server writes these bytes at these times. Shares
// no state with the client.
#include <simdjson.h>

#include <cstdint>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "core/tools.hpp"
#include "mockapi/mock_devices.hpp"

namespace tokbench::mock {

/// Which waiting request gets a free place in the batch (--scheduling-policy, mock/batch).
enum class SchedulingPolicy { Fcfs, Priority, Fair };

struct MockSettings {
  std::string host = "127.0.0.1";
  uint16_t port = 8000;  ///< 0 = any free port (printed on start)
  std::string model_name = "tokbench-mock";
  std::vector<std::string>
      lora_modules;  ///< more model names it serves (vLLM's --lora-modules): same timing, own name
  int64_t image_tokens =
      256;  ///< prompt tokens each image_url part adds to usage (a vision encoder's share)
  double image_prefill_ms = 2;  ///< prefill time each image adds
  int embedding_dims =
      16;  ///< /v1/embeddings: floats per vector (its latency is --ttft-ms, the prefill)
  double ttft_ms = 50;       ///< time from request arrival to the first token
  double tpot_ms = 10;       ///< time between consecutive tokens
  double jitter_ms = 0;      ///< each TTFT and gap gets a seeded uniform offset in [-j, +j]
  int tokens_per_chunk = 1;  ///< tokens per content chunk after the first (which always has 1)
  int eos_min_tokens = 16;   ///< without ignore_eos, output stops at a seeded length in
  int eos_max_tokens = 512;  ///< [eos_min, eos_max], capped by max_tokens
  int default_max_tokens =
      256;  ///< when the request sets neither max_tokens nor max_completion_tokens
  int64_t max_model_len =
      131072;  ///< prompt + max_tokens past it: HTTP 400, as vLLM answers (its --max-model-len)
  uint64_t seed = 42;
  std::string
      trace_path;  ///< "" = no trace; else one JSON line per request: arrival, admission, writes
  /// "" = none; else an OTLP/HTTP traces URL each finished completion's `llm_request` span goes
  /// to, as vLLM's --otlp-traces-endpoint (mock/mock_spans)
  std::string otlp_traces_endpoint;
  int threads = 1;     ///< io_context threads
  int fail_every = 0;  ///< every N-th completion request answers HTTP 500; 0 = never
  int drop_every = 0;  ///< every N-th streaming request is cut mid-stream; 0 = never
  /// Fault injection for users testing their own pipelines: this share of completion requests
  /// (seeded, so a run is repeatable) gets one of `fault_kinds`, drawn uniformly.
  double fault_rate = 0;
  std::string fault_kinds =
      "500,429,reset-before-headers,reset-mid-stream,stall,malformed-sse,no-done";
  double fault_stall_ms = 5000;  ///< "stall": this long without a byte before the first token
  std::string tokenizer_path;    ///< "" = the simple counting rule; else exact counts and /tokenize
  bool no_usage = false;         ///< never send usage (servers such as TGI or MindIE without it)
  // Batching, vLLM-style: a step produces one token per running request (more with speculative
  // decoding); its duration grows with the batch and with batch-wide costs.
  int max_num_seqs = 0;  ///< running requests at most; more wait in a queue; 0 = no limit
  /// Who gets a free place: fcfs (arrival order, vLLM's default); priority (the body's
  /// `priority`, lower first, then arrival; a better waiter preempts the worst running request
  /// on a full batch, as vLLM's --scheduling-policy priority); fair (the tenant of
  /// x-gateway-inference-fairness-id served the fewest tokens first: a virtual token counter).
  SchedulingPolicy scheduling_policy = SchedulingPolicy::Fcfs;
  double batch_slowdown_ms = 0;  ///< extra step time per running request beyond the first
  int spec_tokens = 0;           ///< speculative decoding: draft tokens per step (MTP's K); 0 = off
  double spec_acceptance =
      0.7;  ///< probability each draft is accepted (the first rejection ends a step)
  double log_interval_s = 0;  ///< vLLM-style throughput / SpecDecoding lines on stderr; 0 = off
  bool prefix_caching =
      false;            ///< prompts sharing full leading blocks with earlier ones skip that prefill
  int block_size = 16;  ///< prefix-cache block, in tokens
  double min_tokens_step_penalty_ms =
      -1;  ///< extra step time while any running request has min_tokens
           ///< and spec decoding is on; -1 = --tpot-ms (doubles a step)
  DeviceModel
      devices;  ///< --devices N: accelerators' telemetry at /device-metrics (mockapi/mock_devices)
  std::string answers;  ///< "gsm8k:PATH": answer that file's questions (mockapi/mock_answers); "" =
                        ///< filler text only
  double wrong_rate =
      0;  ///< --answers: share of questions answered wrong with nothing else running
  double wrong_rate_per_running_request =
      0;                         ///< --answers: added to it per other request running at admission
  double tool_invalid_rate = 0;  ///< share of tool calls made invalid (mockapi/mock_tools)
  double json_invalid_rate = 0;  ///< share of structured answers made not JSON (mockapi/mock_tools)
  /// What holding an answer to a JSON Schema costs (a grammar compiled, a token mask per step):
  /// such a request's first token comes schema_ttft_ms later, each of its steps takes
  /// schema_tpot_ms longer. Per request, so a paired run's cost has an exact answer.
  double schema_ttft_ms = 0, schema_tpot_ms = 0;
  /// --reasoning-tokens N: the first N tokens of every chat answer (not a tool call) are reasoning,
  /// streamed as delta.reasoning_content (vLLM's reasoning parsers), then the answer's content.
  int64_t reasoning_tokens = 0;
  /// --tool-rounds N: an agent's model. A chat request offering tools (tool_choice auto or none
  /// given) whose conversation holds fewer than N rounds of tool calls after its last user
  /// message is answered with a call (of its tools in turn, arguments by the schema rule); at N,
  /// with text. 0 = off (the rules of mockapi/mock_tools alone).
  int64_t tool_rounds = 0;

  /// Every problem at once, each naming the flag and the fix.
  std::vector<std::string> validate() const;
};

inline constexpr int64_t kMaxChoices = 16;  ///< the simulator's cap on "n"

/// A generation request, whichever API it came in on (mockapi/route.hpp: each route parses its
/// own).
struct CompletionRequest {
  bool chat =
      true;  ///< a conversation (chat, messages, responses): rendered with the chat template
  std::string model;
  bool stream = false;
  bool include_usage = false;
  bool continuous_usage = false;
  int64_t max_tokens = -1;  ///< max_completion_tokens wins over max_tokens; -1 = not given
  int64_t min_tokens = -1;
  bool ignore_eos = false;
  int64_t priority = 0;  ///< vLLM's `priority` (lower is served first under that policy)
  std::string tenant;    ///< x-gateway-inference-fairness-id (at most 64 bytes kept); "" = none
  int64_t n = 1;  ///< choices; each streams the same tokens at the same times (its own index)
  int64_t prompt_tokens = 0;  ///< by the simple rule; the server recounts with --tokenizer
  std::string rendered;  ///< chat: the ChatML rendering of the messages; completions: the prompt
  /// Chat with `tools` and `tool_choice` "required" (the first tool) or a named function: the
  /// answer is a call of this tool, its arguments streamed as tool-call deltas; "" = a text answer.
  std::string tool_name;
  std::vector<core::Tool> tools;  ///< the tools offered (names and parameter schemas)
  bool tool_choice_none = false;  ///< tool_choice "none": never a call
  /// The call's arguments as they are streamed (mockapi/mock_tools decides them at arrival); "" =
  /// a text answer, or a call of filler words where no caller decided (serve-mock's old rule).
  std::string tool_arguments;
  /// response_format json_schema (or vLLM's guided_json; Responses' text.format): the schema the
  /// answer must follow, and the answer mockapi/mock_tools made for it ("" = free text).
  std::string json_schema, structured_answer;
  /// Assistant messages with tool_calls after the last user message (an agent's rounds so far).
  int64_t tool_rounds = 0;
  int64_t images = 0;  ///< image_url parts (chat); each adds --image-tokens to prompt_tokens and
                       ///< --image-prefill-ms
};

/// The simulator's chat template (ChatML): "<|im_start|>{role}\n{content}<|im_end|>\n" per message,
/// then "<|im_start|>assistant\n". With --tokenizer it is encoded without added special tokens,
/// as vLLM encodes rendered chat prompts; completions prompts are encoded with them. Built in
/// place, turn by turn (a turn's text goes straight from the parsed JSON into the rendering), so
/// a 100 MB prompt is copied once.
void open_turn(std::string& rendered, std::string_view role);
void close_turn(std::string& rendered);
void open_answer(std::string& rendered);  ///< after the last turn: the assistant's opening
/// What --fault-rate injects into one request.
enum class Fault {
  None,
  Http500,
  Http429,
  ResetBeforeHeaders,
  ResetMidStream,
  Stall,
  MalformedSse,
  NoDone
};

/// The fault for the n-th completion request (1-based): seeded by --seed and n, so the same run
/// injects the same faults. Fault::None when --fault-rate says no.
Fault choose_fault(const MockSettings& s, uint64_t n);

/// Parses a --fault-kinds list ("500,stall,..."); throws std::invalid_argument naming a bad kind.
std::vector<Fault> parse_fault_kinds(const std::string& list);

/// Parses a /v1/chat/completions (chat = true) or /v1/completions body. Unknown fields are
/// accepted; message content may be a string or a list of {"type":"text","text":...} parts.
/// Returns nullopt and sets *error (an OpenAI-style message) when the body is unusable.
std::optional<CompletionRequest> parse_request(const std::string& body, bool chat,
                                               std::string* error);

/// Sums the tokens of a string or a list of text parts, and collects the text; false when neither.
/// Image parts (OpenAI's image_url, Anthropic's image with a base64 source) are counted in *images,
/// which turns -1 when one is not a base64 image. Shared by every API's request parser.
bool count_content(simdjson::dom::element content, int64_t& tokens, std::string& text_out,
                   int64_t* images = nullptr);

/// `body` as a JSON object (through `parser`, which must outlive `o`); false, with *error saying
/// so as vLLM does, when it is not one. Every route's request parser starts here.
bool body_object(simdjson::dom::parser& parser, const std::string& body, simdjson::dom::object& o,
                 std::string* error);
/// The request's "model", which the API requires (false, with *error, when it is missing).
bool required_model(simdjson::dom::object o, CompletionRequest& r, std::string* error);

/// What a request parser says when a turn's content is unusable or an image is not base64.
struct TurnErrors {
  std::string_view content;
  std::string_view image;
};
/// One turn of `role` whose `content` is a string or a list of parts: its tokens by the simple rule
/// (+1 for the template), its images, rendered into r.rendered. False with *error when unusable.
bool add_turn(CompletionRequest& r, std::string_view role,
              simdjson::simdjson_result<simdjson::dom::element> content, const TurnErrors& errors,
              std::string* error);

/// A request field read leniently: the integer (else `fallback`), the boolean (else false).
int64_t int_field(simdjson::dom::object o, std::string_view k, int64_t fallback = -1);
bool bool_field(simdjson::dom::object o, std::string_view k);

/// The documented stand-in for a tokenizer until one exists: ceil(UTF-8 bytes / 4), at least 1,
/// summed over every text part (chat adds 1 token of template per message).
int64_t count_prompt_tokens(std::string_view text);

/// How long the output is and why it ends.
struct Plan {
  int64_t tokens = 0;
  std::string finish_reason;  ///< "length" or "stop"
};

/// The output length: max_tokens with ignore_eos, else a seeded EOS in [eos_min, eos_max] (at
/// least min_tokens), capped by max_tokens. Deterministic in (settings.seed, sequence number).
/// The timing comes from StepModel: the first token at ttft after admission, then one step per
/// decode iteration; chunks carry up to tokens_per_chunk tokens (all of a speculative step).
Plan make_plan(const CompletionRequest& req, const MockSettings& s, uint64_t seq);

/// Prompt "tokens" for the prefix cache without a tokenizer: one unit per 4 bytes (the simple
/// counting rule's unit), unit k being bytes [4k, 4k+4) big-endian. Read in place: a 100 MB prompt
/// costs no array of units.
inline size_t text_units(std::string_view rendered) { return (rendered.size() + 3) / 4; }
uint64_t text_unit(std::string_view rendered, size_t k);

/// A vLLM-style prefix cache over hash-chained blocks of `block_size` units. Thread-safe.
class PrefixCache {
 public:
  explicit PrefixCache(int block_size) : block_size_(block_size) {}
  /// Forgets every block (vLLM's POST /reset_prefix_cache).
  void reset() {
    std::lock_guard lock(mu_);
    blocks_.clear();
  }
  /// Tokens of a prompt of `count` units (`unit(k)` the k-th: a token id, or text_unit) already
  /// cached (whole leading blocks), then caches all its full blocks.
  template <class Unit>
  int64_t lookup_and_insert(size_t count, Unit unit) {
    const size_t bs = static_cast<size_t>(block_size_);
    std::vector<uint64_t> hashes;
    uint64_t h =
        1469598103934665603ULL;  // FNV-1a over the chain: a block's hash covers its whole prefix
    for (size_t b = 0; (b + 1) * bs <= count; ++b) {
      for (size_t k = b * bs; k < (b + 1) * bs; ++k) h = (h ^ unit(k)) * 1099511628211ULL;
      hashes.push_back(h);
    }
    return insert(hashes);
  }

 private:
  int64_t insert(const std::vector<uint64_t>& hashes);  // leading hits × block size; adds them all
  int block_size_;
  std::mutex mu_;
  std::unordered_set<uint64_t> blocks_;
};

/// What every running request shares: the batch.
struct BatchState {
  int running = 1;             ///< requests decoding now, this one included
  int running_min_tokens = 0;  ///< of those, requests that carry min_tokens
};

/// One decode step of one request.
struct Step {
  double ms = 0;     ///< duration of the step
  int tokens = 1;    ///< tokens it produced (1 + accepted drafts)
  int drafted = 0;   ///< draft tokens proposed (spec decoding)
  int accepted = 0;  ///< draft tokens accepted
};

/// The per-request step model. Deterministic in (settings.seed, sequence number).
class StepModel {
 public:
  StepModel(const MockSettings& s, uint64_t seq);
  double ttft_ms();                    ///< prefill time, jitter included
  Step next(const BatchState& batch);  ///< the next decode step

 private:
  const MockSettings& s_;
  std::mt19937_64 rng_;
};

/// Text of token j (a short word with a leading space).
std::string_view token_text(uint64_t j);

struct ChunkUsage {
  int64_t prompt = 0;
  int64_t completion = 0;
  int64_t cached =
      -1;  ///< prompt_tokens_details.cached_tokens; -1 = not reported (no prefix cache)
};

/// One streaming chunk's JSON. `text` empty with role=true is vLLM's role-only first chunk.
/// A tool call answer (chat): the first delta names the tool (`name` and `id` set), later ones
/// carry only argument text, as vLLM streams them.
struct ToolDelta {
  std::string_view name;  ///< set on the call's first delta only
  std::string_view id;
};
std::string stream_chunk(bool chat, std::string_view id, std::string_view model, int64_t created,
                         bool role, std::string_view text, std::string_view finish_reason,
                         const std::optional<ChunkUsage>& usage, int64_t index = 0,
                         const ToolDelta* tool = nullptr, std::string_view reasoning = {});
/// The `choices: []` usage chunk sent after the last content when include_usage is set.
std::string usage_chunk(bool chat, std::string_view id, std::string_view model, int64_t created,
                        ChunkUsage usage);
/// The whole non-streaming body; without usage when `usage` is empty (--no-usage).
std::string full_body(bool chat, std::string_view id, std::string_view model, int64_t created,
                      std::string_view text, std::string_view finish_reason,
                      const std::optional<ChunkUsage>& usage, int64_t n = 1,
                      std::string_view tool_name = {}, std::string_view reasoning = {});
/// An OpenAI-style error body.
std::string error_body(std::string_view message, std::string_view type, int code);
/// GET /v1/models: the served model, then each --lora-modules name with it as parent (as vLLM lists
/// them).
std::string models_body(const MockSettings& s);

}  // namespace tokbench::mock
