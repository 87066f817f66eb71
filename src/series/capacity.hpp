#pragma once
// series/capacity: which server configuration of a grid to recommend. Rule: among the
// configurations with an answer (a point that is VALID and meets every --slo), the highest output
// tokens/s per device at its best such point wins; the margin over the runner-up is stated, and
// with repeats the two confidence intervals say whether that margin is beyond the noise. Per
// device, with a price per device-hour, is also per dollar: the order is the same. Only from
// complete data: while any configuration is interrupted, failed to start or was not run, nothing
// is recommended (the missing one could be the best), and the choice names what is missing.
#include <optional>
#include <string>
#include <vector>

namespace tokbench::metrics {

/// One configuration's answer.
struct CapacityCandidate {
  std::string name;
  std::optional<double>
      value;  ///< output tokens/s per device at its best point; nullopt: no answer
  std::optional<double> half_width;  ///< repeats: the interval's half width (same units)
  int runs = 1;                      ///< runs behind `value` (repeats)
  std::string at;                    ///< where: the point's label ("c16")
  /// Why its data is incomplete ("interrupted", "failed to start", "not run"; "" = complete): a
  /// grid with such a configuration recommends nothing, since the missing one could be the best.
  std::string missing;
};

struct CapacityChoice {
  std::optional<size_t> best, runner_up;  ///< indices into the candidates
  std::optional<double> margin;           ///< best / runner_up - 1
  std::optional<bool> beyond_noise;       ///< both have intervals: they do not overlap
  std::string text;                       ///< one line for the console, the JSON and the page
  std::vector<std::string> missing;       ///< "name: why" of each incomplete configuration
};

/// `what`: the condition the answers met, for the text ("under ttft.p99<=500ms", or "").
CapacityChoice choose_configuration(const std::vector<CapacityCandidate>& candidates,
                                    const std::string& what);

}  // namespace tokbench::metrics
