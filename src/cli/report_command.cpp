// cli/report_command: `tokbench report` — recompute every output of a finished run from its folder
// (optionally under another tool's definitions).
#include <fmt/format.h>

#include <memory>
#include <optional>

#include "cli/commands.hpp"
#include "common/console.hpp"
#include "metrics/metrics.hpp"
#include "runner/runner.hpp"

namespace tokbench::cli {

void add_report(CLI::App& app, std::function<int()>& action) {
  struct Args {
    std::string dir;
    std::string compat;
    bool verbose = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("report",
                                 "recompute every output of a finished run from its details file");
  cmd->add_option("dir", a->dir, "the run folder (outputs/<timestamp>)")->required();
  cmd->add_option(
      "--compat", a->compat,
      fmt::format("recompute under other definitions: {}", metrics::kDefinitionChoices.bars()));
  cmd->add_flag("--verbose", a->verbose,
                "print every table, not the one-screen summary (as run --verbose)");
  cmd->callback([&action, a] {
    action = [a] {
      std::optional<std::string> compat;
      if (!a->compat.empty()) compat = a->compat;
      const Console console = fitted_console(stdout);
      return runner::recompute(a->dir, compat, console ? console.get() : stdout, a->verbose)
          .exit_code;
    };
  });
}

}  // namespace tokbench::cli
