// runner/recompute: `tokbench report DIR` — every output of a finished run, recomputed from its
// details file and saved config alone, without touching the server (record once, analyze many).
#include <fmt/format.h>

#include <stdexcept>

#include "record/record_io.hpp"
#include "report/tables.hpp"
#include "runner/run_folder.hpp"
#include "runner/runner.hpp"

namespace tokbench::runner {

namespace fs = std::filesystem;

RunOutcome recompute(const fs::path& run_dir, const std::optional<std::string>& compat, std::FILE* console) {
  RunFolder folder = load_run_folder(run_dir);
  const report::RunInfo& info = folder.info;
  const auto& records = folder.records;
  const std::string defs_name = compat.value_or(folder.compat);
  const auto defs = metrics::definitions_from_name(defs_name);
  if (!defs) throw std::runtime_error(fmt::format("--compat: bad value '{}' (expected tokbench, aisbench, evalscope, vllm or sglang)", defs_name));

  RunOutcome out;
  out.run_dir = run_dir;
  out.perf_dir = folder.perf_dir;
  {
    std::string failed;
    for (const auto& r : records)
      if (!r.ok()) failed += record::to_json_line(r, info.dataset_abbr) + "\n";
    const fs::path failed_path = out.perf_dir / (info.dataset_abbr + "_failed.jsonl");
    if (!failed.empty()) {
      report::write_file(failed_path, failed);
    } else {
      fs::remove(failed_path);
    }
  }
  auto written = write_reports(out.run_dir, out.perf_dir, records, info, folder.facts, *defs, folder.request_rate);
  out.metrics = written.metrics;
  out.verdict = written.verdict;
  out.interrupted = info.interrupted;
  fmt::print(console, "{}", report::console_tables(out.metrics));
  if (!written.side_by_side.empty()) fmt::print(console, "{}", report::definitions_table(written.side_by_side));
  fmt::print(console, "verdict: {}\n", out.verdict.valid ? "VALID" : "INVALID");
  for (const auto& r : out.verdict.reasons) fmt::print(console, "  - {}\n", r);
  for (const auto& r : out.verdict.warnings) fmt::print(console, "  warning: {}\n", r);
  fmt::print(console, "rewrote {} and {}\n", (out.perf_dir / (info.dataset_abbr + ".csv")).string(),
             (run_dir / "result.json").string());
  return out;
}

}  // namespace tokbench::runner
