#pragma once
// cli/: wires CLI11 options to the settings structs and calls library code, one file per verb
// (run_command, serve_mock_command, report_command, compare_command, history_command,
// tokenize_command, doctor_command, render_command, reference_command). No benchmark logic. Each
// option is declared once, in its verb's file under its help section; --help, docs/CLI.md, the
// shell completions and the man pages are all produced from the parsed CLI11 app
// (reference_command).
#include <CLI/CLI.hpp>
#include <array>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tokbench::runner {
struct RunConfig;
}

namespace tokbench::cli {

/// The sections of `tokbench run --help`, in order (CLI11 option groups).
inline constexpr std::array<const char*, 7> kRunGroups{"Target",     "Request", "Load",  "Workload",
                                                       "Experiment", "Observe", "Output"};

/// `--help`'s formatter: each option's description wrapped to the terminal's width (120 columns
/// when the help is piped; TOKBENCH_WIDTH=N overrides), continued under the description column.
/// Set on the app before the commands are added (they inherit it).
std::shared_ptr<CLI::Formatter> help_formatter();

/// Registers the sub-commands on `app`; each sets `action` to what main runs after parsing.
void add_commands(CLI::App& app, std::function<int()>& action);

/// `tokbench run`; returns the settings its options fill (`render` parses a run's flags with it).
std::shared_ptr<runner::RunConfig> add_run(CLI::App& app, std::function<int()>& action);
void add_serve_mock(CLI::App& app, std::function<int()>& action);
void add_report(CLI::App& app, std::function<int()>& action);
void add_compare(CLI::App& app, std::function<int()>& action);
void add_tokenize(CLI::App& app, std::function<int()>& action);
void add_history(CLI::App& app, std::function<int()>& action);
void add_doctor(CLI::App& app, std::function<int()>& action);
void add_render(CLI::App& app, std::function<int()>& action);
/// `tokbench cli-reference` (docs/CLI.md), `tokbench completion bash|zsh` and `tokbench man
/// [COMMAND]` (man pages), from `app` itself.
void add_reference(CLI::App& app, std::function<int()>& action);

/// The commands named on the parsed command line, each after a space: " run", " render kube".
std::string command_path(const CLI::App& app);
/// The long option name of `app` nearest to `word` (a typo away), "" when none is near.
std::string closest_option(const CLI::App& app, std::string_view word);
/// For each --flag on the command line that the chosen verb does not know: a line naming it and
/// the nearest option ("did you mean --concurrency?").
std::vector<std::string> unknown_flag_hints(const CLI::App& app, int argc, char** argv);

/// The Markdown reference of every command and option of `app` (docs/CLI.md).
std::string cli_reference(const CLI::App& app);
/// A completion script for `shell` ("bash" or "zsh"); throws std::invalid_argument otherwise.
std::string completion_script(const CLI::App& app, const std::string& shell);
/// A man page (roff, man(7)): tokbench(1) for "" (the commands, exit status, files), else
/// tokbench-COMMAND(1) with that command's options by section. Throws std::invalid_argument for
/// an unknown command, naming the known ones.
std::string man_page(const CLI::App& app, const std::string& command);
/// The commands that have a page of their own, in order, as their pages are named ("run",
/// "history-check").
std::vector<std::string> man_commands(const CLI::App& app);

}  // namespace tokbench::cli
