#include "metrics/significance.hpp"

#include <algorithm>
#include <cmath>

namespace tokbench::metrics {

MannWhitney mann_whitney(std::vector<double> a, std::vector<double> b) {
  MannWhitney r;
  const double n1 = static_cast<double>(a.size()), n2 = static_cast<double>(b.size());
  if (a.size() < 2 || b.size() < 2) return r;
  // Rank the pooled sample; ties share their average rank.
  std::vector<std::pair<double, int>> all;
  all.reserve(a.size() + b.size());
  for (double x : a) all.emplace_back(x, 0);
  for (double x : b) all.emplace_back(x, 1);
  std::sort(all.begin(), all.end());
  double rank_sum_a = 0, tie_term = 0;
  for (size_t i = 0; i < all.size();) {
    size_t j = i;
    while (j < all.size() && all[j].first == all[i].first) ++j;
    const double avg_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
    const double t = static_cast<double>(j - i);
    tie_term += t * t * t - t;
    for (size_t k = i; k < j; ++k)
      if (all[k].second == 0) rank_sum_a += avg_rank;
    i = j;
  }
  r.u = rank_sum_a - n1 * (n1 + 1) / 2;
  r.effect = r.u / (n1 * n2);
  const double n = n1 + n2;
  const double mean_u = n1 * n2 / 2;
  const double var_u = n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1)));
  if (var_u <= 0) return r;  // every value identical: no evidence of a difference
  const double diff = r.u - mean_u;
  r.z = (diff - (diff > 0 ? 0.5 : diff < 0 ? -0.5 : 0)) / std::sqrt(var_u);
  r.p_value = std::erfc(std::abs(r.z) / std::sqrt(2.0));
  return r;
}

}  // namespace tokbench::metrics
