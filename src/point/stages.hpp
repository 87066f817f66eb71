#pragma once
// point/stages (internal to point/): the steps one load point goes through, shared by a single
// run, every experiment's points and every rank of a multi-host run — what was asked (the
// manifest before anything is contacted), the target opened, the measured phase, the end marker,
// and the outputs concluded from the folder alone.
#include <spdlog/logger.h>

#include <atomic>
#include <climits>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "common/exit_codes.hpp"
#include "measure/execute.hpp"
#include "metrics/saturation.hpp"
#include "plan/plan.hpp"
#include "point/outcome.hpp"
#include "point/points.hpp"
#include "runfolder/run_folder.hpp"

namespace tokbench::runner {

struct Target;

/// A rank's own scratch run folder (a multi-host run's ranks other than 0), created empty with
/// its subfolders; removed by its owner at the end.
std::filesystem::path scratch_dir(const std::string& what);

/// What was asked, before anything is contacted: a folder killed from there on still says what it
/// was.
runfolder::RunManifest asked(const RunPlan& plan, std::time_t wall);

inline constexpr int64_t kNoOrigin = INT64_MIN;

/// One load point in `dir` (already holding its manifest): the measured phase. On a failure the
/// folder gets its end marker saying why; otherwise the caller writes it (after stopping a
/// server). `whole`: the plan a rank's share was cut from (what the manifest tells).
PointResult measure(const RunPlan& plan, const Target& target, runfolder::RunManifest& manifest,
                    const std::filesystem::path& dir, spdlog::logger& log, std::atomic<int>& stop,
                    std::FILE* console, int64_t origin = kNoOrigin, const RankShare& share = {},
                    const RunPlan* whole = nullptr);

/// The end marker of a measured point (the server's summary when tokbench ran it).
runfolder::RunEnd ended(const PointResult& p,
                        const std::optional<record::ServerProcessFacts>& server_process);

/// What a folder's verdict means as an exit code, the same for `run` and `report`: 0 VALID, 4
/// INVALID (the reports are written, the numbers must not be quoted), 1 no request succeeded.
int verdict_exit_code(const metrics::MetricSet& m, const metrics::Verdict& v);
/// The outputs of a finished point folder, printed; the exit code its verdict means.
RunOutcome conclude(const RunPlan& plan, const std::filesystem::path& dir,
                    const PointResult& result, spdlog::logger& log, std::FILE* console);

}  // namespace tokbench::runner
