// point/recompute: `tokbench report DIR` on one point's folder — every output recomputed from the
// folder alone (manifest, records, end marker), without touching the server (record once, analyze
// many). Another set of definitions is a view beside the run's own outputs, never over them.
#include "point/recompute.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "point/outputs.hpp"
#include "point/stages.hpp"
#include "runfolder/run_folder.hpp"

namespace tokbench::runner {

namespace fs = std::filesystem;

RunOutcome recompute_point(const fs::path& run_dir, const std::optional<std::string>& compat,
                           std::FILE* console, bool verbose) {
  const runfolder::RunFolder folder = runfolder::load_run_folder(run_dir);
  const std::string defs_name = compat.value_or(folder.manifest.definitions);
  const auto defs = metrics::definitions_from_name(defs_name);
  if (!defs) {
    throw std::invalid_argument(fmt::format("--compat: bad value '{}' (expected {})", defs_name,
                                            metrics::kDefinitionChoices.alternatives()));
  }
  const bool own = defs_name == folder.manifest.definitions;
  const fs::path out_dir = own ? run_dir : run_dir / "views" / defs_name;
  fs::create_directories(out_dir);
  const Written w = write_outputs(folder, *defs, out_dir, own);
  RunOutcome out;
  out.run_dir = run_dir;
  out.perf_dir = w.perf_dir;
  out.metrics = w.metrics;
  out.class_metrics = w.class_metrics;
  out.verdict = w.verdict;
  out.interrupted = w.info.interrupted;
  out.exit_code = verdict_exit_code(
      out.metrics,
      out.verdict);  // as `run` exits for this verdict (an interrupted run: INVALID, 4)
  if (folder.end && folder.end->stop_reason.starts_with(kDiskStopReason))
    out.exit_code = kExitDiskStopped;  // as `run` did
  print_outputs(w, console, verbose);
  fmt::print(console, "{} {} and {}\n", own ? "rewrote" : "wrote the view",
             (w.perf_dir / (w.info.dataset_abbr + ".csv")).string(),
             (out_dir / "result.json").string());
  return out;
}

}  // namespace tokbench::runner
