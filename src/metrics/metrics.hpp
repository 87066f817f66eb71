#pragma once
// metrics/: PURE functions from RequestRecords to the numbers people quote, under a named set of
// definitions (tokbench's own, or AISBench's exactly as coded). No I/O, no formatting beyond
// the names and units a report needs. docs/METRICS.md is the prose form of this file.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/choice.hpp"
#include "common/stats.hpp"
#include "metrics/quality.hpp"
#include "record/record.hpp"

namespace tokbench::metrics {

enum class Definitions {
  Tokbench,   ///< first token = first chunk with generated text; per-token ITL; TPOT over >1 token
  Aisbench,   ///< AISBench's summarizer: first data event, per-chunk ITL, zeros kept, 4-decimal
              ///< rounding
  Evalscope,  ///< EvalScope perf v1.10: first event with choices, usage chunk in E2E, zeros kept,
              ///< nearest-rank
  Vllm,       ///< vllm bench serve: first event with choices, E2E to the last event with choices
  Sglang,     ///< SGLang bench_serving: first text, E2E to [DONE]
};

/// Every definition set, in the order the side-by-side table shows them.
inline constexpr Definitions kAllDefinitions[] = {Definitions::Tokbench, Definitions::Aisbench,
                                                  Definitions::Evalscope, Definitions::Vllm,
                                                  Definitions::Sglang};

/// --compat's spellings (each names a tool's definitions and request body).
inline constexpr Choices<Definitions, 5> kDefinitionChoices{{{{Definitions::Tokbench, "tokbench"},
                                                              {Definitions::Aisbench, "aisbench"},
                                                              {Definitions::Evalscope, "evalscope"},
                                                              {Definitions::Vllm, "vllm"},
                                                              {Definitions::Sglang, "sglang"}}}};

inline std::string_view definitions_name(Definitions d) { return kDefinitionChoices.name(d); }
inline std::optional<Definitions> definitions_from_name(std::string_view name) {
  return kDefinitionChoices.parse(name);
}

/// --goodput "ttft:500 tpot:50 e2el:20000": per-request SLOs in ms (metrics/slo parses and judges).
struct GoodputSpec {
  std::optional<double> ttft_ms, tpot_ms, e2el_ms;
  bool empty() const { return !ttft_ms && !tpot_ms && !e2el_ms; }
  std::string to_string() const;  ///< the canonical "ttft:500 tpot:50" form ("" when empty)
};

/// What the run was configured with (facts the records alone cannot tell).
struct RunFacts {
  int max_concurrency = 1;  ///< the configured in-flight cap
  bool stream = true;
  bool open_loop =
      false;  ///< requests had intended send times (--request-rate): the *_FromIntended rows
  /// The API generates nothing (embeddings, rerank: one answer per request, client::ApiCaps
  /// `generates`): the output rows are n/a. Manifests before it said "embeddings" for
  /// this.
  bool one_shot = false;
  /// Every event carries the cumulative output count (SGLang's native /generate, ApiCaps
  /// `per_token_counts`): its bench_serving splits each chunk gap over the chunk's new tokens for
  /// ITL, where on OpenAI endpoints it does not. Manifests before it said "native_generate".
  bool per_token_counts = false;
  /// --continuous-usage asked for per-chunk usage (stream_options.continuous_usage_stats).
  bool continuous_usage = false;
  double implied_cache_hit =
      -1;  ///< trace replay: the prompt share its hash_ids put in cache (-1 = none)
  /// The API's defined finish reasons, comma-separated, and the one that means the output cap cut
  /// the answer (client::ApiCaps): metrics/quality's integrity counts; "" = nothing generated.
  std::string finish_reasons = "stop,length,tool_calls,content_filter,function_call";
  std::string cap_reason = "length";
  GoodputSpec goodput{};  ///< empty: no goodput rows
};

enum class Unit { Ms, TokensPerS, Tokens, Requests, ReqPerS, DocsPerS, None };
std::string_view unit_suffix(Unit u);  ///< "ms", "token/s", "req/s", "doc/s" or ""

/// One row of the Performance Parameters table.
struct Row {
  std::string name;  ///< E2EL, TTFT, TPOT, ITL, InputTokens, ...
  Unit unit = Unit::None;
  std::optional<Summary> stats;  ///< empty when not applicable; see na_reason
  std::string na_reason;         ///< e.g. "non-streaming"
  std::string note;              ///< caveat shown under the table (e.g. estimated ITL)
};

/// One row of the Common Metric table.
struct Common {
  std::string name;  ///< "Benchmark Duration"
  std::string key;   ///< "benchmark_duration" (result.json)
  double value = 0;
  Unit unit = Unit::None;
  bool known = true;  ///< false: no request told it (e.g. input tokens without usage): n/a, never 0
};

/// Multi-turn sessions: the requests of one turn index (turn 1 is the first), as means.
struct TurnRow {
  int64_t turn = 0;      ///< 1-based
  int64_t requests = 0;  ///< successful requests of this turn
  std::optional<double> ttft_ms, e2el_ms, input_tokens,
      cached_tokens;  ///< means; empty when none told it
};

/// The server's prefix-cache hits as its answers told them (usage's cached prompt tokens: vLLM's
/// and SGLang's prompt_tokens_details.cached_tokens, llama.cpp's too, Anthropic's
/// cache_read_input_tokens, SGLang /generate's meta_info.cached_tokens), over the successful
/// requests that told them.
struct PrefixCache {
  int64_t requests = 0;      ///< requests whose answer said how many prompt tokens were cached
  int64_t hit_requests = 0;  ///< of them, those with at least one cached token
  double cached_tokens = 0;  ///< their cached prompt tokens, summed
  double prompt_tokens = 0;  ///< their prompt tokens (usage), summed
  bool intended = false;     ///< the workload is built to hit the cache (multi-turn, a trace)
  double share() const { return prompt_tokens > 0 ? cached_tokens / prompt_tokens : 0; }
};

/// The model loads the server's answers say they waited for (Ollama's load_duration: from the
/// request's arrival to a runner ready for it), over the successful requests whose answers said.
struct ServerLoad {
  /// A wait this long is a load or reload of the model; a loaded one answers in a few ms.
  static constexpr double kWaitedMs = 100;
  int64_t requests = 0;  ///< answers that carried a load time
  int64_t waited = 0;    ///< of them, those that waited kWaitedMs or more
  double waited_ms = 0;  ///< their load times, summed
  double most_ms = 0;    ///< the longest
};

struct MetricSet {
  Definitions definitions = Definitions::Tokbench;
  std::optional<PrefixCache> prefix_cache;  ///< empty: no answer said (not "no hits")
  std::optional<ServerLoad> server_load;    ///< empty: no answer said
  std::vector<TurnRow> turns;  ///< multi-turn runs only (tokbench's definitions): per turn index
  std::vector<Row> rows;
  std::vector<Common> common;
  std::vector<Row> extra_rows;  ///< not in the AISBench table: TTFT to first event, send lag, ICL
  int64_t observed_max_concurrency = 0;
  int64_t itl_estimated_requests = 0;     ///< requests whose per-chunk token counts were inferred
  int64_t output_tokens_from_chunks = 0;  ///< requests without usage: tokens = text chunks
  int64_t token_mismatches = 0;    ///< usage and the local tokenizer disagree on output tokens
  std::vector<std::string> notes;  ///< caveats of the headline figures: every view shows them
  std::vector<std::string>
      detail_notes;  ///< about the extra rows only: the full tables and the files, not the summary
  Quality quality;   ///< what came back: accuracy, integrity, determinism (the same in every
                     ///< definition set)

  const Row* row(std::string_view name) const;
  const Common* common_metric(std::string_view key) const;
};

/// A statistic by name: mean, median (or p50), p75, p90, p99, min, max; nullopt for another name.
std::optional<double> statistic(const Summary& s, std::string_view stat);
/// That statistic of a row of `m` (extra rows included); nullopt when the row is absent or n/a.
std::optional<double> row_statistic(const MetricSet& m, std::string_view row,
                                    std::string_view stat);

/// Computes the statistics of a stream of records under several definition sets in one pass:
/// add() every record (warm-up records are ignored) in the order they were written, then
/// finish(). Memory is bounded (common/samples spills to disk), whatever the run's length, and
/// the results are identical to holding every record in memory.
class MetricsPass {
 public:
  /// Sets also named in `side_only` are wanted only for their side-by-side column (TTFT, TPOT,
  /// ITL, E2EL, output throughput): their per-request token rows are not computed (n/a).
  MetricsPass(const RunFacts& facts, const std::vector<Definitions>& sets,
              const std::vector<Definitions>& side_only = {});
  ~MetricsPass();
  MetricsPass(MetricsPass&&) noexcept;
  void add(const record::RequestRecord& r);
  /// One MetricSet per definition set, in the order given. Call once.
  std::vector<MetricSet> finish();

 private:
  void add_goodput(MetricSet& m) const;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Computes every statistic from the measured records (warm-up records are ignored).
MetricSet compute(const std::vector<record::RequestRecord>& records, const RunFacts& facts,
                  Definitions definitions);

/// Output tokens of one request: usage.completion_tokens, else the --tokenizer count of the
/// generated text, else the number of text chunks.
int64_t output_tokens(const record::RequestRecord& r);
/// Input tokens: usage.prompt_tokens, else the --tokenizer count of the prompt, else kNone.
int64_t input_tokens(const record::RequestRecord& r);

/// Per-token inter-token gaps of one streaming request (see docs/METRICS.md: a chunk carrying k
/// tokens contributes k equal gaps; extra tokens in the first chunk give zero gaps), as
/// fn(gap_ns, count) in chunk order, so that no allocation is sized by a token count the server
/// sent. Returns true when per-chunk token counts had to be spread evenly (estimated).
bool for_each_token_gap(const record::RequestRecord& r,
                        const std::function<void(double gap_ns, int64_t count)>& fn);

/// When one successful request's output tokens arrived, as fn(t_ns, tokens) in chunk order: a text
/// chunk carries its usage delta when the server sent per-chunk usage, else the output spread
/// evenly over the text chunks; a non-streaming answer (or one with no text chunk) arrives whole
/// at its end. Returns true when tokens were spread (an estimate: chunks are not tokens).
bool for_each_token_arrival(const record::RequestRecord& r,
                            const std::function<void(int64_t t_ns, double tokens)>& fn);

/// n > 1: each choice is its own token stream. Calls fn once per choice with a record of that
/// choice alone (its events, first and last token, and its share of the output tokens, in index
/// order), or once with `r` itself when it has one choice or is not streamed. `split` is true when
/// the shares are estimates: usage counts the choices together, and the choices' text chunks were
/// not one token each.
void for_each_choice(
    const record::RequestRecord& r,
    const std::function<void(const record::RequestRecord& choice, bool split)>& fn);

/// The same gaps expanded into a vector (tests and small records only).
std::vector<double> per_token_gaps_ns(const record::RequestRecord& r, bool* estimated);

/// One request under a peer's rules (EvalScope, vLLM, SGLang; docs/METRICS.md): where its first
/// token is (kNone: no such event) and where it ends.
struct PeerTiming {
  int64_t first_ns = record::kNone;
  int64_t end_ns = record::kNone;
};
PeerTiming peer_timing(const record::RequestRecord& r, Definitions d);
/// The request's inter-chunk gaps under that peer's rules, in chunk order.
void for_each_peer_gap(const record::RequestRecord& r, Definitions d,
                       const std::function<void(double gap_ns)>& fn, bool per_token_counts = false);

/// One column of the side-by-side definitions table: the same records under one tool's rules.
struct DefinitionColumn {
  Definitions definitions;
  std::optional<Summary> ttft, tpot, itl, e2el;  ///< ms; empty when not applicable
  double output_token_throughput = 0;            ///< token/s over that tool's duration
};

/// The column of one computed MetricSet.
DefinitionColumn definition_column(const MetricSet& m);

/// The records under every definition set (streaming runs), for "how much is definition".
std::vector<DefinitionColumn> definitions_side_by_side(
    const std::vector<record::RequestRecord>& records, const RunFacts& facts);

/// The value of one metric for one request under tokbench's definitions (measured, successful
/// requests only; nullopt otherwise): "E2EL", "TTFT", "TPOT" in ms, "OutputTokenThroughput" in
/// token/s. For significance tests.
std::optional<double> request_value(const record::RequestRecord& r, std::string_view metric);

/// Human-readable definition of each metric under `d`, for reports and result.json.
std::vector<std::pair<std::string, std::string>> definition_texts(Definitions d);

}  // namespace tokbench::metrics
