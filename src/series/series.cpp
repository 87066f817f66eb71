// series/series: one experiment against one target — a sweep's points, or one point in its own
// folder — and the choice among the series (search, repeats, sweep, one point) the flags make.
// Every series runs its points through point/'s PointSession, so each composes with multi-host
// runs the same way.
#include "series/series.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "point/outcome.hpp"
#include "point/points.hpp"
#include "series/interference.hpp"
#include "series/repeats.hpp"
#include "series/schema_pair.hpp"
#include "series/search.hpp"
#include "series/sweep.hpp"

namespace tokbench::runner {

namespace fs = std::filesystem;

namespace {

// A list in a load flag or in one --class's load: one run folder per point under one root, the
// target opened once.
RunOutcome run_sweep(RunPlan& plan, std::atomic<int>& stop, std::FILE* console,
                     const SeriesOptions& options) {
  const std::vector<PointSpec> specs = sweep_specs(plan);
  PointSession session(plan, stop, console, fmt::format("sweep of {} load points", specs.size()),
                       options);
  SweepSummary summary(session.root(), sweep_axis(plan));
  std::vector<std::string> labels;
  for (const PointSpec& s : specs) labels.push_back(s.label);
  summary.expect(labels);
  for (size_t i = 0; i < specs.size() && !session.stopped(); ++i) {
    const PointSpec& spec = specs[i];
    fmt::print(session.point_console(), "\n== sweep point {}/{}: {} ==\n", i + 1, specs.size(),
               spec.label);
    const RunPlan at = session.at(spec);
    const RowLoad load = row_load(at, spec.load_class);
    try {
      summary.add(spec.label, load, session.run(spec), class_loads(at));
    } catch (const std::exception& e) {
      summary.add_failed(spec.label, load, e.what());
      fmt::print(console, "sweep point {} stopped: {}\n", spec.label, e.what());
      break;  // the target is not usable: later points would fail the same way
    }
  }
  const auto server_process = session.close();
  RunOutcome out =
      session.finish([&] { return summary.finish(server_process, session.stopped(), console); });
  out.run_dir = session.root();
  return out;
}

}  // namespace

RunOutcome run_series(RunPlan& plan, std::atomic<int>& stop, std::FILE* console,
                      const SeriesOptions& options) {
  if (plan.cfg.experiment.searching()) return run_search(plan, stop, console, options);
  if (plan.cfg.experiment.interference) return run_interference(plan, stop, console, options);
  if (plan.cfg.experiment.repeats > 1) return run_repeats(plan, stop, console, options);
  if (plan.cfg.experiment.schema_paired) return run_schema_pair(plan, stop, console, options);
  // A grid's server point is a series folder even for one load point (a sweep of one).
  if (plan.cfg.sweep_points() > 1 || !options.root.empty())
    return run_sweep(plan, stop, console, options);
  return run_single(plan, stop, console);
}

}  // namespace tokbench::runner
