#pragma once
// cli/: wires CLI11 options to the settings structs and calls library code, one file per verb
// (run_command, serve_mock_command, report_command, compare_command, tokenize_command,
// reference_command). No benchmark logic. Each option is declared once, in its verb's file under
// its help section; --help, docs/CLI.md and the shell completions are all produced from the
// parsed CLI11 app (reference_command).
#include <CLI/CLI.hpp>

#include <array>
#include <functional>

namespace tokbench::cli {

/// The sections of `tokbench run --help`, in order (CLI11 option groups).
inline constexpr std::array<const char*, 7> kRunGroups{"Target", "Request", "Load", "Workload", "Experiment", "Observe",
                                                       "Output"};

/// Registers the sub-commands on `app`; each sets `action` to what main runs after parsing.
void add_commands(CLI::App& app, std::function<int()>& action);

void add_run(CLI::App& app, std::function<int()>& action);
void add_serve_mock(CLI::App& app, std::function<int()>& action);
void add_report(CLI::App& app, std::function<int()>& action);
void add_compare(CLI::App& app, std::function<int()>& action);
void add_tokenize(CLI::App& app, std::function<int()>& action);
/// `tokbench cli-reference` (docs/CLI.md) and `tokbench completion bash|zsh`, from `app` itself.
void add_reference(CLI::App& app, std::function<int()>& action);

/// The Markdown reference of every command and option of `app` (docs/CLI.md).
std::string cli_reference(const CLI::App& app);
/// A completion script for `shell` ("bash" or "zsh"); throws std::invalid_argument otherwise.
std::string completion_script(const CLI::App& app, const std::string& shell);

}  // namespace tokbench::cli
