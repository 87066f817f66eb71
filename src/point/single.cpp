// point/single: one load point in its own run folder, the experiment of a plain `tokbench run`.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstdio>

#include "cluster/cluster.hpp"
#include "measure/measure.hpp"
#include "point/cluster_run.hpp"
#include "point/points.hpp"
#include "point/stages.hpp"
#include "runfolder/files.hpp"

namespace tokbench::runner {

namespace fs = std::filesystem;

RunOutcome run_single(RunPlan& plan, std::atomic<int>& stop, std::FILE* console) {
  const bool root = cluster::world().rank == 0;
  const RankStart start = start_ranks();
  std::FILE* quiet = root ? nullptr : std::fopen("/dev/null", "w");
  std::FILE* out = root ? console : quiet;
  const fs::path dir =
      root ? runfolder::make_run_dir(plan.cfg.output.output_dir, start.wall) : scratch_dir("run");
  auto log = make_logger(dir);
  log_rank(*log, start);
  runfolder::RunManifest manifest = asked(plan, start.wall);
  manifest.info.run_id = run_id(start);
  runfolder::write_manifest(dir, manifest);
  const OpenTarget target = open_logged(plan, dir, *log, out);
  if (plan.cfg.experiment.reset_prefix_cache && root)  // as before each point of a series
    if (const std::string why = reset_prefix_cache(*target, plan, *log); !why.empty())
      fmt::print(out, "--reset-prefix-cache: {}; the run goes on with whatever the cache holds\n",
                 why);
  const SharedPoint point =
      measure_point(plan, *target, manifest, dir, *log, stop, out, start.clock);
  const auto server_process = close_target(*target, dir, *log, out);
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

}  // namespace tokbench::runner
