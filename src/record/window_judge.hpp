#pragma once
// record/window_judge: how an in-run controller judges one window of finished requests against
// its SLOs, as an interface: load/ (the controller) asks it, metrics/ (which knows the SLOs'
// statistics) implements it, and neither includes the other.
#include <optional>
#include <string>
#include <vector>

#include "record/record.hpp"

namespace tokbench::record {

/// One window's judgement: each SLO's statistic (nullopt: no value, e.g. every request failed)
/// and whether all of them held.
struct WindowJudgement {
  std::vector<std::optional<double>> values;
  bool pass = false;
};

class WindowJudge {
 public:
  virtual ~WindowJudge() = default;
  /// A request of the current window (a failed one breaks every SLO).
  virtual void add(const RequestRecord& r) = 0;
  /// Judges the window's requests, then forgets them for the next window.
  virtual WindowJudgement close() = 0;
  /// The SLOs as written ("ttft.p99<=500ms"), in the order of `values`.
  virtual std::vector<std::string> names() const = 0;
};

}  // namespace tokbench::record
