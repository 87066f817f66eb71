#pragma once
// metrics/server_times (internal to metrics/): the server's own per-answer times where its answers
// carry them — llama.cpp's `timings`, Ollama's durations, MindIE /infer's step times — kept as
// rows beside the client's (ServerPromptTime, ServerTimePerToken, ServerLoadTime, ServerQueueTime
// from TGI's /generate headers), a note that
// sets each beside its client counterpart, and the model loads the answers say they waited for
// (MetricSet::server_load, which the verdict warns of: a cold start measured as if warm).
#include <utility>
#include <vector>

#include "common/samples.hpp"
#include "metrics/metrics.hpp"
#include "record/record.hpp"

namespace tokbench::metrics::detail {

class ServerTimes {
 public:
  /// A successful request's record.
  void add(const record::RequestRecord& r);
  /// The samples, for the accumulator's column list (one percentile pass over all).
  void columns(std::vector<std::pair<Samples*, PercentileMethod>>& out);
  /// The rows, the note beside the client's TTFT and TPOT (`m`'s rows), and `server_load`.
  void finish(MetricSet& m);

 private:
  Samples prompt_, per_token_, load_, queue_;
  ServerLoad loads_;
};

}  // namespace tokbench::metrics::detail
