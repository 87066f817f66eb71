#pragma once
// probe/prometheus: the Prometheus text exposition format (what vLLM's /metrics serves) parsed
// into samples, and the arithmetic on them: counter deltas, and histogram-delta quantiles
// estimated as Prometheus' histogram_quantile does (linear inside the bucket).
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "record/server_view.hpp"

namespace tokbench::probe {

struct Sample {
  std::string name;                           ///< e.g. vllm:time_to_first_token_seconds_bucket
  std::map<std::string, std::string> labels;  ///< unescaped label values
  double value = 0;
};

/// Parses a /metrics body. Comments (# HELP, # TYPE) are skipped. Throws std::runtime_error
/// "line N: ..." on a malformed line.
std::vector<Sample> parse_text(std::string_view body);

/// A scrape: when (steady ns since the run origin) and what.
struct Snapshot {
  int64_t t_ns = 0;
  std::vector<Sample> samples;

  /// Sum over label sets of the samples named `name` (e.g. all model_name values); nullopt if none.
  std::optional<double> sum(std::string_view name) const;
};

using record::HistogramDelta;

/// `name` (without _bucket/_sum/_count) as the difference `after - before`; nullopt if absent.
std::optional<HistogramDelta> histogram_delta(const Snapshot& before, const Snapshot& after,
                                              const std::string& name);

}  // namespace tokbench::probe
