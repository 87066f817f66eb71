#include "series/slo_search.hpp"

#include <fmt/format.h>

#include <cmath>

#include "common/abbreviate.hpp"
#include "common/format.hpp"

namespace tokbench::metrics {

std::string load_text(double x, bool integer) {
  return integer ? fmt::format("{}", static_cast<int64_t>(x)) : format_round4(x);
}

bool too_close(const Probe& p, const std::vector<RunSlo>& slos, double margin) {
  for (size_t i = 0; i < slos.size(); ++i)
    if (p.values[i] && std::abs(*p.values[i] - slos[i].bound_ms) <= margin * slos[i].bound_ms)
      return true;
  return false;
}

Probe decide_probe(const std::function<Probe()>& run_once, const std::vector<RunSlo>& slos,
                   double margin, const std::function<bool()>& stopped) {
  const Probe first = run_once();
  if (stopped() || !too_close(first, slos, margin)) return first;
  Probe again = run_once();  // within the margin of a bound: one more run decides
  if (again.pass != first.pass) {
    again.uncertain = true;
    again.pass = false;  // the answer errs low, never high
    again.why = fmt::format(
        "too close to call: passed once and failed once within the {}% margin of a bound",
        margin * 100);
  }
  again.label = first.label + "," + again.label;  // both folders
  return again;
}

SearchResult bracket_and_bisect(const SearchSpace& space,
                                const std::function<Probe(double)>& run_probe,
                                const std::function<bool()>& stopped) {
  SearchResult r;
  std::optional<double> lo, hi;
  auto probe = [&](double x) {
    r.history.push_back(run_probe(x));
    return r.history.back().pass;
  };
  // Bracket: double from min until a probe fails or max passes.
  for (double x = space.min; !stopped();) {
    if (!probe(x)) {
      hi = x;
      break;
    }
    lo = x;
    if (x >= space.max) break;
    x = std::min(space.max, space.integer ? std::floor(2 * x) : 2 * x);
  }
  // Bisect: the answer lies in [lo, hi).
  auto wide = [&] {
    const double res = space.relative_resolution ? space.resolution * *lo : space.resolution;
    return *hi - *lo > res + 1e-12;
  };
  while (lo && hi && wide() && !stopped()) {
    double mid = (*lo + *hi) / 2;
    if (space.integer) mid = std::floor(mid);
    if (mid <= *lo || mid >= *hi) break;
    (probe(mid) ? lo : hi) = mid;
  }
  r.answer = lo;
  auto t = [&](double x) { return load_text(x, space.integer); };
  if (!lo && !r.history.empty() && r.history.front().verdict == "INVALID") {
    // The first probe's numbers could not be trusted: a lower load would not fix what made them so.
    r.text = fmt::format(
        "no answer: the first probe ({}) was INVALID ({}); fix what that names (its run folder's "
        "verdict says how) and search again; --search-min only moves the load",
        t(space.min), r.history.front().why);
  } else if (!lo) {
    r.text = fmt::format(
        "no load meets the SLOs: even the first probe ({}) failed ({}); lower --search-min",
        t(space.min), r.history.empty() ? "not run" : r.history.front().why);
  } else if (!hi) {
    r.text = fmt::format(
        "every probe up to --search-max {} met the SLOs: the answer is at least {}; raise "
        "--search-max",
        t(space.max), t(*lo));
  } else {
    r.text = fmt::format(
        "the highest load meeting every SLO is {} (the next probe, {}, failed: {}); resolution {}",
        t(*lo), t(*hi),
        [&] {
          for (const auto& p : r.history)  // its headline: search.json keeps the whole reason
            if (p.load == *hi) return headline(p.why, 100);
          return std::string();
        }(),
        space.relative_resolution ? fmt::format("{}%", space.resolution * 100)
                                  : t(space.resolution));
  }
  if (stopped()) {
    // Interrupted: what the probes so far say is not the answer (the bracket is not closed, or
    // not to the resolution); a script reading "answer" must not act on it.
    r.text = fmt::format(
        "no answer: the search was interrupted after {} probe(s){}; rerun with --resume to "
        "complete it",
        r.history.size(),
        lo ? fmt::format(" (so far {} met every SLO; the search had not closed in on the highest)",
                         t(*lo))
           : "");
    r.answer.reset();
  }
  return r;
}

}  // namespace tokbench::metrics
