#pragma once
// series/sweep: what a sweep (a list in --concurrency, --request-rate or --num-prompts) adds to
// its points, as wiring: each point's row from its outcome, then the knee and the Pareto front
// (series/load_curve) and the summary files and page (series/sweep_page). Each point is a
// normal run folder beside sweep/.
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "plan/plan.hpp"
#include "point/outcome.hpp"
#include "series/load_curve.hpp"
#include "series/sweep_page.hpp"

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
/// The row load of a plan at one point (plan/plan at_point); `load_class` named: that --class's
/// own load (a sweep over one class's load); none named in a run of classes: theirs summed.
RowLoad row_load(const RunPlan& point, const std::string& load_class = "");
/// Each --class's own load at one point, in the plan's order (none without classes).
using ClassLoads = std::vector<std::pair<std::string, RowLoad>>;
ClassLoads class_loads(const RunPlan& point);

/// What a sweep moves: its axis ("concurrency" or "request_rate") and whose load it is.
struct SweepAxis {
  std::string x_name = "concurrency";
  std::string load_class;  ///< the --class whose list it is ("": the run's lists)
};
SweepAxis sweep_axis(const RunPlan& plan);

/// One point's row from its outcome; `x_name`: the load the series moves ("concurrency" or
/// "request_rate"). Shared by sweep/ and a server grid's summary.
SweepRow load_point_row(const std::string& label, const std::string& x_name, const RowLoad& load,
                        const RunOutcome& o);

class SweepSummary {
 public:
  SweepSummary(std::filesystem::path root, SweepAxis axis);
  /// `classes`: each --class's own load at the point; with the outcome's class figures (its
  /// class_metrics) they make the point's class rows.
  void add(const std::string& label, const RowLoad& load, const RunOutcome& outcome,
           const ClassLoads& classes = {});
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
  void print(std::FILE* console, const KneeAnalysis& knee, const std::string& falling) const;

  std::filesystem::path root_;
  SweepAxis axis_;
  std::vector<SweepRow> rows_;
  std::vector<report::ClassPoint> class_rows_;  ///< --class: each class at each point
  std::vector<std::string> expected_;
  std::optional<RunOutcome> last_;
  bool disk_stopped_ = false;  ///< a point's details file was refused: the series stopped there
};

}  // namespace tokbench::runner
