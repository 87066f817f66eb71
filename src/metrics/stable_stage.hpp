#pragma once
// metrics/stable_stage: AISBench's stable stage ("稳态"), found from the records alone, with no
// tolerance to tune. The in-flight count is swept over every measured request's send and end
// (exact events, merged from two sorted columns: memory flat in the run's length). The window
// starts at the second send that brings the count to the configured concurrency (the first is
// the initial fill, AISBench's rule since its PR #464) and ends at the last event after which the
// count is at it; the stage's latency rows are the requests sent inside the window, and its
// duration is the window. When the count reached the concurrency fewer than twice, there is no
// stable stage, and the reason says so plainly.
// Where tokbench does better than AISBench: its throughputs count whole requests sent in the
// window over the window, which overstates them by up to one wave of requests (its docs' caveat:
// "only reliable if max E2EL < 1/3 of the duration"). Here output tokens are counted by their
// chunk's arrival inside the window, Concurrency is the exact time-average of the in-flight count
// over the window, and request throughput follows from Little's law (that average over the mean
// E2EL), input tokens with it. The law is taken for the successful requests alone (their own
// time-average in flight over their mean E2EL): failed requests hold places in flight too, and
// over the successful E2EL they would read as successes.
#include <cstdint>
#include <string>

#include "common/samples.hpp"
#include "metrics/metrics.hpp"
#include "record/record.hpp"

namespace tokbench::metrics {

struct StableWindow {
  bool found = false;
  int64_t start_ns = 0, end_ns = 0;  ///< ns since the run origin
  int level = 0;              ///< the in-flight count that defines it (the configured concurrency)
  int64_t peak = 0;           ///< the highest in-flight count seen
  double mean_in_flight = 0;  ///< the time-average in-flight count over the window
  std::string text;           ///< how it was found, or why there is none
  bool contains(int64_t t_ns) const { return found && t_ns >= start_ns && t_ns <= end_ns; }
};

class StableStageFinder {
 public:
  explicit StableStageFinder(int concurrency) : level_(concurrency) {}
  /// Every record (warm-up and cut ones are skipped).
  void add(const record::RequestRecord& r);
  StableWindow finish();

 private:
  int level_;
  Samples starts_, ends_;
};

/// What arrived inside the window, from every measured request (a pass over the records).
struct WindowArrivals {
  int64_t completed = 0;                   ///< successful requests that ended inside the window
  int64_t input_tokens = 0;                ///< their input tokens
  double output_tokens = 0;                ///< output tokens whose chunk arrived inside the window
  double first_half = 0, second_half = 0;  ///< the same, in each half of the window (is it steady?)
  int64_t spread_requests =
      0;  ///< requests whose per-chunk token counts were spread evenly (estimate)
  /// ∫ (successful requests in flight) dt over the window, ns: Little's law for the successful
  /// class (failed requests hold places in flight too, but are no throughput).
  double ok_in_flight_ns = 0;
  void add(const record::RequestRecord& r, const StableWindow& w);
};

/// The stage's common metrics: duration = the window; throughputs = what arrived inside it over
/// it; Concurrency = the time-average in-flight count. A note compares the output throughput of
/// the window's two halves: more than 10 % apart, the load was not steady inside it.
void restate_over_window(MetricSet& m, const StableWindow& w, const WindowArrivals& a);

}  // namespace tokbench::metrics
