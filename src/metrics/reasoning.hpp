#pragma once
// metrics/reasoning (internal to metrics/): the reasoning split of streamed answers that reason
// before they answer (docs/METRICS.md, "Reasoning split"). From a record's chunk kinds (T: a
// reasoning event; C or K: the answer's content or a tool call), choice 0:
//  - TimeToFirstReasoning: the first reasoning event - sent (tokbench's TTFT for such an answer,
//    as AIPerf's, GuideLLM's since #742 and vLLM's server-side TTFT count it);
//  - TimeToFirstAnswer: the first content or tool-call event - sent (AIPerf's TTFO, GuideLLM's
//    TTFOT; the TTFT of tools that time the first content);
//  - ReasoningTokens, AnswerTokens: the reasoning part's tokens are the usage count its last
//    event carried (--continuous-usage), else its events (one token an event: an estimate where
//    a server sends several, said in the note); the answer's are the output tokens less those;
//  - ReasoningTPOT, AnswerTPOT: each phase's (last event - first event) / (its tokens - 1).
#include <cstdint>
#include <utility>
#include <vector>

#include "common/samples.hpp"
#include "metrics/metrics.hpp"
#include "record/record.hpp"

namespace tokbench::metrics::detail {

class ReasoningSplit {
 public:
  /// A successful streamed request's record (others are not split).
  void add(const record::RequestRecord& r);
  void columns(std::vector<std::pair<Samples*, PercentileMethod>>& out);
  /// The rows (n/a when no answer reasoned) and a note naming each peer's TTFT for such a stream.
  void finish(MetricSet& m);

 private:
  Samples first_reasoning_, first_answer_, reasoning_tokens_, answer_tokens_, reasoning_tpot_,
      answer_tpot_;
  int64_t estimated_ = 0;  // answers whose reasoning tokens were counted in events
};

}  // namespace tokbench::metrics::detail
