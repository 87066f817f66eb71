#pragma once
// runner/plan: the first stage — flags to a validated plan, with no I/O beyond what it is handed
// (the environment's API key), so it is unit-tested without a network. What the plan cannot know
// yet (the model, the dataset's size) is settled by the target stage.
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "metrics/metrics.hpp"
#include "net/http_get.hpp"
#include "runner/run_config.hpp"
#include "runner/runner.hpp"

namespace tokbench::runner {

struct RunPlan {
  RunConfig requested;  ///< as given (saved, redacted, beside the effective one)
  RunConfig cfg;        ///< effective: API key from the environment, workers resolved
  std::vector<std::pair<std::string, std::string>> extra_body;  ///< --extra-body, parsed
  metrics::Definitions definitions = metrics::Definitions::Tokbench;
  bool synthetic = false;
  net::TlsSettings tls;  ///< from --ca-bundle, --cert, --key, --insecure
  ParsedFlags parsed;    ///< --slo, --goodput, --profile-window, --image: parsed once, here

  // What an experiment around this one sets (runner/grid, --resume); a plain run leaves them be.
  /// A series' root chosen by the caller (a grid's server point, --resume); "" = a new timestamped
  /// folder under --output-dir.
  std::filesystem::path series_root;
  /// Reuse the point folders under series_root that completed VALID; re-run the others.
  bool resume = false;
  /// Added to a started server's environment (a grid point's values, runner/grid).
  std::map<std::string, std::string> server_env;
  /// Called with every finished point of a series, run or resumed (a grid's rows).
  std::function<void(const RunConfig& point, const RunOutcome& outcome)> on_point;
};

/// Validates `requested` (every problem at once) and resolves what needs no network.
/// `env_api_key` is $OPENAI_API_KEY or nullptr. Throws std::invalid_argument (a usage error).
RunPlan make_plan(const RunConfig& requested, const char* env_api_key);

}  // namespace tokbench::runner
