// cli/compare_command: `tokbench compare` — runs side by side: every metric with its change and
// significance, body/config/server diffs, thresholds for CI.
#include <memory>

#include "cli/commands.hpp"
#include "compare/compare.hpp"

namespace tokbench::cli {

void add_compare(CLI::App& app, std::function<int()>& action) {
  auto o = std::make_shared<compare::CompareOptions>();
  auto* cmd = app.add_subcommand(
      "compare", "compare runs: every metric, significance, body/config/server diffs");
  cmd->add_option(
         "runs", o->runs,
         "run folders; the first is the baseline (with --history also latest, latest~K, last:N, "
         "an id or a run id of the store)")
      ->required()
      ->expected(1, 64);
  cmd->add_option("--fail-if", o->fail_if,
                  "threshold, e.g. 'tpot.p99 > +5%' (repeatable): exit 3 when crossed");
  cmd->add_option("--history", o->history,
                  "a results store the runs may name (tokbench history list)");
  cmd->add_option("--html", o->html,
                  "page to write; default: compare_<YYYYmmdd_HHMMSS>/compare.html beside the last "
                  "run (never inside a run folder)");
  cmd->callback([&action, o] { action = [o] { return compare::compare_runs(*o, stdout); }; });
}

}  // namespace tokbench::cli
