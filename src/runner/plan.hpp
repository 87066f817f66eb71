#pragma once
// runner/plan: the first stage — flags to a validated plan, with no I/O beyond what it is handed
// (the environment's API key), so it is unit-tested without a network. What the plan cannot know
// yet (the model, the dataset's size) is settled by the target stage.
#include <string>
#include <utility>
#include <vector>

#include "client/http_get.hpp"
#include "metrics/metrics.hpp"
#include "runner/run_config.hpp"

namespace tokbench::runner {

struct RunPlan {
  RunConfig requested;  ///< as given (saved, redacted, beside the effective one)
  RunConfig cfg;        ///< effective: API key from the environment, workers resolved
  std::vector<std::pair<std::string, std::string>> extra_body;  ///< --extra-body, parsed
  metrics::Definitions definitions = metrics::Definitions::Tokbench;
  bool synthetic = false;
  client::TlsSettings tls;  ///< from --ca-bundle, --cert, --key, --insecure
  ParsedFlags parsed;       ///< --slo, --goodput, --profile-window, --image: parsed once, here
};

/// Validates `requested` (every problem at once) and resolves what needs no network.
/// `env_api_key` is $OPENAI_API_KEY or nullptr. Throws std::invalid_argument (a usage error).
RunPlan make_plan(const RunConfig& requested, const char* env_api_key);

}  // namespace tokbench::runner
