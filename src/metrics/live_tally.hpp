#pragma once
// metrics/live_tally: what a load point has done so far, per traffic class — measured requests by
// outcome, and fixed-bucket histograms of E2EL, TTFT, TPOT, time to first chunk, chunk gaps and
// token counts — fed one finished record at a time on measure/recorder's thread (never a client
// worker's) and read whole at any time: the source of --otlp-endpoint's metrics (and of a live
// /metrics). Its memory is fixed: bucket counts, not samples. The buckets are the OpenTelemetry
// GenAI semantic conventions' advice (gen-ai-metrics.md: operation duration, token usage, and the
// server's TTFT and TPOT), so a collector's view lines up with other GenAI instrumentation; a
// quantile read from them is a bucket's edge, not tokbench's exact figure (result.json has those).
#include <cstdint>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "record/record.hpp"

namespace tokbench::metrics {

/// Explicit-bucket histogram: counts[i] holds values <= bounds[i] (and > bounds[i-1]); the last
/// count holds values above every bound (OTLP's and Prometheus' convention).
struct BucketHistogram {
  std::vector<double> bounds;
  std::vector<uint64_t> counts;
  uint64_t count = 0;
  double sum = 0;

  BucketHistogram() = default;
  explicit BucketHistogram(std::span<const double> edges);
  void add(double v);
};

/// Per traffic class ("" when the run has none).
struct ClassTally {
  int64_t ok = 0, failed = 0, cancelled = 0, cut = 0;  ///< measured requests finished
  // Successful requests only (tokbench's definitions, docs/METRICS.md), in seconds:
  BucketHistogram e2el_s, ttft_s, tpot_s;
  BucketHistogram first_chunk_s;  ///< sent → first SSE event (GenAI time_to_first_chunk)
  BucketHistogram chunk_gap_s;    ///< between text chunks (GenAI time_per_output_chunk)
  BucketHistogram input_tokens, output_tokens;
  ClassTally();
  int64_t finished() const { return ok + failed + cancelled + cut; }
};

class LiveTally {
 public:
  /// A measured record (warm-up ones are ignored). Any thread; cheap (a lock and a few adds).
  void add(const record::RequestRecord& r);
  /// Every class so far, by name.
  std::map<std::string, ClassTally> snapshot() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, ClassTally> classes_;
};

/// The outcome's category as the tally counts it: "ok", "failed", "cancelled" (let go by
/// --cancel-rate, or in flight when a stop ended the phase), "cut" (a duration's end).
std::string_view outcome_category(record::Outcome o);

}  // namespace tokbench::metrics
