#pragma once
// runner/: the two verbs' entries, thin wiring over the flow's layers — settings/ (the flags as
// typed parts), workload/ (prompts), plan/ (a validated plan and its point specs), point/ (one
// load point: target, execute, recorder, outputs, the point session), series/ (sweep, search,
// repeats, grid, resume over point/'s session). The run folder (runfolder/) is the contract
// between them. The CLI calls these; tests call them too.
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include "point/outcome.hpp"
#include "settings/run_config.hpp"

namespace tokbench::runner {

/// Runs the benchmark described by `cfg`. `stop` is raised by the caller (Ctrl-C): 1 = stop
/// sending and drain, 2 = cancel in-flight requests. Human-readable output goes to `console`.
/// Throws std::invalid_argument on usage errors and std::runtime_error, with a message naming
/// the thing and the fix, on set-up errors (the run folder then says where it stopped).
RunOutcome run_benchmark(const RunConfig& cfg, std::atomic<int>& stop, std::FILE* console);

/// `tokbench report DIR`: every output of a run recomputed from its folder alone (same verdict
/// as the run). With `compat` naming other definitions than the run's, the view goes to
/// DIR/views/<compat>/ and the run's own outputs are left as they are. `verbose`: every table on
/// the console, as `run --verbose`.
RunOutcome recompute(const std::filesystem::path& run_dir, const std::optional<std::string>& compat,
                     std::FILE* console, bool verbose = false);

}  // namespace tokbench::runner
