#include "metrics/reasoning.hpp"

#include <fmt/format.h>

#include "metrics/accumulator.hpp"

namespace tokbench::metrics::detail {

using record::ChunkKind;
using record::kNone;

void ReasoningSplit::add(const record::RequestRecord& r) {
  if (!r.ok() || !r.stream || r.sent_ns == kNone) return;
  int64_t first_t = kNone, last_t = kNone, first_a = kNone, last_a = kNone;
  int64_t reasoning_events = 0, answer_events = 0, reasoning_count = kNone;
  for (const record::ChunkEvent& c : r.chunks) {
    if (c.choice != 0) continue;
    if (c.kind == ChunkKind::Reasoning) {
      if (first_t == kNone) first_t = c.t_ns;
      last_t = c.t_ns;
      ++reasoning_events;
      if (c.cum_tokens >= 0) reasoning_count = c.cum_tokens;
    } else if (c.kind == ChunkKind::Content || c.kind == ChunkKind::ToolCall) {
      if (first_a == kNone) first_a = c.t_ns;
      last_a = c.t_ns;
      ++answer_events;
    }
  }
  if (first_t == kNone) return;  // it did not reason
  constexpr double kNsPerMs = 1e6;
  first_reasoning_.push(static_cast<double>(first_t - r.sent_ns) / kNsPerMs);
  if (reasoning_count == kNone) {
    reasoning_count = reasoning_events;
    ++estimated_;
  }
  reasoning_tokens_.push(static_cast<double>(reasoning_count));
  if (reasoning_count > 1)
    reasoning_tpot_.push(static_cast<double>(last_t - first_t) / kNsPerMs /
                         static_cast<double>(reasoning_count - 1));
  if (first_a == kNone) return;  // it reasoned, and said nothing
  first_answer_.push(static_cast<double>(first_a - r.sent_ns) / kNsPerMs);
  const int64_t answer_count = r.completion_tokens != kNone
                                   ? std::max<int64_t>(0, r.completion_tokens - reasoning_count)
                                   : answer_events;
  answer_tokens_.push(static_cast<double>(answer_count));
  if (answer_count > 1)
    answer_tpot_.push(static_cast<double>(last_a - first_a) / kNsPerMs /
                      static_cast<double>(answer_count - 1));
}

void ReasoningSplit::columns(std::vector<std::pair<Samples*, PercentileMethod>>& out) {
  add_columns(out, PercentileMethod::Linear,
              {&first_reasoning_, &first_answer_, &reasoning_tokens_, &answer_tokens_,
               &reasoning_tpot_, &answer_tpot_});
}

void ReasoningSplit::finish(MetricSet& m) {
  const char* none = "no streamed answer reasoned (reasoning_content, reasoning or thinking)";
  m.extra_rows.push_back(make_row("TimeToFirstReasoning", Unit::Ms, first_reasoning_, none));
  m.extra_rows.push_back(make_row("TimeToFirstAnswer", Unit::Ms, first_answer_, none));
  m.extra_rows.push_back(make_row("ReasoningTokens", Unit::Tokens, reasoning_tokens_, none));
  m.extra_rows.push_back(make_row("AnswerTokens", Unit::Tokens, answer_tokens_, none));
  m.extra_rows.push_back(make_row("ReasoningTPOT", Unit::Ms, reasoning_tpot_, none));
  m.extra_rows.push_back(make_row("AnswerTPOT", Unit::Ms, answer_tpot_, none));
  if (first_reasoning_.empty()) return;
  auto mean = [&](const char* name) {
    const Row* r = m.row(name);
    return r && r->stats ? fmt::format("{:.3f}", r->stats->mean) : std::string("n/a");
  };
  m.notes.push_back(fmt::format(
      "{} answer(s) reasoned first: TTFT counts the first reasoning token (as AIPerf, GuideLLM "
      "since #742 and vLLM's server-side TTFT do), mean {} ms; the first answer token came at "
      "TimeToFirstAnswer, mean {} ms (AIPerf's TTFO, GuideLLM's TTFOT; the TTFT of tools that "
      "time the first content); reasoning {} tokens at {} ms each, the answer {} tokens at {} ms "
      "each{}",
      first_reasoning_.size(), mean("TimeToFirstReasoning"), mean("TimeToFirstAnswer"),
      mean("ReasoningTokens"), mean("ReasoningTPOT"), mean("AnswerTokens"), mean("AnswerTPOT"),
      estimated_ > 0 ? fmt::format("; {} answer(s)' reasoning tokens are counted in events (one "
                                   "token an event: an estimate; --continuous-usage makes it "
                                   "exact)",
                                   estimated_)
                     : std::string()));
}

}  // namespace tokbench::metrics::detail
