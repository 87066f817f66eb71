#include "point/resume.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <cstdio>
#include <stdexcept>

#include "common/json_writer.hpp"
#include "point/recompute.hpp"
#include "report/outputs.hpp"
#include "runfolder/files.hpp"
#include "runfolder/run_folder.hpp"

namespace tokbench::runner {

namespace fs = std::filesystem;

namespace {

// Settings that say only where output goes or how much is printed: a resume may change them.
bool free_to_change(std::string_view key) {
  for (const char* k :
       {"resume", "output_dir", "quiet", "verbose", "progress_interval_s", "history"})
    if (key == k) return true;
  return false;
}

}  // namespace

void write_series_record(const fs::path& root, const std::string& requested_json) {
  JsonWriter w;
  w.begin_object()
      .field("format", "tokbench-series/1")
      .field_raw("requested", requested_json)
      .end_object();
  runfolder::write_file(root / kSeriesFile, w.take());
}

void check_resumable(const fs::path& root, const std::string& requested_json) {
  const fs::path path = root / kSeriesFile;
  simdjson::dom::parser saved_parser, now_parser;
  simdjson::dom::element saved, now;
  if (!fs::exists(path) || saved_parser.load(path.string()).get(saved) ||
      saved["requested"].get(saved) || saved.type() != simdjson::dom::element_type::OBJECT)
    throw std::invalid_argument(
        fmt::format("--resume {}: no {} there, so it is not the root of a sweep, search, repeats, "
                    "schema pair or grid (give the folder the interrupted run printed as its root)",
                    root.string(), kSeriesFile));
  if (now_parser.parse(requested_json).get(now))
    throw std::logic_error("the request's JSON does not parse");
  std::string differ;
  for (auto [key, value] : now.get_object()) {
    if (free_to_change(key)) continue;
    simdjson::dom::element before;
    const std::string was =
        saved[key].get(before) ? std::string("(not set)") : simdjson::minify(before);
    const std::string is = simdjson::minify(value);
    if (was != is)
      differ += fmt::format("{}  {}: {} then, {} now", differ.empty() ? "" : "\n", key, was, is);
  }
  if (!differ.empty())
    throw std::invalid_argument(
        fmt::format("--resume {}: the series was started with other settings, and its points "
                    "would not be comparable:\n{}\nrun with the same flags (or --config) as "
                    "the first time",
                    root.string(), differ));
}

std::optional<RunOutcome> completed_point(const fs::path& dir) {
  if (!fs::exists(dir / runfolder::kManifestFile) || !fs::exists(dir / runfolder::kEndFile))
    return std::nullopt;
  std::FILE* quiet = std::fopen("/dev/null", "w");
  try {
    RunOutcome o = recompute_point(dir, std::nullopt, quiet ? quiet : stdout);
    if (quiet) std::fclose(quiet);
    if (o.exit_code != 0 || !o.verdict.valid || o.interrupted) return std::nullopt;
    o.resumed = true;
    return o;
  } catch (const std::exception&) {
    if (quiet) std::fclose(quiet);
    return std::nullopt;  // unreadable: run it again
  }
}

fs::path set_aside(const fs::path& dir) {
  fs::path to = dir.string() + ".interrupted";
  for (int k = 2; fs::exists(to); ++k) to = fmt::format("{}.interrupted-{}", dir.string(), k);
  fs::rename(dir, to);
  return to;
}

}  // namespace tokbench::runner
