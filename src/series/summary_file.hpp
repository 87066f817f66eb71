#pragma once
// series/summary_file: a series' summary written as every series writes it — its JSON object
// closed with the started server's facts, then <root>/<folder>/summary.json and summary.csv.
#include <filesystem>
#include <optional>
#include <string>

#include "common/json_writer.hpp"
#include "record/run_parts.hpp"

namespace tokbench::runner {

/// Closes `w` (an open object) after adding `server_process` when there is one, writes it and
/// `csv` under root/folder, and returns the JSON file's path.
std::filesystem::path write_summary(
    const std::filesystem::path& root, const char* folder, JsonWriter& w, const std::string& csv,
    const std::optional<record::ServerProcessFacts>& server_process);

}  // namespace tokbench::runner
