#include "runner/runner.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <cstdlib>

#include "cluster/cluster.hpp"
#include "plan/plan.hpp"
#include "point/points.hpp"
#include "point/resume.hpp"
#include "series/grid.hpp"
#include "series/series.hpp"

namespace tokbench::runner {

namespace {

// The experiment the flags ask for: a server grid (one series per server configuration,
// series/grid), else one series. Each series runs its points through a PointSession, so each
// composes with multi-host runs the same way.
RunOutcome run_experiment(RunPlan& plan, std::atomic<int>& stop, std::FILE* console,
                          const SeriesOptions& options) {
  if (!plan.cfg.target.server_grid.empty()) return run_grid(plan, stop, console, options);
  return run_series(plan, stop, console, options);
}

}  // namespace

RunOutcome run_benchmark(const RunConfig& requested, std::atomic<int>& stop, std::FILE* console) {
  RunPlan plan = make_plan(requested, std::getenv("OPENAI_API_KEY"));
  SeriesOptions options;
  // --resume: the same series, in its own folder, its VALID points kept.
  if (!plan.cfg.experiment.resume.empty()) {
    check_resumable(plan.cfg.experiment.resume, plan.requested.to_json());
    options.root = plan.cfg.experiment.resume;
    options.resume = true;
  }
  const cluster::World& world = cluster::world();
  if (world.size == 1) return run_experiment(plan, stop, console, options);
  // mpirun -np N: rank 0 runs the experiment; the others run their share of each point it sends.
  if (const auto problems = plan.cfg.multi_host_problems(world.size); !problems.empty())
    throw std::invalid_argument(fmt::format("{}", fmt::join(problems, "\n")));
  RunOutcome out = world.rank == 0 || !plan.cfg.is_series()
                       ? run_experiment(plan, stop, console, options)
                       : serve_points(plan, stop, console);
  out.exit_code = static_cast<int>(cluster::broadcast(static_cast<int64_t>(out.exit_code)));
  return out;
}

}  // namespace tokbench::runner
