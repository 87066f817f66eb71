#pragma once
// record/server_view: what the server said of a run, as the run folder keeps it: the deltas of
// its /metrics histograms and counters between the first and last scrape (ServerSummary), and
// each comparison of a client figure with the server's (CrossCheck). Nouns only: probe/ scrapes
// and summarises, report/ prints; both read these, neither includes the other.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace tokbench::record {

/// A histogram between two snapshots: cumulative bucket counts by upper bound.
struct HistogramDelta {
  std::vector<std::pair<double, double>> buckets;  ///< (le, cumulative count), +Inf last
  double sum = 0;
  double count = 0;

  double mean() const { return count > 0 ? sum / count : 0; }
  /// Prometheus' histogram_quantile: the bucket where rank q·count falls, linear within it; the
  /// +Inf bucket answers with the highest finite bound.
  std::optional<double> quantile(double q) const;
  /// The bucket the rank q·count falls in: (lower bound, upper bound), the upper +Inf past the
  /// last finite bound. All a coarse histogram knows for sure about the quantile.
  std::optional<std::pair<double, double>> quantile_bucket(double q) const;
};

struct ServerSummary {
  std::string url;
  std::string dialect;    ///< "vllm" or "sglang": whose names were read
  double duration_s = 0;  ///< between the first and the last scrape
  int64_t scrapes = 0;
  std::optional<HistogramDelta> ttft, itl, e2e, queue;  ///< seconds
  std::optional<double> generation_tokens,
      prompt_tokens;                                  ///< counter deltas; absent when not exposed
  std::optional<double> spec_acceptance_rate;         ///< accepted / draft tokens
  std::optional<double> spec_mean_acceptance_length;  ///< 1 + accepted / drafts
  std::vector<double>
      spec_acceptance_per_position;  ///< accepted at draft position k / drafts (vLLM)
  std::optional<HistogramDelta> prefill, decode,
      inference;                                ///< vLLM's split of a request's time (seconds)
  std::optional<double> prefix_cache_hit_rate;  ///< hit tokens / queried tokens (vLLM's counters)
  std::optional<double> preemptions;            ///< counter delta
  /// Requests the server aborted (vLLM's request_success_total{finished_reason="abort"}): a
  /// client that left, as --cancel-rate's requests do. Counter delta; absent when not exposed.
  std::optional<double> aborted;
  /// P/D disaggregation's KV transfer, as exposed (vllm:nixl_*, sglang:kv_transfer_*): a counter's
  /// delta, or a histogram's mean (its name without _sum), by name.
  std::vector<std::pair<std::string, double>> kv_transfer;
  std::vector<std::tuple<int64_t, double, double>> running_waiting;  ///< (t_ns, running, waiting)
  std::vector<std::pair<int64_t, double>>
      kv_usage;  ///< (t_ns, share of the KV cache in use) per scrape
};

/// The summary as JSON with everything needed to rebuild it (histogram buckets included): the
/// run folder keeps it, so `report` computes the same server view and cross-check as the run.
std::string summary_to_json(const ServerSummary& s);
/// Parses summary_to_json's output. Throws std::runtime_error naming what is wrong.
ServerSummary summary_from_json(std::string_view json);

/// One comparison of the client's figure with the server's.
struct CrossCheck {
  std::string what;
  double client = 0, server = 0;
  double tolerance = 0;  ///< relative ...
  double abs_tolerance =
      0;  ///< ... or absolute, whichever is larger (client overhead is a constant)
  bool agree = true;
  std::string note;
};

}  // namespace tokbench::record
