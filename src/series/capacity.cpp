#include "series/capacity.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "common/format.hpp"

namespace tokbench::metrics {

namespace {

std::string figure(const CapacityCandidate& c) {
  std::string s = format_round4(*c.value);
  if (c.half_width) s += " ± " + format_round4(*c.half_width);
  return s;
}

}  // namespace

CapacityChoice choose_configuration(const std::vector<CapacityCandidate>& candidates,
                                    const std::string& what) {
  std::vector<size_t> order;
  for (size_t i = 0; i < candidates.size(); ++i)
    if (candidates[i].value) order.push_back(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return *candidates[a].value > *candidates[b].value; });
  CapacityChoice out;
  const std::string cond = what.empty() ? "" : " " + what;
  for (const auto& c : candidates)
    if (!c.missing.empty()) out.missing.push_back(c.name + ": " + c.missing);
  if (!out.missing.empty()) {
    std::string list;
    for (const auto& m : out.missing) list += (list.empty() ? "" : "; ") + m;
    out.text = fmt::format(
        "no recommendation: {} of {} configuration(s) did not complete ({}), and any of them "
        "could be the best",
        out.missing.size(), candidates.size(), list);
    return out;
  }
  if (order.empty()) {
    out.text = fmt::format("no configuration has a VALID point{}: nothing to recommend", cond);
    return out;
  }
  out.best = order[0];
  const CapacityCandidate& b = candidates[order[0]];
  out.text = fmt::format("recommended: {}, {} output tokens/s per device{} (at {})", b.name,
                         figure(b), cond, b.at);
  if (order.size() == 1) {
    out.text += candidates.size() > 1 ? "; it is the only configuration with an answer"
                                      : "; the only configuration";
    return out;
  }
  out.runner_up = order[1];
  const CapacityCandidate& r = candidates[order[1]];
  if (*r.value > 0) out.margin = *b.value / *r.value - 1;
  out.text += fmt::format(
      ", {} above the next, {} ({} at {})",
      out.margin ? fmt::format("{:.1f}%", 100 * *out.margin) : std::string("infinitely"), r.name,
      figure(r), r.at);
  if (b.half_width && r.half_width) {
    out.beyond_noise = *b.value - *b.half_width > *r.value + *r.half_width;
    out.text += *out.beyond_noise ? "; the intervals do not overlap"
                                  : "; the intervals overlap: the difference is within the noise "
                                    "(more --repeats may tell)";
  } else {
    out.text += "; one run per point, so no interval (add --repeats N to the grid for one)";
  }
  return out;
}

}  // namespace tokbench::metrics
