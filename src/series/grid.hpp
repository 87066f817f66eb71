#pragma once
// series/grid: --server-grid — capacity planning across server configurations. Each
// configuration's server is started from the --server-cmd template (or --deploy-sh with the values
// in its environment), awaited, measured with the experiment the other flags ask for (a load
// sweep, a --search, --repeats or one point: series/series), stopped, its log kept.
// One folder per configuration holds that series; grid/ holds the summary (series/grid_page) and
// the recommendation (series/capacity). A configuration whose server fails to start is recorded
// and the grid goes on. --resume skips configurations whose points all completed VALID.
#include <atomic>
#include <cstdio>

#include "plan/plan.hpp"
#include "point/outcome.hpp"
#include "point/points.hpp"

namespace tokbench::runner {

/// The grid of plan.cfg.server_grid. Exit code: 130 interrupted, 5 the disk stopped a point, 1 no
/// configuration has an answer, 4 one failed to start or had a point that was not VALID, else 0.
RunOutcome run_grid(RunPlan& plan, std::atomic<int>& stop, std::FILE* console,
                    const SeriesOptions& options = {});

}  // namespace tokbench::runner
