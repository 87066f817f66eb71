#pragma once
// series/search: `--search max-concurrency|max-rate --slo 'ttft.p99<=500ms,...'` — the wiring:
// each probe a full run folder of a PointSession, judged against the SLOs; the search itself is
// series/slo_search (bracket, then bisect), its files series/search_page (search/search.json,
// search/search.html).
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "plan/plan.hpp"
#include "point/outcome.hpp"
#include "point/points.hpp"
#include "series/slo_search.hpp"

namespace tokbench::runner {

using metrics::bracket_and_bisect;
using metrics::decide_probe;
using metrics::Probe;
using metrics::SearchResult;
using metrics::SearchSpace;

/// Runs the search for `plan` (its cfg.search set), writes search/, returns the outcome (exit
/// code 0 when an answer was found, 1 when none, 130 when interrupted).
RunOutcome run_search(RunPlan& plan, std::atomic<int>& stop, std::FILE* console,
                      const SeriesOptions& options = {});

/// `report` on a search's root: every probe's folder recomputed, the search replayed over them by
/// the same rule (no request is sent), search/ rewritten. A probe the replay needs that never ran
/// (the verdicts changed) ends it with no answer and says so.
RunOutcome rebuild_search(const std::filesystem::path& root, std::FILE* console);

}  // namespace tokbench::runner
