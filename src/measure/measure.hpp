#pragma once
// measure/measure: what point/ sees of the target and its measured phase. The target's whole
// type (measure/target.hpp) holds the client's body settings, the dataset, the tokenizer and the
// simulator, which point/ cannot include (the build's layers): point/ opens, describes and closes
// a target through these functions and runs it through measure/execute, holding it opaque.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "plan/plan.hpp"
#include "record/run_parts.hpp"

namespace spdlog {
class logger;
}
namespace tokbench::runfolder {
struct RunManifest;
}

namespace tokbench::runner {

struct Target;
struct TargetDeleter {
  void operator()(Target* t) const;
};
/// An open target: the server tokbench started (or the simulator), the model, the prompts.
using OpenTarget = std::unique_ptr<Target, TargetDeleter>;

/// Opens the target for `plan` (whose cfg gains the model, model_abbr and num_prompts), its
/// failure logged (the folder says where the run stopped). Throws std::runtime_error naming the
/// thing and the fix (unreachable server, unknown model).
OpenTarget open_logged(RunPlan& plan, const std::filesystem::path& dir, spdlog::logger& log,
                       std::FILE* console);

/// Stops a server tokbench started (no-op otherwise) and returns how it went (nullopt: none
/// started).
std::optional<record::ServerProcessFacts> close_target(Target& target,
                                                       const std::filesystem::path& run_dir,
                                                       spdlog::logger& log, std::FILE* console);

/// The URL requests go to (credentials included: the engine's, never shown).
const std::string& target_url(const Target& target);
/// --reset-prefix-cache: empties the target's prefix cache the way its engine does
/// (probe/cache_reset) before a point (a single run's too); "" when it was done (logged), else why
/// not, with the fix (logged as a warning).
std::string reset_prefix_cache(const Target& target, const RunPlan& point, spdlog::logger& log);
/// The dataset's short name, which names the point's files (<abbr>_details.jsonl, ...).
const std::string& dataset_abbr(const Target& target);

/// What the target stage learned, into the manifest and the folder: the model, the dataset, the
/// exact first body (configs/request_body.json) and its audit, said on the console. `plan`: the
/// whole plan (a rank's share is cut from it).
void describe_target(runfolder::RunManifest& manifest, const RunPlan& plan, const Target& target,
                     const std::filesystem::path& run_dir, spdlog::logger& log, std::FILE* console);

}  // namespace tokbench::runner
