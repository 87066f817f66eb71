#pragma once
// measure/target: the second stage — start or adopt the server (--server-cmd, --deploy-sh, or
// the built-in simulator), resolve the model, load the dataset (or build synthetic prompts of an
// exact length, measuring the server's template overhead), and say how each request's body is
// made. Stays open across load points; close() stops what it started.
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "client/request_body.hpp"
#include "core/request.hpp"
#include "dataset/dataset.hpp"
#include "load/agents.hpp"
#include "load/sessions.hpp"
#include "measure/simulator.hpp"
#include "plan/plan.hpp"
#include "tokenizer/tokenizer.hpp"

namespace spdlog {
class logger;
}
namespace tokbench::probe {
class ServerProcess;
}

namespace tokbench::runner {

/// Requests the output checks change: --determinism-probe's (every `probe_every`-th request, up
/// to `probes` of them, asks the dataset's first item instead, marked as a probe), and
/// --keep-outputs' (requests below `keep_prompts` keep their prompt text for the outputs file).
struct OutputPlan {
  int64_t probe_every = 0, probes = 0;
  int64_t keep_prompts = 0;
  bool is_probe(int64_t i) const {
    return probes > 0 && i % probe_every == 0 && i / probe_every < probes;
  }
};

struct Target {
  Target();
  ~Target();
  Target(Target&&) noexcept;

  std::string url;    ///< the endpoint URL requests go to
  std::string model;  ///< resolved (from --model or GET /v1/models)
  dataset::Dataset data;
  /// --class dataset=: each such class's own prompts, by class name (the others draw `data`).
  std::map<std::string, dataset::Dataset> class_data;
  std::optional<tokenizer::Tokenizer> tok;
  std::optional<record::SyntheticFacts> synthetic;  ///< how synthetic prompts were built
  std::optional<record::TraceFacts> trace;  ///< how a trace's prompts and schedule were built
  client::BodySettings body;
  std::unique_ptr<Simulator> sim;  ///< the built-in simulator, when the run started one
  std::unique_ptr<probe::ServerProcess> server;
  std::string server_command;
  std::vector<std::string>
      secrets;  ///< the credential values tokbench passes on: hidden in logs/server.log
  std::vector<std::string> lora;  ///< --lora: model names drawn per request
  uint64_t lora_seed = 0;         ///< draws of --lora names and --image pictures
  std::vector<std::string>
      images;  ///< --image: a pool of synthetic PNG data URLs, drawn per request
  int images_per_request = 0;

  /// Dataset item i (cycling) of `from` (null: `data`), with its --lora model when it names none
  /// (built in `scratch`).
  const dataset::RequestSpec& spec(int64_t i, dataset::RequestSpec& scratch,
                                   const dataset::Dataset* from = nullptr) const;
  /// The prompts `point` draws: its traffic class's own dataset, else the run's.
  const dataset::Dataset& data_at(const RunPlan& point) const;
  /// How a point's sessions are made: its prompts (data_at), its body (body_at), its turns.
  struct Turns {
    const dataset::Dataset* from = nullptr;
    client::BodySettings body;
    int64_t turns = 0;
  };
  Turns turns_at(const RunPlan& point) const;
  /// Multi-turn: turn ctx.turn of conversation c asks item c * turns + turn (cycling) of `at`'s
  /// prompts, its body carrying the history (the user turns and the real answers) before it.
  core::PlannedRequest make_turn(const Turns& at, int64_t conversation,
                                 const load::TurnContext& ctx) const;
  /// An agent task's turn: the system prompt, the goal, then each earlier answer's calls and the
  /// stubs' results as chat messages (assistant tool_calls, role "tool"), its tools offered.
  core::PlannedRequest make_agent_turn(const client::BodySettings& body,
                                       const load::AgentTurn& t) const;
  /// The body settings `point` sends: the target's, with the point's --json-schema (the first
  /// point of a --schema-paired pair has none) and a traffic class's body fields and model.
  client::BodySettings body_at(const RunPlan& point) const;
  /// How the request of index i is made at `point`: dataset item i (cycling), its body and facts.
  core::RequestMaker maker(const RunPlan& point, const OutputPlan& out = {}) const;
  /// The body of request 0 at `point`, for the audit and the report.
  std::string first_body(const RunPlan& point) const;
  /// Stops a server tokbench started (no-op otherwise) and returns how it went (nullopt: none
  /// started).
  std::optional<record::ServerProcessFacts> close(const std::filesystem::path& run_dir,
                                                  spdlog::logger& log, std::FILE* console);
};

/// Opens the target for `plan` (whose cfg gains the model, model_abbr and num_prompts).
/// Throws std::runtime_error naming the thing and the fix (unreachable server, unknown model).
Target open_target(RunPlan& plan, const std::filesystem::path& run_dir, spdlog::logger& log,
                   std::FILE* console);

}  // namespace tokbench::runner
