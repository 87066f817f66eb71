#pragma once
// cli/yaml_config: `tokbench run --config run.yaml` and `--print-config`, as a CLI11 config
// formatter, so a config file reaches the very same option callbacks and checks as the flags
// (and flags given on the command line win, CLI11's rule). The file is a YAML mapping from long
// flag names (dashes or underscores) to values; a sequence is a repeated flag (header: [..]) or,
// for the sweep flags, a comma list (concurrency: [1, 4, 16]). An optional top-level `run:`
// mapping is read the same. Printing writes every option that was given (flags or file) plus
// the defaults, as YAML that reads back to the same run; the API key is never printed.
#include <CLI/CLI.hpp>
#include <set>
#include <string>
#include <vector>

namespace tokbench::cli {

class YamlConfig : public CLI::Config {
 public:
  /// `comma_lists`: options whose sequence is joined into one "a,b,c" value (sweeps).
  explicit YamlConfig(std::set<std::string> comma_lists) : comma_lists_(std::move(comma_lists)) {}
  std::string to_config(const CLI::App* app, bool default_also, bool write_description,
                        std::string prefix) const override;
  std::vector<CLI::ConfigItem> from_config(std::istream& input) const override;

 private:
  std::set<std::string> comma_lists_;
};

}  // namespace tokbench::cli
