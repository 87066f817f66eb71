#pragma once
// series/load_curve: a series of load points against one server (a sweep), and what they say
// together — where throughput stops growing (the knee, by a stated rule) and which points are on
// the Pareto front of total against per-user tokens/s. Pure: series/sweep fills the points.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tokbench::metrics {

/// One point of a sweep, as its summary shows it.
struct LoadPoint {
  std::string label;  ///< the point's folder name ("c4", "r2.5")
  double load = 0;    ///< the swept value (concurrency or request rate; +inf allowed)
  int concurrency = 1;
  double request_rate = 0;
  int64_t num_prompts = 0;
  std::string verdict;  ///< VALID | INVALID | FAILED (did not run to its end)
  std::string why;      ///< the verdict's reasons, or why it failed
  double request_throughput = 0, output_token_throughput = 0, total_token_throughput = 0;
  std::optional<double> per_user_tokens_per_s;  ///< mean per-request output token throughput
  std::optional<double> ttft_mean, ttft_p99, tpot_mean, tpot_p99, e2el_mean, e2el_p99;
  std::optional<double> goodput;             ///< request goodput (req/s) when --goodput was given
  std::optional<double> j_per_output_token;  ///< --telemetry: when the energy is known
  std::optional<double> usd_per_m_output_tokens;  ///< --telemetry with a price
  int64_t success = 0;
  bool resumed = false;  ///< --resume: read back from its folder, not run again
  /// --check-answers: the point's accuracy with its 95% Wilson interval (empty: nothing scored).
  std::optional<double> accuracy, accuracy_low, accuracy_high;
  int64_t scored = 0;
};

/// Where throughput stops growing. Rule: the knee is the lowest load whose output token
/// throughput reaches 90 % of the sweep's highest; "flattens" when every higher load stays
/// within 10 % of that highest; "still rising" when the highest load is the only one within 10 %,
/// unless that load was SATURATED: then it is the server's ceiling and the knee lies below it.
struct KneeAnalysis {
  std::optional<size_t> knee;  ///< index into the rows sorted by load
  bool still_rising = false;
  std::string text;  ///< one sentence for the console, the JSON and the page
};

/// Analyses rows sorted by load (failed points are skipped).
KneeAnalysis find_knee(const std::vector<LoadPoint>& rows);

/// The rows on the Pareto front of (total output tokens/s, per-user tokens/s): no other point
/// is at least as good on both and better on one. Indices into `rows`.
std::vector<size_t> pareto_front(const std::vector<LoadPoint>& rows);

/// Quality that falls with load (--check-answers in a sweep): the lowest load with a scored
/// accuracy is the baseline, and each higher load whose interval lies wholly below the baseline's
/// is named, e.g. "accuracy 0.820 at concurrency 1, 0.640 at 64 (...)". "" when none does. Rows
/// sorted by load; `x_name` names the axis ("concurrency", "request_rate").
std::string falling_accuracy(const std::vector<LoadPoint>& rows, const std::string& x_name);

/// A point that ran to its end with at least one success (FAILED ones and empty ones do not count).
bool ran(const LoadPoint& p);

}  // namespace tokbench::metrics
