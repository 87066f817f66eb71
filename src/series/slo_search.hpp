#pragma once
// series/slo_search: the highest load that meets every SLO, found the explainable way, with no
// I/O: probe upward from the minimum, doubling, until a probe fails (the bracket), then bisect
// between the last pass and the first failure down to the resolution. A probe whose SLO value lies
// within the margin of its bound is repeated once; when the two disagree it is "uncertain" and
// counts as a failure (the answer errs low, never high). series/search runs the probes.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "metrics/slo.hpp"

namespace tokbench::metrics {

/// One probe, as the history shows it.
struct Probe {
  std::string label;  ///< its folder
  double load = 0;
  bool pass = false;
  bool uncertain = false;  ///< too close to call: repeated, and the two runs disagreed
  std::vector<std::optional<double>>
      values;           ///< one per SLO, in --slo order (nullopt: n/a, a failure)
  std::string verdict;  ///< the run's verdict (an INVALID run fails the probe)
  std::string why;      ///< why it failed, in words
  std::optional<double> accuracy, accuracy_low,
      accuracy_high;  ///< --check-answers: with its 95% Wilson interval
};

/// Where to search: `run_probe(load)` runs one load point and returns its probe (series/search
/// runs real ones; the tests, fake ones).
struct SearchSpace {
  bool integer = true;  ///< concurrency (integers) or rate
  double min = 1, max = 1024, resolution = 1;
  bool relative_resolution = false;  ///< rate default: resolution is a share of the lower bound
};
struct SearchResult {
  std::optional<double> answer;  ///< the highest load that passed; nullopt: even the first failed
  std::string text;              ///< the answer in one sentence (and why, when there is none)
  std::vector<Probe> history;
};
/// One probe as the search counts it: run once; when an SLO value is within `margin` of its bound,
/// run again, and when the two disagree the probe is uncertain and fails.
Probe decide_probe(const std::function<Probe()>& run_once, const std::vector<RunSlo>& slos,
                   double margin, const std::function<bool()>& stopped);

SearchResult bracket_and_bisect(const SearchSpace& space,
                                const std::function<Probe(double)>& run_probe,
                                const std::function<bool()>& stopped);

/// Within the margin of a bound, on either side, of any SLO: one more run decides.
bool too_close(const Probe& p, const std::vector<RunSlo>& slos, double margin);

/// A load as the search's texts write it (an integer for concurrency).
std::string load_text(double x, bool integer);

}  // namespace tokbench::metrics
