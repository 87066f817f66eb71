#pragma once
// metrics/fairness: how evenly a shared server served its traffic classes (issue 43, item 3) —
// the figures a fairness scheduler (vLLM's priority policy, llm-d's flow control, VTC) is judged
// by, from what each class received over one run (docs/METRICS.md, "Fairness"):
//  - each class's output-token throughput and goodput, divided by its weight (x_k = T_k / w_k);
//  - Jain's index over them, J = (Σ x_k)² / (n · Σ x_k²): 1 when every class got service in
//    proportion to its weight, 1/n when one class got it all;
//  - each class's share of the tokens against its share of the weights (the dispersion a
//    VTC-style scheduler bounds), and the largest gap between the two;
//  - starvation: each class's longest wait before its first token (or its whole answer).
// Pure arithmetic over per-class sums; the caller adds them up from the records.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tokbench::metrics {

/// What one class received over the run.
struct ClassService {
  std::string name;
  double weight = 1;           ///< its share of the server, relative to the others' (> 0)
  int64_t output_tokens = 0;   ///< successful requests' output tokens
  int64_t good_requests = -1;  ///< requests meeting its SLOs (-1: no SLO, no goodput)
  double longest_wait_ms = 0;  ///< its longest wait for a first token (a whole answer unstreamed)
};

struct ClassFairness {
  std::string name;
  double weight = 1;
  double token_throughput = 0;     ///< output tokens per second of the run
  double weighted_throughput = 0;  ///< token_throughput / weight
  std::optional<double> goodput;   ///< good requests per second (with SLOs)
  std::optional<double> weighted_goodput;
  double token_share = 0;   ///< its output tokens / all classes' output tokens
  double weight_share = 0;  ///< its weight / the sum of the weights
  double longest_wait_ms = 0;
};

struct Fairness {
  std::vector<ClassFairness> classes;
  /// Jain's index over the weighted token throughputs (nullopt with no tokens at all).
  std::optional<double> jain_throughput;
  /// Jain's index over the weighted goodputs (nullopt unless every class has an SLO and any
  /// request was good).
  std::optional<double> jain_goodput;
  double largest_share_gap = 0;  ///< max over classes of |token_share - weight_share|
  std::string most_starved;      ///< the class with the longest wait ("" with none)
};

/// Jain's fairness index of `x`: (Σx)² / (n·Σx²); nullopt for an empty list or all zeros.
std::optional<double> jain_index(const std::vector<double>& x);

/// The fairness of `classes` over a run of `duration_s` seconds. Throws std::invalid_argument on
/// a weight <= 0 or a duration <= 0 (the caller's error, named).
Fairness fairness(const std::vector<ClassService>& classes, double duration_s);

}  // namespace tokbench::metrics
