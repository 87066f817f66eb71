#include "series/load_curve.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "common/format.hpp"

namespace tokbench::metrics {

bool ran(const LoadPoint& p) { return p.verdict != "FAILED" && p.success > 0; }

KneeAnalysis find_knee(const std::vector<LoadPoint>& rows) {
  KneeAnalysis k;
  std::vector<size_t> live;
  for (size_t i = 0; i < rows.size(); ++i)
    if (ran(rows[i])) live.push_back(i);
  if (live.size() < 2) {
    k.text = "fewer than two points ran: no knee can be judged";
    return k;
  }
  double top = 0;
  for (size_t i : live) top = std::max(top, rows[i].output_token_throughput);
  size_t first_near = live.back();
  for (size_t i : live) {
    if (rows[i].output_token_throughput >= 0.9 * top) {
      first_near = i;
      break;
    }
  }
  const LoadPoint& f = rows[live.front()];
  const LoadPoint& n = rows[first_near];
  // The highest load was stopped past saturation: what it served is the server's ceiling, not a
  // throughput still rising; the knee lies below it.
  if (first_near == live.back() && n.verdict == "SATURATED") {
    const LoadPoint& below = rows[live[live.size() - 2]];
    k.text = fmt::format(
        "output token throughput is highest at {} ({} tok/s), which was past saturation "
        "(SATURATED: arrivals outran what the server serves), so that is about the server's "
        "ceiling; the knee lies between {} ({} tok/s) and {}: add loads between them to place it",
        n.label, format_short(n.output_token_throughput), below.label,
        format_short(below.output_token_throughput), n.label);
    return k;
  }
  if (first_near == live.back()) {
    k.still_rising = true;
    k.text = fmt::format(
        "output token throughput is still rising at the highest load ({}: {} tok/s, from {} tok/s "
        "at {}): "
        "no plateau in range; extend the sweep to find the knee",
        n.label, format_short(n.output_token_throughput), format_short(f.output_token_throughput),
        f.label);
    return k;
  }
  k.knee = first_near;
  const LoadPoint& last = rows[live.back()];
  std::string latency;
  if (n.ttft_p99 && last.ttft_p99)
    latency = fmt::format("; TTFT P99 goes from {} ms there to {} ms at {}",
                          format_short(*n.ttft_p99), format_short(*last.ttft_p99), last.label);
  if (first_near == live.front()) {  // nothing rises: "rises from X (c2) to X at c2" said nothing
    k.text = fmt::format(
        "output token throughput is within 10% of its peak {} tok/s already at the lowest load "
        "({}: {} tok/s) and stays there: the knee is at or below {}; add lower loads to place "
        "it{}",
        format_short(top), n.label, format_short(n.output_token_throughput), n.label, latency);
    return k;
  }
  k.text = fmt::format(
      "output token throughput rises from {} tok/s ({}) to {} tok/s at {}, then flattens: every "
      "higher load "
      "stays within 10% of the peak {} tok/s. The knee is {}{}",
      format_short(f.output_token_throughput), f.label, format_short(n.output_token_throughput),
      n.label, format_short(top), n.label, latency);
  return k;
}

std::vector<size_t> pareto_front(const std::vector<LoadPoint>& rows) {
  std::vector<size_t> out;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (!ran(rows[i]) || !rows[i].per_user_tokens_per_s) continue;
    bool dominated = false;
    for (size_t j = 0; j < rows.size() && !dominated; ++j) {
      if (j == i || !ran(rows[j]) || !rows[j].per_user_tokens_per_s) continue;
      const double ti = rows[i].output_token_throughput, tj = rows[j].output_token_throughput;
      const double ui = *rows[i].per_user_tokens_per_s, uj = *rows[j].per_user_tokens_per_s;
      dominated = tj >= ti && uj >= ui && (tj > ti || uj > ui);
    }
    if (!dominated) out.push_back(i);
  }
  return out;
}

std::string falling_accuracy(const std::vector<LoadPoint>& rows, const std::string& x_name) {
  const LoadPoint* base = nullptr;
  std::string lower;
  for (const auto& r : rows) {
    if (!r.accuracy) continue;
    if (!base) {
      base = &r;
      continue;
    }
    if (*r.accuracy_high < *base->accuracy_low)
      lower += fmt::format("{}{:.3f} at {:g}", lower.empty() ? "" : ", ", *r.accuracy, r.load);
  }
  if (lower.empty()) return {};
  return fmt::format(
      "accuracy {:.3f} at {} {:g}, {}: below the lowest load's 95% interval [{:.3f}, {:.3f}] as "
      "load rises "
      "(the server answers worse under load: check batch-dependent kernels, KV-cache precision, "
      "speculative "
      "decoding)",
      *base->accuracy, x_name, base->load, lower, *base->accuracy_low, *base->accuracy_high);
}

}  // namespace tokbench::metrics
