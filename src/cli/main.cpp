// tokbench: a benchmark for OpenAI-compatible LLM inference services.
// Exit codes: common/exit_codes.hpp (the one table; the man page and the README follow it).
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include "cli/commands.hpp"
#include "cluster/cluster.hpp"
#include "cluster/watch.hpp"
#include "common/abbreviate.hpp"
#include "common/exit_codes.hpp"
#include "probe/nvml.hpp"
#include "tokbench/version.hpp"

namespace {

// A multi-host run's rank that stops with an error ends every rank (the others would wait for it
// in a collective); with one rank it just returns its code.
int finish(int code, const std::string& error) {
  const auto& world = tokbench::cluster::world();
  // A lost rank (cluster/watch): no MPI_Abort (it would end rank 0 while it writes the folder)
  // and no MPI_Finalize (it would wait for the lost rank); this rank just ends, INVALID.
  if (const auto loss = tokbench::cluster::rank_lost()) {
    if (!error.empty())  // one screen wide: the loss's words run long
      fmt::print(stderr, "{}\n",
                 tokbench::fit_line(
                     fmt::format("tokbench (rank {} of {}): {}", world.rank, world.size, error)));
    tokbench::cluster::end_watch();
    spdlog::shutdown();  // the run's log, whole
    std::fflush(nullptr);
    // INVALID whatever stopped it (the interruption it caused included); a full disk says so.
    std::_Exit(code == tokbench::kExitDiskStopped ? code : tokbench::kExitInvalid);
  }
  if (!error.empty()) {
    if (world.size > 1) {
      fmt::print(stderr, "tokbench (rank {} of {}): {}\n", world.rank, world.size, error);
      std::fflush(stderr);
      tokbench::cluster::abort(code);
    }
    fmt::print(stderr, "tokbench: {}\n", error);
  }
  tokbench::cluster::finalize();
  return code;
}

// Many streams need many descriptors: the soft limit (often 1,024) goes up to the hard one, for the
// client and the simulator alike (one connection each). The hard limit is the administrator's.
void raise_descriptor_limit() {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    setrlimit(RLIMIT_NOFILE, &lim);
  }
}

// What this binary is: the commit, how it was built, and the optional parts it has.
std::string version_line() {
  return fmt::format("tokbench {} (commit {}{}; {} build, {}; multi-host runs: {}; telemetry: {})",
                     tokbench::kVersion, tokbench::kGitHash, tokbench::kGitDirty ? ", dirty" : "",
                     *tokbench::kBuildType ? tokbench::kBuildType : "default", tokbench::kCompiler,
                     tokbench::cluster::available() ? "Open MPI (loaded under mpirun)"
                                                    : "unavailable, built without Open MPI",
                     tokbench::probe::nvml_presence());
}

}  // namespace

int main(int argc, char** argv) {
  // `tokbench --version` alone needs none of the command tables (building them is most of what
  // tokbench does before parsing): answered at once (bench/startup.sh).
  if (argc == 2 && std::string_view(argv[1]) == "--version") {
    fmt::print("{}\n", version_line());
    return 0;
  }
  raise_descriptor_limit();
  // A file-size limit (ulimit -f) must be a write error tokbench reports (exit 5, whole lines, the
  // end marker), not a signal that kills it mid-line.
  signal(SIGXFSZ, SIG_IGN);
  try {
    tokbench::cluster::init(&argc, &argv);  // MPI only when an MPI launcher started this process
  } catch (const std::exception& e) {
    fmt::print(stderr, "tokbench: {}\n", e.what());
    return 1;
  }
  CLI::App app{"tokbench: measures LLM inference services (TTFT, TPOT, ITL, E2EL, throughput)"};
  // A callback, not the line: composing it probes for NVML (a dlopen) and Open MPI, which a run
  // without --telemetry nvml must not pay for (issue 47).
  app.set_version_flag("--version", version_line);
  app.require_subcommand(1);
  app.formatter(tokbench::cli::help_formatter());  // before the commands: they inherit it
  std::function<int()> action;
  tokbench::cli::add_commands(app, action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return finish(app.exit(e), "");  // --help, --version
    // One line a mistake, each with its fix: an unknown flag with the nearest one, else what the
    // parser found and where the options are listed (CLI11's own two lines say less).
    const auto hints = tokbench::cli::unknown_flag_hints(app, argc, argv);
    const std::string verb = tokbench::cli::command_path(app);
    for (const auto& hint : hints) fmt::print(stderr, "tokbench{}: {}\n", verb, hint);
    if (verb.empty()) {  // no command named one of ours
      std::string names;
      for (const CLI::App* c : app.get_subcommands([](const CLI::App*) { return true; }))
        names += (names.empty() ? "" : ", ") + c->get_name();
      fmt::print(stderr,
                 "tokbench: {}: the commands are {} (`tokbench --help` says what each does)\n",
                 argc > 1 && argv[1][0] != '-' ? fmt::format("unknown command '{}'", argv[1])
                                               : std::string("no command given"),
                 names);
    } else if (hints.empty())
      fmt::print(stderr, "tokbench{}: {} (`tokbench{} --help` lists the options)\n", verb, e.what(),
                 verb);
    return finish(2, "");
  }
  try {
    return finish(action(), "");
  } catch (const std::invalid_argument& e) {
    return finish(2, e.what());
  } catch (const std::exception& e) {
    return finish(1, e.what());
  }
}
