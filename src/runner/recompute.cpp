// runner/recompute: `tokbench report DIR` — every output of a run, recomputed from its folder
// alone (manifest, records, end marker), without touching the server (record once, analyze
// many). Another set of definitions is a view beside the run's own outputs, never over them.
#include <fmt/format.h>

#include <stdexcept>

#include "runner/outputs.hpp"
#include "report/run_folder.hpp"
#include "runner/runner.hpp"
#include "runner/stages.hpp"

namespace tokbench::runner {

namespace fs = std::filesystem;

RunOutcome recompute(const fs::path& run_dir, const std::optional<std::string>& compat, std::FILE* console) {
  const report::RunFolder folder = report::load_run_folder(run_dir);
  const std::string defs_name = compat.value_or(folder.manifest.definitions);
  const auto defs = metrics::definitions_from_name(defs_name);
  if (!defs) {
    throw std::invalid_argument(
        fmt::format("--compat: bad value '{}' (expected {})", defs_name, metrics::kDefinitionChoices.alternatives()));
  }
  const bool own = defs_name == folder.manifest.definitions;
  const fs::path out_dir = own ? run_dir : run_dir / "views" / defs_name;
  fs::create_directories(out_dir);
  const Written w = write_outputs(folder, *defs, out_dir, own);
  RunOutcome out;
  out.run_dir = run_dir;
  out.perf_dir = w.perf_dir;
  out.metrics = w.metrics;
  out.verdict = w.verdict;
  out.interrupted = w.info.interrupted;
  out.exit_code = verdict_exit_code(out.metrics, out.verdict);  // as `run` exits for this verdict (an interrupted run: INVALID, 4)
  print_outputs(w, console);
  fmt::print(console, "{} {} and {}\n", own ? "rewrote" : "wrote the view", (w.perf_dir / (w.info.dataset_abbr + ".csv")).string(),
             (out_dir / "result.json").string());
  return out;
}

}  // namespace tokbench::runner
