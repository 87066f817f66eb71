#pragma once
// series/sweep: what a sweep (a list in --concurrency, --request-rate or --num-prompts) adds to
// its points, as wiring: each point's row from its outcome, then the knee and the Pareto front
// (series/load_curve) and the summary files and page (series/sweep_page). Each point is a
// normal run folder beside sweep/.
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "plan/plan.hpp"
#include "point/outcome.hpp"
#include "series/load_curve.hpp"

namespace tokbench::runner {

using SweepRow = metrics::LoadPoint;
using metrics::find_knee;
using metrics::KneeAnalysis;
using metrics::pareto_front;

/// The load a point's row shows: its in-flight cap as it ran, its rate, its measured requests.
struct RowLoad {
  int in_flight = 0;
  double request_rate = 0;
  int64_t num_prompts = 0;
};
/// The row load of a plan at one point (plan/plan at_point).
RowLoad row_load(const RunPlan& point);

/// One point's row from its outcome; `x_name`: the load the series moves ("concurrency" or
/// "request_rate"). Shared by sweep/ and a server grid's summary.
SweepRow load_point_row(const std::string& label, const std::string& x_name, const RowLoad& load,
                        const RunOutcome& o);

class SweepSummary {
 public:
  SweepSummary(std::filesystem::path root, const LoadSettings& sweep);
  /// `x_name`: the load the sweep moved, "concurrency" or "request_rate" (a summary being rebuilt).
  SweepSummary(std::filesystem::path root, std::string x_name);
  void add(const std::string& label, const RowLoad& load, const RunOutcome& outcome);
  void add_failed(const std::string& label, const RowLoad& load, const std::string& why);
  /// The points the sweep was asked for, in order: any that did not complete (never ran, failed,
  /// interrupted) withholds the knee and is listed as missing.
  void expect(std::vector<std::string> labels) { expected_ = std::move(labels); }
  /// Writes sweep/summary.{csv,json} and sweep/sweep.html, prints the summary; the outcome's
  /// exit code is the worst point's (5 the disk stopped a point, 130 interrupted, 1 a point failed
  /// or had no success, 4 an INVALID point, else 0).
  RunOutcome finish(const std::optional<record::ServerProcessFacts>& server_process,
                    bool interrupted, std::FILE* console);

  const std::vector<SweepRow>& rows() const { return rows_; }

 private:
  std::filesystem::path root_;
  std::string x_name_;  ///< "concurrency" or "request_rate"
  std::vector<SweepRow> rows_;
  std::vector<std::string> expected_;
  std::optional<RunOutcome> last_;
  bool disk_stopped_ = false;  ///< a point's details file was refused: the series stopped there
};

}  // namespace tokbench::runner
