// tokbench: a benchmark for OpenAI-compatible LLM inference services.
// Exit codes: 0 a VALID run, 1 run failure, 2 usage error, 3 a `compare` threshold crossed,
// 4 an INVALID run (its reports are written), 130 interrupted.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <stdexcept>

#include "cli/commands.hpp"
#include "client/engine.hpp"
#include "tokbench/version.hpp"

int main(int argc, char** argv) {
  tokbench::client::global_init();
  CLI::App app{"tokbench: measures LLM inference services (TTFT, TPOT, ITL, E2EL, throughput)"};
  app.set_version_flag("--version", fmt::format("tokbench {} ({}{})", tokbench::kVersion, tokbench::kGitHash,
                                                tokbench::kGitDirty ? ", dirty" : ""));
  app.require_subcommand(1);
  std::function<int()> action;
  tokbench::cli::add_commands(app, action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    return action();
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "tokbench: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "tokbench: {}\n", e.what());
    return 1;
  }
}
