#pragma once
// cli/: wires CLI11 options to the settings structs and calls library code. No benchmark logic.
#include <CLI/CLI.hpp>

#include <functional>

namespace tokbench::cli {

/// Registers the sub-commands on `app`; each sets `action` to what main runs after parsing.
void add_commands(CLI::App& app, std::function<int()>& action);

}  // namespace tokbench::cli
