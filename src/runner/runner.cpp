#include "runner/runner.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <ctime>

#include "cluster/cluster.hpp"
#include "runfolder/files.hpp"
#include "runner/cluster_run.hpp"
#include "runner/grid.hpp"
#include "runner/plan.hpp"
#include "runner/points.hpp"
#include "runner/repeats.hpp"
#include "runner/resume.hpp"
#include "runner/search.hpp"
#include "runner/stages.hpp"
#include "runner/sweep.hpp"
#include "runner/target.hpp"

namespace tokbench::runner {

namespace fs = std::filesystem;

namespace {

// A list in a load flag: one run folder per point under one root, the target opened once.
RunOutcome run_sweep(RunPlan& plan, std::atomic<int>& stop, std::FILE* console,
                     const SeriesOptions& options) {
  const std::vector<PointSpec> specs = sweep_specs(plan);
  PointSession session(plan, stop, console, fmt::format("sweep of {} load points", specs.size()),
                       options);
  SweepSummary summary(session.root(), plan.cfg);
  std::vector<std::string> labels;
  for (const PointSpec& s : specs) labels.push_back(s.label);
  summary.expect(labels);
  for (size_t i = 0; i < specs.size() && !session.stopped(); ++i) {
    const PointSpec& spec = specs[i];
    fmt::print(session.point_console(), "\n== sweep point {}/{}: {} ==\n", i + 1, specs.size(),
               spec.label);
    const RowLoad load = row_load(session.at(spec));
    try {
      summary.add(spec.label, load, session.run(spec));
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

// One load point in its own run folder. Under mpirun every rank runs this with the same flags:
// rank 0 writes the folder; the others work in a scratch folder of their own, removed at the
// end, and say nothing (runner/cluster_run.hpp).
RunOutcome run_single(RunPlan& plan, std::atomic<int>& stop, std::FILE* console) {
  const bool root = cluster::world().rank == 0;
  const RankStart start = start_ranks();
  std::FILE* quiet = root ? nullptr : std::fopen("/dev/null", "w");
  std::FILE* out = root ? console : quiet;
  const fs::path dir =
      root ? runfolder::make_run_dir(plan.cfg.output_dir, start.wall) : scratch_dir("run");
  auto log = make_logger(dir);
  log_rank(*log, start);
  runfolder::RunManifest manifest = asked(plan, start.wall);
  manifest.info.run_id = run_id(start);
  runfolder::write_manifest(dir, manifest);
  Target target = open_logged(plan, dir, *log, out);
  if (plan.cfg.reset_prefix_cache && root)  // as before each point of a series
    if (const std::string why = reset_server_cache(plan, target.url, *log); !why.empty())
      fmt::print(out, "--reset-prefix-cache: {}; the run goes on with whatever the cache holds\n",
                 why);
  const SharedPoint point =
      measure_point(plan, target, manifest, dir, *log, stop, out, start.clock);
  const auto server_process = target.close(dir, *log, out);
  if (point.result.interrupted)
    log->warn("interrupted: stopped sending; in-flight requests drained or cancelled");
  RunOutcome outcome;
  if (root) {
    runfolder::write_end(dir, end_of(point, server_process));
    outcome = conclude(plan, dir, point.result, *log, console);
  } else {
    std::fclose(quiet);
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  return outcome;
}

// The experiment the flags ask for: a server grid (one series per server configuration,
// runner/grid), else one series. Each series runs its points through a PointSession, so each
// composes with multi-host runs the same way.
RunOutcome run_experiment(RunPlan& plan, std::atomic<int>& stop, std::FILE* console,
                          const SeriesOptions& options) {
  if (!plan.cfg.server_grid.empty()) return run_grid(plan, stop, console, options);
  return run_series(plan, stop, console, options);
}

}  // namespace

RunOutcome run_series(RunPlan& plan, std::atomic<int>& stop, std::FILE* console,
                      const SeriesOptions& options) {
  if (plan.cfg.searching()) return run_search(plan, stop, console, options);
  if (plan.cfg.repeats > 1) return run_repeats(plan, stop, console, options);
  // A grid's server point is a series folder even for one load point (a sweep of one).
  if (plan.cfg.sweep_points() > 1 || !options.root.empty())
    return run_sweep(plan, stop, console, options);
  return run_single(plan, stop, console);
}

namespace {

bool is_series(const RunConfig& c) {
  return c.searching() || c.repeats > 1 || c.sweep_points() > 1;
}

}  // namespace

RunOutcome run_benchmark(const RunConfig& requested, std::atomic<int>& stop, std::FILE* console) {
  RunPlan plan = make_plan(requested, std::getenv("OPENAI_API_KEY"));
  SeriesOptions options;
  if (!plan.cfg.resume.empty()) {  // the same series, in its own folder: its VALID points kept
    check_resumable(plan.cfg.resume, plan.requested.to_json());
    options.root = plan.cfg.resume;
    options.resume = true;
  }
  const cluster::World& world = cluster::world();
  if (world.size == 1) return run_experiment(plan, stop, console, options);
  // mpirun -np N: rank 0 runs the experiment; the others run their share of each point it sends.
  if (const auto problems = cluster_problems(plan.cfg, world.size); !problems.empty())
    throw std::invalid_argument(fmt::format("{}", fmt::join(problems, "\n")));
  RunOutcome out = world.rank == 0 || !is_series(plan.cfg)
                       ? run_experiment(plan, stop, console, options)
                       : serve_points(plan, stop, console);
  out.exit_code = static_cast<int>(cluster::broadcast(static_cast<int64_t>(out.exit_code)));
  return out;
}

}  // namespace tokbench::runner
