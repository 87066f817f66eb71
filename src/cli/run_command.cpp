// cli/run_command: `tokbench run` — its options in the sections --help, docs/CLI.md and the shell
// completions show (kRunGroups), each bound from a row of its settings part's table
// (settings/fields: a flag is declared once); --config / --print-config through the options' own
// callbacks.
#include <fmt/format.h>
#include <signal.h>
#include <spdlog/logger.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <variant>

#include "cli/commands.hpp"
#include "cli/yaml_config.hpp"
#include "client/engine.hpp"
#include "common/abbreviate.hpp"
#include "common/console.hpp"
#include "history/commands.hpp"
#include "history/entry.hpp"
#include "host/limits.hpp"
#include "plan/plan.hpp"
#include "point/points.hpp"
#include "runner/runner.hpp"
#include "settings/fields.hpp"

namespace tokbench::cli {

namespace {

// Ctrl-C during a run: the first stops sending and drains, the second cancels in-flight
// requests. A signal handler can only reach process-wide state, hence this one static.
std::atomic<int> g_stop{client::kRunning};

extern "C" void on_stop_signal(int) {
  const int level = g_stop.load() + 1;
  g_stop.store(level > client::kCancelNow ? client::kCancelNow : level);
  constexpr char kMsg[] =
      "\ntokbench: stopping: no new requests; waiting for in-flight ones (Ctrl-C again cancels "
      "them)\n";
  if (level == client::kDrain) (void)!write(STDERR_FILENO, kMsg, sizeof kMsg - 1);
}

// Binds one row of a settings table to its option: the member is set by CLI11 (numbers, strings,
// lists, flags) or by the row's own parser (words, sweep lists, --dataset), whose errors name the
// flag and the fix.
template <class Part>
CLI::Option* bind(CLI::App* run, Part& part, const runner::Field<Part>& f) {
  const std::string flag(f.flag), name(runner::long_flag(f.flag));
  return std::visit(
      [&](const auto& m) -> CLI::Option* {
        using M = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<M, runner::ChoiceField<Part>>) {
          return run
              ->add_option_function<std::string>(
                  flag,
                  [&part, m, name](const std::string& v) {
                    if (!m.parse(part, v))
                      throw CLI::ValidationError(
                          name, fmt::format("bad value '{}' (expected {})", v, m.alternatives));
                  },
                  fmt::format("{}: {}", m.bars, f.help))
              ->default_str(std::string(m.name(part)));
        } else if constexpr (std::is_same_v<M, runner::CustomField<Part>>) {
          return run
              ->add_option_function<std::string>(
                  flag,
                  [&part, m](const std::string& v) {
                    try {
                      m.set(part, v);
                    } catch (const std::invalid_argument& e) {
                      throw CLI::ValidationError(e.what());
                    }
                  },
                  f.help)
              ->default_str(m.text(part));
        } else if constexpr (std::is_same_v<M, bool Part::*>) {
          return run->add_flag(flag, part.*m, f.help);
        } else if constexpr (std::is_same_v<M, std::optional<int64_t> Part::*> ||
                             std::is_same_v<M, std::optional<double> Part::*>) {
          using T = typename std::decay_t<decltype(part.*m)>::value_type;
          return run->add_option_function<T>(
              flag, [&part, m](const T& v) { part.*m = v; }, f.help);
        } else {
          CLI::Option* opt = run->add_option(flag, part.*m, f.help);
          if constexpr (std::is_same_v<M, uint64_t Part::*>) opt->check(CLI::NonNegativeNumber);
          if (f.delimiter) opt->delimiter(f.delimiter);
          return opt;
        }
      },
      f.value);
}

// --history (or $TOKBENCH_HISTORY): each finished point folder goes into the results store. A
// store that cannot take it (locked, damaged, newer) is said, with the command that adds the
// folder later; the folder and the run's exit code stay as they are.
void record_in_history(const std::string& flag, const std::filesystem::path& dir,
                       spdlog::logger& log) {
  std::string store = flag;
  if (const char* env = std::getenv("TOKBENCH_HISTORY"); store.empty() && env) store = env;
  if (store.empty()) return;
  try {
    history::record_run(store, dir);
    log.info("recorded in the results store {}", store);
  } catch (const std::exception& e) {
    const std::string msg = fmt::format(
        "history: the run was not recorded: {}; the run folder is intact: add it later with "
        "`tokbench history add {} --history {}`",
        e.what(), dir.string(), store);
    log.error("{}", msg);
    fmt::print(stderr, "tokbench: {}\n", msg);
  }
}

// A section of `run --help`: one settings part, every row of its table an option.
template <class Part>
void bind_part(CLI::App* run, const char* group, Part& part,
               const std::vector<runner::Field<Part>>& fields) {
  run->option_defaults()->group(group);
  for (const runner::Field<Part>& f : fields) {
    CLI::Option* opt = bind(run, part, f);
    const bool own_default = std::holds_alternative<runner::ChoiceField<Part>>(f.value) ||
                             std::holds_alternative<runner::CustomField<Part>>(f.value);
    if (f.show_default && !own_default) opt->capture_default_str();
  }
}

// --config FILE: each setting in the file reaches its option's own callback and checks, unless the
// command line gave that option (the command line wins). Unknown names are usage errors.
void apply_config_file(CLI::App& run, const std::string& path, const YamlConfig& yaml) {
  std::ifstream in(path);
  if (!in)
    throw CLI::ValidationError(
        "--config",
        fmt::format("cannot read '{}' (expected a YAML file; see --print-config)", path));
  for (const CLI::ConfigItem& item : yaml.from_config(in)) {
    CLI::Option* opt = run.get_option_no_throw("--" + item.name);
    if (!opt || !opt->get_configurable()) {
      const std::string near = closest_option(run, item.name);
      throw CLI::ValidationError(
          "--config", fmt::format("{}: unknown setting '{}' ({}keys are the long flag names of "
                                  "`tokbench run`, e.g. concurrency; see --print-config)",
                                  path, item.name,
                                  near.empty() ? "" : fmt::format("did you mean '{}'? ", near)));
    }
    if (opt->count() > 0) continue;  // given on the command line: it wins
    opt->add_result(item.inputs);
    opt->run_callback();
  }
}

// Before sending: the streams asked for against the limits that would make connections fail
// (open files, local ports), said on stderr with the fix; the run goes on (a server may need fewer
// connections than streams, e.g. a short --num-prompts).
void warn_of_host_limits(const runner::RunConfig& cfg) {
  int64_t streams = cfg.load.concurrency;
  for (int c : cfg.load.concurrency_sweep) streams = std::max<int64_t>(streams, c);
  if (cfg.load.num_prompts > 0 && cfg.load.concurrency_sweep.empty() && cfg.load.duration_s <= 0)
    streams = std::min(streams, cfg.load.num_prompts);
  if (streams <= 0) return;
  for (const std::string& w :
       host::stream_limit_warnings(host::read_host_limits(), streams, cfg.embedded_target()))
    fmt::print(stderr, "{}\n", fit_line("tokbench: warning: " + w));
}

}  // namespace

std::shared_ptr<runner::RunConfig> add_run(CLI::App& app, std::function<int()>& action) {
  auto cfg = std::make_shared<runner::RunConfig>();
  auto* run = app.add_subcommand(
      "run", "benchmark an OpenAI-compatible endpoint (default: the built-in simulator)");
  auto& c = *cfg;
  bind_part(run, kRunGroups[0], c.target, runner::target_fields());
  bind_part(run, kRunGroups[1], c.request, runner::request_fields());
  bind_part(run, kRunGroups[2], c.load, runner::load_fields());
  bind_part(run, kRunGroups[3], c.workload, runner::workload_fields());
  bind_part(run, kRunGroups[4], c.experiment, runner::experiment_fields());
  bind_part(run, kRunGroups[5], c.observe, runner::observe_fields());
  bind_part(run, kRunGroups[6], c.output, runner::output_fields());
  // A label's syntax is the results store's (history/entry), checked as it is given.
  run->get_option("--label")->check(CLI::Validator(
      [](std::string& text) {
        try {
          history::parse_label(text, "--label");
          return std::string();
        } catch (const std::exception& e) {
          return std::string(e.what());
        }
      },
      "KEY=VALUE"));
  run->option_defaults()->group("Options");
  auto yaml = std::make_shared<YamlConfig>(
      std::set<std::string>{"concurrency", "request-rate", "num-prompts"});
  run->config_formatter(yaml);  // --print-config writes through it
  auto config_path = std::make_shared<std::string>();
  run->add_option("--config", *config_path,
                  "YAML file of run settings: long flag names as keys, e.g. 'concurrency: [1, 4, "
                  "16]'; flags on the "
                  "command line win")
      ->configurable(false);
  auto print_config = std::make_shared<bool>(false);
  run->add_flag(
         "--print-config", *print_config,
         "print the effective settings (file and flags) as YAML that --config reads back, and exit")
      ->configurable(false);
  run->callback([&action, cfg, print_config, config_path, yaml, run] {
    if (!config_path->empty()) apply_config_file(*run, *config_path, *yaml);
    if (*print_config) {
      action = [run, cfg] {
        runner::make_plan(
            *cfg, nullptr);  // a printed config is one that runs: the same usage errors first
        fmt::print("{}", run->config_to_str(true, false));
        return 0;
      };
      return;
    }
    action = [cfg] {
      struct sigaction sa {};
      sa.sa_handler = on_stop_signal;
      sigemptyset(&sa.sa_mask);
      sigaction(SIGINT, &sa, nullptr);
      sigaction(SIGTERM, &sa, nullptr);
      warn_of_host_limits(*cfg);
      const Console console = fitted_console(stdout);  // one screen wide, wherever it prints
      runner::keep_folders_with(record_in_history);
      return runner::run_benchmark(*cfg, g_stop, console ? console.get() : stdout).exit_code;
    };
  });
  return cfg;
}

}  // namespace tokbench::cli
