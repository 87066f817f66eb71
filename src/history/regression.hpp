#pragma once
// history/regression: is the newest run of a scenario worse than its baseline, beyond the noise?
// Pure functions over a metric's series (one value per VALID run, oldest first):
// - the baseline's robust band: median ± kBandMads × 1.4826 × MAD (the MAD scaled to a normal
//   sigma), which one outlier in the baseline cannot widen;
// - a change is a regression only when it is worse (the metric's direction), larger than the
//   threshold, and outside the band (and, where the folders' records are at hand, significant
//   by Mann–Whitney against the pooled requests of the kPooledRuns typical baseline runs: the
//   caller says);
// - change points by binary segmentation: the split of a segment that most reduces the squared
//   error around the segments' means is kept when the reduction exceeds a BIC-style penalty,
//   2·σ²·ln(n), with σ estimated robustly from successive differences (1.4826·MAD(diff)/√2), and
//   when the segments' means differ by more than the threshold; each segment has at least
//   kMinSegment runs and the shorter one lies wholly beyond the longer one's band, so one outlier
//   run (a busy machine's slow P99) is never dated as a change.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tokbench::history {

inline constexpr double kBandMads = 3.0;
inline constexpr size_t kMinBaseline =
    3;  ///< fewer earlier VALID runs: no band, the change is not judged

inline constexpr size_t kMinSegment = 2;  ///< runs on each side of a change point

/// Baseline runs whose requests Mann–Whitney pools. One run was too few: a typical run-level value
/// can hide a stalled first wave (4 of 12 requests at twice the TPOT), whose per-request ranks then
/// vetoed a real +30% step (p = 0.175). Three bounds the records read to three runs' worth.
inline constexpr size_t kPooledRuns = 3;

/// Whether a larger value is worse (latencies) or a smaller one (throughputs, counts of successes).
bool higher_is_worse(std::string_view metric);

struct Band {
  double median = 0, mad = 0, low = 0, high = 0;
  size_t n = 0;
};
/// The band of `baseline` (at least kMinBaseline values), else nullopt.
std::optional<Band> robust_band(std::vector<double> baseline);

struct Judgement {
  std::string metric;
  double value = 0;     ///< the newest run's
  double baseline = 0;  ///< the baseline's median
  double change = 0;    ///< (value - baseline) / baseline; 0 when the baseline is 0
  std::optional<Band> band;
  bool worse = false, beyond_threshold = false, outside_band = false;
  std::optional<double>
      p_value;  ///< Mann–Whitney on the per-request values, when both folders were read
  bool regression = false;
  std::string why;  ///< one line a person reads
};

/// The indices of up to `k` runs of `values` nearest `median`, nearest first (ties: the newer,
/// i.e. the later index) — the baseline runs whose per-request values Mann–Whitney pools.
std::vector<size_t> typical_runs(const std::vector<double>& values, double median,
                                 size_t k = kPooledRuns);

/// Judges `value` against `baseline` (earlier VALID runs' values, oldest first).
Judgement judge(std::string metric, double value, const std::vector<double>& baseline,
                double threshold, std::optional<double> p_value = std::nullopt,
                double alpha = 0.05);

/// The indices where a new segment starts (ascending; empty: no change). A split is kept only when
/// the two sides' means also differ by more than `min_shift` of the earlier side's (a step
/// smaller than the threshold a person set is not a change worth dating).
std::vector<size_t> change_points(const std::vector<double>& series, double min_shift);

}  // namespace tokbench::history
