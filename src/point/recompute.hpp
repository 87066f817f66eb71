#pragma once
// point/recompute: one point's folder recomputed, as `tokbench report DIR` does it (runner/
// recompute adds the series' roots on top).
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include "point/outcome.hpp"

namespace tokbench::runner {

/// Every output of the point folder `run_dir` recomputed from the folder alone (the same verdict
/// and exit code as the run). With `compat` naming other definitions than the run's, the view
/// goes to run_dir/views/<compat>/. `verbose`: every table on the console.
RunOutcome recompute_point(const std::filesystem::path& run_dir,
                           const std::optional<std::string>& compat, std::FILE* console,
                           bool verbose = false);

}  // namespace tokbench::runner
