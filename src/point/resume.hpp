#pragma once
// point/resume: --resume DIR — finish an interrupted sweep, search, repeats or grid in its own
// folder. The series' root keeps the flags it was started with (series.json); a resume with other
// flags is refused, naming them. A point folder that completed VALID is read back (its outputs
// recomputed, no request sent); one killed mid-run, or INVALID, is set aside whole
// (<name>.interrupted) and run again, so nothing measured is lost.
#include <filesystem>
#include <optional>
#include <string>

#include "point/outcome.hpp"

namespace tokbench::runner {

inline constexpr const char* kSeriesFile = "series.json";

/// root/series.json: the flags the series was started with (RunConfig::to_json of the request).
void write_series_record(const std::filesystem::path& root, const std::string& requested_json);

/// Throws std::invalid_argument unless `root` holds a series started with the same flags as
/// `requested_json` (those that only say where output goes or how much is printed excepted).
void check_resumable(const std::filesystem::path& root, const std::string& requested_json);

/// The outcome of a point folder that completed VALID (recomputed from its folder, quietly,
/// `resumed` set); nullopt when it did not (no end marker, interrupted, INVALID, unreadable).
std::optional<RunOutcome> completed_point(const std::filesystem::path& dir);

/// Moves an unfinished point folder out of the way: <dir>.interrupted, then .interrupted-2, ...
/// Returns where it went.
std::filesystem::path set_aside(const std::filesystem::path& dir);

}  // namespace tokbench::runner
