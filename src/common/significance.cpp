#include "common/significance.hpp"

#include <algorithm>
#include <cmath>

namespace tokbench::metrics {

MannWhitney mann_whitney(Samples& a, Samples& b) {
  MannWhitney r;
  const double n1 = static_cast<double>(a.size()), n2 = static_cast<double>(b.size());
  if (a.size() < 2 || b.size() < 2) return r;
  // Rank the pooled sample by walking both in ascending order; ties share their average rank.
  Samples::Reader ra(a), rb(b);
  Samples::Entry ea{}, eb{};
  bool more_a = ra.next(ea), more_b = rb.next(eb);
  double ranked = 0, rank_sum_a = 0, tie_term = 0;
  while (more_a || more_b) {
    const double v = !more_b || (more_a && ea.v <= eb.v) ? ea.v : eb.v;
    double in_a = 0, in_b = 0;
    for (; more_a && ea.v == v; more_a = ra.next(ea)) in_a += static_cast<double>(ea.n);
    for (; more_b && eb.v == v; more_b = rb.next(eb)) in_b += static_cast<double>(eb.n);
    const double t = in_a + in_b;
    rank_sum_a += in_a * (ranked + (t + 1) / 2);
    tie_term += t * t * t - t;
    ranked += t;
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

MannWhitney mann_whitney(const std::vector<double>& a, const std::vector<double>& b) {
  Samples sa, sb;
  for (double x : a) sa.push(x);
  for (double x : b) sb.push(x);
  return mann_whitney(sa, sb);
}

}  // namespace tokbench::metrics

namespace tokbench::metrics {

namespace {

// Continued fraction of the regularized incomplete beta function (modified Lentz).
double beta_fraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  if (std::abs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 300; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (std::abs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::abs(c) < kTiny) c = kTiny;
    d = 1 / d;
    h *= d * c;
    aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (std::abs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::abs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double del = d * c;
    h *= del;
    if (std::abs(del - 1) < 1e-15) break;
  }
  return h;
}

// I_x(a, b).
double incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
                                a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * beta_fraction(a, b, x) / a;
  return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

double mean_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

double sample_variance(const std::vector<double>& v, double mean) {
  double s = 0;
  for (double x : v) s += (x - mean) * (x - mean);
  return s / static_cast<double>(v.size() - 1);
}

}  // namespace

double student_t_cdf(double t, double df) {
  const double tail = 0.5 * incomplete_beta(df / 2, 0.5, df / (df + t * t));
  return t >= 0 ? 1 - tail : tail;
}

double student_t_quantile(double p, double df) {
  double lo = -1e6, hi = 1e6;
  for (int i = 0; i < 200 && hi - lo > 1e-12 * std::max(1.0, std::abs(lo)); ++i) {
    const double mid = (lo + hi) / 2;
    (student_t_cdf(mid, df) < p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

ConfidenceInterval confidence_interval(const std::vector<double>& values, double level) {
  ConfidenceInterval ci;
  ci.n = static_cast<int64_t>(values.size());
  ci.level = level;
  if (values.empty()) return ci;
  ci.mean = mean_of(values);
  if (values.size() < 2) {
    ci.half_width = ci.low = ci.high = std::nan("");
    return ci;
  }
  ci.stdev = std::sqrt(sample_variance(values, ci.mean));
  ci.std_error = ci.stdev / std::sqrt(static_cast<double>(values.size()));
  ci.cv = ci.mean != 0 ? ci.stdev / std::abs(ci.mean) : 0;
  ci.half_width =
      student_t_quantile((1 + level) / 2, static_cast<double>(values.size() - 1)) * ci.std_error;
  ci.low = ci.mean - ci.half_width;
  ci.high = ci.mean + ci.half_width;
  return ci;
}

double welch_p_value(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() < 2 || b.size() < 2) return 1;
  const double ma = mean_of(a), mb = mean_of(b);
  const double va = sample_variance(a, ma) / static_cast<double>(a.size());
  const double vb = sample_variance(b, mb) / static_cast<double>(b.size());
  if (va + vb == 0) return ma == mb ? 1 : 0;
  const double t = (ma - mb) / std::sqrt(va + vb);
  const double df =
      (va + vb) * (va + vb) /
      (va * va / static_cast<double>(a.size() - 1) + vb * vb / static_cast<double>(b.size() - 1));
  return 2 * (1 - student_t_cdf(std::abs(t), df));
}

}  // namespace tokbench::metrics
