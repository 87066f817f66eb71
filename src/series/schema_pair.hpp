#pragma once
// series/schema_pair: `--json-schema FILE --schema-paired` — what holding answers to a schema
// costs, measured as a paired run: the same load point twice against one target, first with the
// plan's prompts sent unconstrained (folder unconstrained/), then held to the schema (folder
// constrained/), with the same seed so request i is the same prompt in both. Each metric's cost
// is paired prompt by prompt (constrained − unconstrained of the same request index): the mean
// difference with its Student-t interval over the pairs, beside each run's mean. Writes
// pair/summary.json and pair/summary.csv; `report` on the root rebuilds them from the folders.
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "plan/plan.hpp"
#include "point/outcome.hpp"
#include "point/points.hpp"

namespace tokbench::runner {

/// The folder names of a pair's points, in the order they run.
inline constexpr const char* kUnconstrainedPoint = "unconstrained";
inline constexpr const char* kConstrainedPoint = "constrained";

RunOutcome run_schema_pair(RunPlan& plan, std::atomic<int>& stop, std::FILE* console,
                           const SeriesOptions& options = {});

/// The pair's summary from its two finished points (their folders' details files): written
/// under root/pair/, said on the console; the exit code is the worse point's. `level`: the
/// intervals' confidence; `reset_cache`: --reset-prefix-cache was given (else a second run that
/// found more of its prompt in the server's prefix cache is warned of).
RunOutcome finish_schema_pair(const std::filesystem::path& root, const RunOutcome& unconstrained,
                              const RunOutcome& constrained, double level, bool reset_cache,
                              const std::optional<record::ServerProcessFacts>& server_process,
                              bool interrupted, std::FILE* console);

}  // namespace tokbench::runner
