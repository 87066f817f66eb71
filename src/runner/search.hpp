#pragma once
// runner/search: `--search max-concurrency|max-rate --slo 'ttft.p99<=500ms,...'` — the highest
// load that meets every SLO, found the explainable way: probe upward from --search-min, doubling,
// until a probe fails (the bracket), then bisect between the last pass and the first failure down
// to the resolution. Each probe is a full run folder. A probe whose SLO value lies within
// --search-margin of its bound is repeated once; when the two disagree it is "uncertain" and
// counted as a failure (the answer errs low, never high). Writes search/search.json (answer,
// resolution, history of probes with their SLO values) and search/search.html.
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "metrics/slo.hpp"
#include "runner/plan.hpp"
#include "runner/runner.hpp"

namespace tokbench::runner {

/// One probe, as the history shows it.
struct Probe {
  std::string label;  ///< its folder
  double load = 0;
  bool pass = false;
  bool uncertain = false;  ///< too close to call: repeated, and the two runs disagreed
  std::vector<std::optional<double>> values;  ///< one per SLO, in --slo order (nullopt: n/a, a failure)
  std::string verdict;  ///< the run's verdict (an INVALID run fails the probe)
  std::string why;      ///< why it failed, in words
};

/// The search without I/O: `run_probe(load)` runs one load point and returns its probe. Used by
/// run_search and, with a fake prober, by the tests.
struct SearchSpace {
  bool integer = true;    ///< concurrency (integers) or rate
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
Probe decide_probe(const std::function<Probe()>& run_once, const std::vector<metrics::RunSlo>& slos, double margin,
                   const std::function<bool()>& stopped);

SearchResult bracket_and_bisect(const SearchSpace& space, const std::function<Probe(double)>& run_probe,
                                const std::function<bool()>& stopped);

/// Runs the search for `plan` (its cfg.search set), writes search/, returns the outcome (exit
/// code 0 when an answer was found, 1 when none, 130 when interrupted).
RunOutcome run_search(RunPlan& plan, std::atomic<int>& stop, std::FILE* console);

}  // namespace tokbench::runner
