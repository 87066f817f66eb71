#pragma once
// series/series: the experiment of one target that the flags ask for — a --search, --repeats, a
// --schema-paired pair, a load sweep (a list in a load flag) or one point — each run point by point
// through point/'s PointSession. A server grid (series/grid) runs one per server configuration.
#include <atomic>
#include <cstdio>

#include "plan/plan.hpp"
#include "point/outcome.hpp"
#include "point/points.hpp"

namespace tokbench::runner {

/// One experiment of one server: a search, repeats, a sweep (a series folder given in
/// options.root is one even for one load point) or one point in its own run folder.
RunOutcome run_series(RunPlan& plan, std::atomic<int>& stop, std::FILE* console,
                      const SeriesOptions& options = {});

}  // namespace tokbench::runner
