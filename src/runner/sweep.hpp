#pragma once
// runner/sweep: what a sweep (a list in --concurrency, --request-rate or --num-prompts) adds to
// its points: sweep/summary.csv and sweep/summary.json (one row per point: the load, throughputs,
// TTFT/TPOT/E2EL mean and P99, goodput, verdict), where throughput stops growing (the knee, by a
// stated rule), and sweep/sweep.html (throughput–latency curves, the per-user vs total tokens/s
// Pareto front, the knee marked). Each point is a normal run folder beside sweep/.
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "runner/run_config.hpp"
#include "runner/runner.hpp"

namespace tokbench::runner {

/// One point of a sweep, as the summary shows it.
struct SweepRow {
  std::string label;           ///< the point's folder name ("c4", "r2.5")
  double load = 0;             ///< the swept value (concurrency or request rate; +inf allowed)
  int concurrency = 1;
  double request_rate = 0;
  int64_t num_prompts = 0;
  std::string verdict;         ///< VALID | INVALID | FAILED (did not run to its end)
  std::string why;             ///< the verdict's reasons, or why it failed
  double request_throughput = 0, output_token_throughput = 0, total_token_throughput = 0;
  std::optional<double> per_user_tokens_per_s;  ///< mean per-request output token throughput
  std::optional<double> ttft_mean, ttft_p99, tpot_mean, tpot_p99, e2el_mean, e2el_p99;
  std::optional<double> goodput;  ///< request goodput (req/s) when --goodput was given
  int64_t success = 0;
};

/// Where throughput stops growing. Rule: the knee is the lowest load whose output token
/// throughput reaches 90 % of the sweep's highest; "flattens" when every higher load stays
/// within 10 % of that highest; "still rising" when the highest load is the only one within 10 %.
struct KneeAnalysis {
  std::optional<size_t> knee;  ///< index into the rows sorted by load
  bool still_rising = false;
  std::string text;            ///< one sentence for the console, the JSON and the page
};

/// Analyses rows sorted by load (failed points are skipped).
KneeAnalysis find_knee(const std::vector<SweepRow>& rows);

/// The rows on the Pareto front of (total output tokens/s, per-user tokens/s): no other point
/// is at least as good on both and better on one. Indices into `rows`.
std::vector<size_t> pareto_front(const std::vector<SweepRow>& rows);

class SweepSummary {
 public:
  SweepSummary(std::filesystem::path root, const RunConfig& sweep);
  void add(const std::string& label, const RunConfig& point, const RunOutcome& outcome);
  void add_failed(const std::string& label, const RunConfig& point, const std::string& why);
  /// Writes sweep/summary.{csv,json} and sweep/sweep.html, prints the summary; the outcome's
  /// exit code is the worst point's (130 interrupted, 1 a point failed or had no success, 4 an
  /// INVALID point, else 0).
  RunOutcome finish(const std::string& server_process_json, bool interrupted, std::FILE* console);

  const std::vector<SweepRow>& rows() const { return rows_; }

 private:
  SweepRow base(const std::string& label, const RunConfig& point) const;

  std::filesystem::path root_;
  std::string x_name_;  ///< "concurrency" or "request_rate"
  std::vector<SweepRow> rows_;
  std::optional<RunOutcome> last_;
};

}  // namespace tokbench::runner
