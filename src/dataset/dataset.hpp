#pragma once
// dataset/: turns a dataset source into RequestSpecs — what to send, never how or when.
// Knows nothing about HTTP, time or tokens.
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/agent.hpp"
#include "core/request.hpp"
#include "dataset/spec.hpp"

namespace tokbench::tokenizer {
class Tokenizer;
}
namespace simdjson {
struct padded_string;
}

namespace tokbench::dataset {

using core::RequestSpec;  // the noun lives on the ground floor (core/request.hpp)
using core::SharedTools;

/// A recorded agent session (agent-trace:PATH), its messages in OpenAI chat's shape (minified
/// JSON, one a message) and its model turns: each sends the messages before its recorded answer.
struct RecordedSession {
  struct Turn {
    size_t context = 0;       ///< the messages this turn sends: the first `context`
    int64_t think_ns = 0;     ///< recorded wait after the last answer before it (0 on turn 0)
    int64_t max_tokens = -1;  ///< the recorded answer's output tokens; -1 = unknown (the run's)
  };
  std::string id;
  std::vector<std::string> messages;
  SharedTools tools;  ///< the tools the session offered (its line's "tools"); null = none
  std::vector<Turn> turns;
  /// The JSON array of the first `context` messages.
  std::string context_json(size_t context) const;
};

struct Dataset {
  std::string kind;  ///< "qa", "gsm8k", "lines", "sharegpt", "synthetic" or "builtin"
  std::string path;  ///< source file ("" for builtin)
  std::string abbr;  ///< file-name stem of outputs: <abbr>.csv, <abbr>_details.jsonl
  std::vector<RequestSpec> items;
  std::string summary;  ///< how it was built, for the console (sharegpt: what was kept and skipped)
  std::vector<int64_t> schedule_ns;  ///< trace: each item's send offset from the phase start (a
                                     ///< fixed schedule); empty = none
  double implied_cache_hit =
      -1;  ///< trace: prompt share an unbounded cache of full blocks would hold; -1 = not a trace
  /// Multi-turn conversations (sharegpt --multi-turn): (first item, turns); a conversation's turns
  /// are consecutive items. Empty = none (with --turns N, conversation c is items cN..cN+N-1).
  std::vector<std::pair<int64_t, int64_t>> conversations;
  /// Agent tasks (agent:FILE), item i being task i's first request; empty = none.
  std::vector<core::AgentTask> agents;
  /// Recorded agent sessions (agent-trace:PATH), item i being session i's first turn, and
  /// conversations (i, its turns); empty = none.
  std::vector<RecordedSession> recorded;
};

/// Loads `qa:PATH` (JSON lines with a "question" string, a chat "messages" array, or a "query"
/// with "documents" to rank; optional "answer", "max_tokens" and "model"), `gsm8k:PATH` (GSM8K's
/// test.jsonl as is; prompt = question, AISBench's perf template), `lines:PATH` (every non-blank
/// line is a prompt, EvalScope's line_by_line) or `builtin` (a few embedded prompts, for a first
/// run with no files). Throws std::invalid_argument for a malformed spec (a usage error) and
/// std::runtime_error naming the file and line, and the fix, on bad input. `sharegpt:PATH` needs a
/// tokenizer: sharegpt().
Dataset load(const Spec& spec);
Dataset load(std::string_view spec);  ///< the same for the flag's text (parse_spec)

/// `agent:PATH`: agent tasks (dataset/agent.cpp; docs/GUIDE.md, "Agents"). Throws
/// std::runtime_error naming the file, the line and the fix. parse_agents reads lines already open
/// (`dir`: where the tasks' result files are found).
Dataset load_agents(const Spec& spec);
Dataset parse_agents(std::string_view name, std::istream& in, const std::filesystem::path& dir);
/// `agent-trace:PATH`: recorded agent sessions (dataset/agent_trace.cpp; docs/GUIDE.md, "Recorded
/// agent sessions"): OpenAI chat logs ({"messages": [...]} a line) or a coding agent's transcript
/// (Claude Code's events, a line each). Throws std::runtime_error naming the line and the fix.
Dataset load_agent_trace(const Spec& spec);
Dataset parse_agent_trace(std::string_view name, std::istream& in);

/// The same for lines already open (`kind` "qa", "gsm8k" or "lines"; `name` stands for the path in
/// errors and in the outputs' file stem): load() reads its file through this; fuzzers and tests
/// call it on memory.
Dataset parse_lines(std::string_view kind, std::string_view name, std::istream& in);

struct SyntheticOptions {
  int64_t count = 100;     ///< prompts to build
  int64_t input_len = 0;   ///< N: tokens of each prompt as the server counts them
  int64_t output_len = 0;  ///< M: max_tokens of each request (sent with ignore_eos); 0 = none (an
                           ///< API that generates nothing)
  double input_len_range = 0;   ///< vLLM's range ratio: N_i uniform in [N(1-R), N(1+R)]
  int64_t prefix_len = 0;       ///< P: one shared random prefix of P tokens before every prompt
  double output_len_range = 0;  ///< M_i uniform in [M(1-R), M(1+R)] (its own random stream)
  uint64_t seed = 0;
  int64_t overhead = 0;  ///< tokens the server adds (chat template, BOS): subtracted
};

/// What building exact-length prompts needs from a tokenizer: the local one (--tokenizer) or the
/// server's /tokenize and /detokenize.
class TokenCodec {
 public:
  virtual ~TokenCodec() = default;
  virtual std::vector<int32_t> encode(const std::string& text) = 0;  ///< no special tokens
  virtual std::string decode(const std::vector<int32_t>& ids) = 0;
  /// Plain-text token ids to draw prompts from (no special, unknown or byte-fallback tokens).
  virtual std::vector<int32_t> pool() = 0;
  virtual std::string name() const = 0;  ///< for reports: "tokenizer.json" or "server /tokenize"
};

/// The local tokenizer as a codec (pool: the whole clean vocabulary).
std::unique_ptr<TokenCodec> local_codec(const tokenizer::Tokenizer& tok);

/// `synthetic`: random prompts drawn from the codec's pool whose encoding (without special
/// tokens) is exactly P + N_i - overhead tokens, verified by re-encoding; deterministic in the
/// seed for a given codec. Throws when a length cannot be reached (e.g. N_i - overhead < 1).
Dataset synthetic(const SyntheticOptions& o, TokenCodec& codec);

struct ShareGptOptions {
  int64_t count = 100;     ///< requests to keep (the run's --num-prompts)
  uint64_t seed = 0;       ///< shuffles the entries before taking them
  int64_t output_len = 0;  ///< > 0: every request's max_tokens (vLLM's --sharegpt-output-len); 0 =
                           ///< the answer's length
  bool multi_turn =
      false;  ///< whole conversations, each exchange a turn (`count` conversations, file order)
  int64_t max_turns = 0;  ///< multi_turn: at most this many turns per conversation; 0 = all
};

/// `sharegpt:PATH` under vllm bench serve's rules (dataset/sharegpt.cpp): the first turn is the
/// prompt, the second turn's token count (by `codec`, without special tokens) its max_tokens;
/// too-short and too-long pairs are skipped. Throws naming the file when nothing is usable.
Dataset sharegpt(const std::string& path, const ShareGptOptions& o, TokenCodec& codec);
/// The same over the file's text already in memory (simdjson-padded); `path` names it in errors.
Dataset sharegpt_from_json(const simdjson::padded_string& json, const std::string& path,
                           const ShareGptOptions& o, TokenCodec& codec);

struct TraceOptions {
  int64_t block_size = 512;  ///< prompt tokens per hash id (Mooncake's 512)
  double speed = 1;          ///< replay speed: 2 = twice as fast (timestamps / 2)
  int64_t count = 0;         ///< replay only the first N lines (in time order); 0 = all
  uint64_t seed = 0;         ///< the blocks' random text
  int64_t overhead =
      0;  ///< tokens the server adds around a prompt (chat template, BOS): taken off the last block
};

/// `trace:PATH`, Mooncake's JSON lines (dataset/trace.cpp): one request per line, its prompt built
/// block by block so that shared leading `hash_ids` are shared prompt tokens, `max_tokens` =
/// output_length, sent at its timestamp (schedule_ns). Throws naming the file and line.
Dataset trace(const std::string& path, const TraceOptions& o, TokenCodec& codec);

/// The share of prompt tokens an unbounded prefix cache of full blocks would hold, replaying
/// `hash_ids` in order: each request hits its leading ids seen before (whole blocks only).
double implied_prefix_hit(const std::vector<std::vector<int64_t>>& hash_ids,
                          const std::vector<int64_t>& input_lengths, int64_t block_size);

/// Makes every prompt a ranking (rerank): item i's prompt is the query and the prompts of the
/// `documents` items after it (cyclically) are its documents, so a prompt-only dataset (builtin,
/// lines, synthetic) serves an API that ranks. Items that carry a conversation lose it.
void rank_each_against_the_next(Dataset& d, int64_t documents);

/// Returns the i-th request of a run that cycles through the dataset.
inline const RequestSpec& cycle(const Dataset& d, size_t i) { return d.items[i % d.items.size()]; }

}  // namespace tokbench::dataset
