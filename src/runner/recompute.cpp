// point/recompute: `tokbench report DIR` — one point's folder recomputed (point/recompute), or,
// on a sweep's, search's or repeats' root, every point recomputed and the series' summary rebuilt.
#include "point/recompute.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <limits>
#include <stdexcept>

#include "common/json_fields.hpp"
#include "point/outcome.hpp"
#include "record/run_parts.hpp"
#include "runfolder/run_folder.hpp"
#include "runner/runner.hpp"
#include "series/interference.hpp"
#include "series/repeats.hpp"
#include "series/schema_pair.hpp"
#include "series/search.hpp"
#include "series/sweep.hpp"

namespace tokbench::runner {

namespace fs = std::filesystem;

namespace {

// RowLoad as a summary recorded it (a point's, or a class's at a point).
RowLoad recorded_load(simdjson::dom::element p) {
  return {static_cast<int>(json::int_or(p, "concurrency", 0)), json::rate_or(p, "request_rate", 0),
          json::int_or(p, "num_prompts", 0)};
}

// --class: each class's own load at point `label`, as sweep/summary.json recorded it.
ClassLoads class_loads_of(simdjson::dom::element doc, const std::string& label) {
  ClassLoads out;
  if (simdjson::dom::array classes; !doc["classes"].get_array().get(classes))
    for (simdjson::dom::element c : classes)
      if (json::string_or(c, "point") == label)
        out.emplace_back(json::string_or(c, "class"), recorded_load(c));
  return out;
}

// A sweep's root: every point folder recomputed (its own outputs, as `report` does one run), then
// sweep/ rebuilt from them — the points listed in sweep/summary.json, a point that never ran kept
// as it was recorded.
RunOutcome recompute_sweep(const fs::path& root, std::FILE* console) {
  const fs::path summary = root / "sweep" / "summary.json";
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.load(summary.string()).get(doc)) {
    throw std::runtime_error(
        fmt::format("cannot read {}: not a sweep summary (rerun the sweep)", summary.string()));
  }
  const simdjson::dom::element sweep = doc["sweep"].value();
  SweepSummary rebuilt(
      root, {json::string_or(sweep, "x_name") == "request_rate" ? "request_rate" : "concurrency",
             json::string_or(doc, "load_class")});
  simdjson::dom::array points;
  if (sweep["points"].get_array().get(points))
    throw std::runtime_error(fmt::format("{}: no points", summary.string()));
  std::vector<std::string> expected;  // every point listed, and those recorded as never run
  for (simdjson::dom::element p : points) expected.push_back(json::string_or(p, "point"));
  if (simdjson::dom::array missing; !doc["missing"].get_array().get(missing))
    for (auto m : missing)
      if (std::string_view l; !m.get_string().get(l) &&
                              std::find(expected.begin(), expected.end(), l) == expected.end())
        expected.emplace_back(l);
  rebuilt.expect(expected);
  for (simdjson::dom::element p : points) {
    const std::string label = json::string_or(p, "point");
    const RowLoad point = recorded_load(p);  // as the summary recorded it: its in-flight cap
    if (!fs::exists(
            root / label /
            runfolder::kManifestFile)) {  // it never ran (its server failed, Ctrl-C): as recorded
      rebuilt.add_failed(label, point, json::string_or(p, "why", "no run folder"));
      continue;
    }
    RunOutcome o = recompute_point(root / label, std::nullopt, console);
    o.label = label;
    o.resumed = json::bool_or(p, "resumed", false);
    rebuilt.add(label, point, o, class_loads_of(doc, label));
  }
  std::optional<record::ServerProcessFacts> server =
      record::read_optional<record::ServerProcessFacts>(doc, "server_process");
  return rebuilt.finish(server, json::bool_or(doc, "interrupted", false), console);
}

// A repeats root: every run folder listed in repeats/summary.json recomputed, the intervals
// rebuilt from them.
RunOutcome recompute_repeats(const fs::path& root, std::FILE* console) {
  const fs::path summary = root / "repeats" / "summary.json";
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.load(summary.string()).get(doc)) {
    throw std::runtime_error(fmt::format(
        "cannot read {}: not a repeats summary (rerun with --repeats)", summary.string()));
  }
  RepeatsSummary rebuilt(root, json::number_or(doc, "confidence", 0.95));
  simdjson::dom::array folders;
  if (doc["folders"].get_array().get(folders))
    throw std::runtime_error(fmt::format("{}: no folders", summary.string()));
  for (simdjson::dom::element f : folders) {
    std::string_view label;
    if (f.get_string().get(label)) continue;
    RunOutcome o = recompute(root / std::string(label), std::nullopt, console);
    o.label = std::string(label);
    rebuilt.add(o);
  }
  std::optional<record::ServerProcessFacts> server =
      record::read_optional<record::ServerProcessFacts>(doc, "server_process");
  return rebuilt.finish(server, false, console);
}

// An --interference root: every run the summary planned whose folder holds a run recomputed (a
// series killed mid-run leaves its last folder unlisted: it is read too), the matrix rebuilt.
RunOutcome recompute_interference(const fs::path& root, std::FILE* console) {
  const fs::path summary = root / "interference" / "summary.json";
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.load(summary.string()).get(doc))
    throw std::runtime_error(
        fmt::format("cannot read {}: not an interference summary (rerun with --interference)",
                    summary.string()));
  std::vector<std::string> classes;
  simdjson::dom::array names;
  if (doc["classes"].get_array().get(names))
    throw std::runtime_error(fmt::format("{}: no classes", summary.string()));
  for (simdjson::dom::element n : names) {
    std::string_view name;
    if (!n.get_string().get(name)) classes.emplace_back(name);
  }
  const int rounds = static_cast<int>(json::number_or(doc, "rounds", 1));
  InterferenceSummary rebuilt(root, classes, rounds, json::number_or(doc, "confidence", 0.95));
  for (const InterferenceRun& run : interference_runs(classes, rounds)) {
    if (!fs::exists(root / run.folder() / runfolder::kManifestFile)) continue;
    RunOutcome o = recompute(root / run.folder(), std::nullopt, console);
    o.label = run.folder();
    rebuilt.add(run, o);
  }
  std::optional<record::ServerProcessFacts> server =
      record::read_optional<record::ServerProcessFacts>(doc, "server_process");
  return rebuilt.finish(server, false, console);
}

// A --schema-paired root: both points recomputed, the paired costs rebuilt from their folders.
RunOutcome recompute_schema_pair(const fs::path& root, std::FILE* console) {
  const fs::path summary = root / "pair" / "summary.json";
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.load(summary.string()).get(doc))
    throw std::runtime_error(
        fmt::format("cannot read {}: not a schema pair's summary (rerun with --schema-paired)",
                    summary.string()));
  RunOutcome points[2];
  for (int k = 0; k < 2; ++k) {
    const char* label = k == 0 ? kUnconstrainedPoint : kConstrainedPoint;
    points[k] = recompute(root / label, std::nullopt, console);
    points[k].label = label;
  }
  std::optional<record::ServerProcessFacts> server =
      record::read_optional<record::ServerProcessFacts>(doc, "server_process");
  return finish_schema_pair(root, points[0], points[1], json::number_or(doc, "confidence", 0.95),
                            json::bool_or(doc, "reset_prefix_cache", false), server, false,
                            console);
}

}  // namespace

RunOutcome recompute(const fs::path& run_dir, const std::optional<std::string>& compat,
                     std::FILE* console, bool verbose) {
  if (!fs::exists(run_dir / runfolder::kManifestFile) &&
      fs::exists(run_dir / "sweep" / "summary.json")) {
    if (compat)
      throw std::invalid_argument(
          "--compat: give one point's folder (a view is per run), not the sweep's root");
    return recompute_sweep(run_dir, console);
  }
  if (!fs::exists(run_dir / runfolder::kManifestFile) &&
      fs::exists(run_dir / "search" / "search.json")) {
    if (compat)
      throw std::invalid_argument(
          "--compat: give one probe's folder (a view is per run), not the search's root");
    return rebuild_search(run_dir, console);
  }
  if (!fs::exists(run_dir / runfolder::kManifestFile) &&
      fs::exists(run_dir / "repeats" / "summary.json")) {
    if (compat)
      throw std::invalid_argument(
          "--compat: give one run's folder (a view is per run), not the repeats' root");
    return recompute_repeats(run_dir, console);
  }
  if (!fs::exists(run_dir / runfolder::kManifestFile) &&
      fs::exists(run_dir / "interference" / "summary.json")) {
    if (compat)
      throw std::invalid_argument(
          "--compat: give one run's folder (a view is per run), not the interference's root");
    return recompute_interference(run_dir, console);
  }
  if (!fs::exists(run_dir / runfolder::kManifestFile) &&
      fs::exists(run_dir / "pair" / "summary.json")) {
    if (compat)
      throw std::invalid_argument(
          "--compat: give one run's folder (a view is per run), not the schema pair's root");
    return recompute_schema_pair(run_dir, console);
  }
  if (!fs::exists(run_dir / runfolder::kManifestFile) &&
      fs::exists(run_dir / "grid" / "summary.json")) {
    throw std::invalid_argument(
        fmt::format("{} is a server grid's root: report one configuration's folder "
                    "({}/<configuration>), or rebuild grid/ from the "
                    "folders with the grid's own flags and --resume {} (no server is started for a "
                    "configuration whose points are "
                    "all VALID)",
                    run_dir.string(), run_dir.string(), run_dir.string()));
  }
  return recompute_point(run_dir, compat, console, verbose);
}

}  // namespace tokbench::runner
