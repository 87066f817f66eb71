#include "metrics/fairness.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace tokbench::metrics {

std::optional<double> jain_index(const std::vector<double>& x) {
  double sum = 0, squares = 0;
  for (double v : x) {
    sum += v;
    squares += v * v;
  }
  if (x.empty() || squares <= 0) return std::nullopt;
  return sum * sum / (static_cast<double>(x.size()) * squares);
}

Fairness fairness(const std::vector<ClassService>& classes, double duration_s) {
  if (!(duration_s > 0))
    throw std::invalid_argument(
        fmt::format("fairness over a run of {} s: give a duration > 0", duration_s));
  double weights = 0, tokens = 0;
  bool all_goodput = !classes.empty();
  for (const auto& c : classes) {
    if (!(c.weight > 0))
      throw std::invalid_argument(
          fmt::format("class '{}': weight {} (give a weight > 0)", c.name, c.weight));
    weights += c.weight;
    tokens += static_cast<double>(c.output_tokens);
    all_goodput = all_goodput && c.good_requests >= 0;
  }
  Fairness f;
  std::vector<double> throughput, goodput;
  double longest = -1;
  for (const auto& c : classes) {
    ClassFairness k;
    k.name = c.name;
    k.weight = c.weight;
    k.token_throughput = static_cast<double>(c.output_tokens) / duration_s;
    k.weighted_throughput = k.token_throughput / c.weight;
    if (c.good_requests >= 0) {
      k.goodput = static_cast<double>(c.good_requests) / duration_s;
      k.weighted_goodput = *k.goodput / c.weight;
      goodput.push_back(*k.weighted_goodput);
    }
    k.token_share = tokens > 0 ? static_cast<double>(c.output_tokens) / tokens : 0;
    k.weight_share = c.weight / weights;
    k.longest_wait_ms = c.longest_wait_ms;
    throughput.push_back(k.weighted_throughput);
    if (tokens > 0)
      f.largest_share_gap = std::max(f.largest_share_gap, std::abs(k.token_share - k.weight_share));
    if (c.longest_wait_ms > longest) {
      longest = c.longest_wait_ms;
      f.most_starved = c.name;
    }
    f.classes.push_back(std::move(k));
  }
  f.jain_throughput = jain_index(throughput);
  if (all_goodput) f.jain_goodput = jain_index(goodput);
  return f;
}

}  // namespace tokbench::metrics
