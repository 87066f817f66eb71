#pragma once
// metrics/slo: service-level objectives in two forms. Per request (goodput, as vLLM and
// DistServe define it): a request is good when it succeeded and met every SLO given (TTFT, TPOT,
// E2EL in ms, tokbench's definitions; a 1-token answer has no TPOT and meets a TPOT SLO, as in
// vLLM). Per run (an SLO search): a statistic of a metric against a bound, "ttft.p99<=500ms".
// Pure: parsing and judging, no I/O.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/metrics.hpp"
#include "record/record.hpp"
#include "record/window_judge.hpp"

namespace tokbench::metrics {

/// Parses a --goodput value ("ttft:500 tpot:50 e2el:20000": ms, any subset, spaces or commas);
/// throws std::invalid_argument naming the bad part and the form.
GoodputSpec parse_goodput(std::string_view text);

/// How one request fared against a GoodputSpec (only the SLOs the spec names are judged).
struct SloResult {
  std::optional<bool> ttft, tpot, e2el;  ///< nullopt: not in the spec
  bool good = false;                     ///< succeeded and met every SLO of the spec
};

/// Judges one measured request (a warm-up one misses every SLO: it is not measured). Failed
/// requests are never good; a streaming-only SLO (TTFT, TPOT) on a request without generated text
/// is missed.
SloResult judge_slo(const record::RequestRecord& r, const GoodputSpec& spec);

/// One run-level SLO of a search: `metric`.`stat` <= `bound_ms` (e.g. ttft.p99<=500ms).
struct RunSlo {
  std::string metric;  ///< TTFT, TPOT, ITL, E2EL (the table's row names)
  std::string stat;    ///< mean, p50, p75, p90, p99 (lower-case)
  double bound_ms = 0;
  std::string name() const;  ///< "ttft.p99"
  std::string text() const;  ///< "ttft.p99<=500ms"
  /// The value of this SLO's statistic in `m`, or nullopt when the row is n/a.
  std::optional<double> value(const MetricSet& m) const;
};

/// Parses --slo "ttft.p99<=500ms,tpot.p90<=50ms"; throws std::invalid_argument naming the fix.
std::vector<RunSlo> parse_run_slos(std::string_view text);

/// The in-run controller's judge (load/adaptive): each SLO's statistic over a window's requests,
/// a failed request counting as breaking every SLO; the window holds when every one does.
std::unique_ptr<record::WindowJudge> slo_window_judge(std::vector<RunSlo> slos);

}  // namespace tokbench::metrics
