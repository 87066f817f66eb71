#pragma once
// load/adaptive: an in-run load controller, like AIPerf's adaptive scale. One --duration-s run
// in windows of --adaptive-window-s: while every --slo holds over a window (judged on the
// requests sent at that window's concurrency and finished inside it), the concurrency doubles;
// after the first window that breaks one, it bisects between the last level that held and the
// first that broke, then holds at the highest level that held. Every window — its level, its SLO
// values, pass or fail, what the controller did next — is kept for the report.
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "load/source.hpp"
#include "record/run_parts.hpp"
#include "record/window_judge.hpp"

namespace tokbench::load {

using record::AdaptiveWindow;

class AdaptiveSource final : public RequestSource {
 public:
  /// Starts at `start` in flight, never above `max`; `window_ns` per judgment; `duration_ns` in
  /// all. `judge` holds the SLOs (metrics/slo's slo_window_judge).
  AdaptiveSource(int start, int max, int64_t window_ns, int64_t duration_ns,
                 std::unique_ptr<record::WindowJudge> judge, core::RequestMaker make);
  void start(int64_t phase_start_ns) override;
  Pull next(int64_t now_ns) override;
  void completed(record::RequestRecord& r) override;
  int64_t planned() const override { return -1; }

  /// The windows judged so far (call after the run).
  std::vector<AdaptiveWindow> windows() const;
  /// The highest level that held ("" when none did), in words.
  std::string summary() const;
  /// The controller's record for the run folder: its rule, SLOs, windows and the level that held.
  record::AdaptiveLog log() const;

 private:
  void judge_until(int64_t now_ns);  // closes every window that has ended (mu_ held)
  int next_level(bool pass);

  std::unique_ptr<record::WindowJudge> judge_;
  core::RequestMaker make_;
  int level_, max_;
  int64_t window_ns_, duration_ns_;
  mutable std::mutex mu_;
  int64_t phase_ = 0, window_start_ = 0, level_since_ = 0, next_index_ = 0, in_flight_ = 0;
  int last_pass_ = 0, first_fail_ = 0;  // the bracket (0 = none yet)
  int64_t judged_ = 0;
  std::vector<AdaptiveWindow> windows_;
};

}  // namespace tokbench::load
