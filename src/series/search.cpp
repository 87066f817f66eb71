#include "series/search.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <cmath>

#include "common/format.hpp"
#include "common/json_fields.hpp"
#include "common/json_writer.hpp"
#include "point/points.hpp"
#include "point/recompute.hpp"
#include "report/outputs.hpp"
#include "report/tables.hpp"
#include "runfolder/files.hpp"
#include "series/load_curve.hpp"
#include "series/search_page.hpp"

namespace tokbench::runner {

namespace fs = std::filesystem;

namespace {

// A probe's pass/fail from its run: every SLO present and within its bound, and a VALID run.
Probe judge(const RunOutcome& o, const std::vector<metrics::RunSlo>& slos, double load) {
  Probe p;
  p.label = o.label;
  p.load = load;
  p.verdict = metrics::verdict_status(o.verdict);
  p.pass = o.verdict.valid;
  if (!o.verdict.valid) p.why = o.verdict.reasons.empty() ? "INVALID" : o.verdict.reasons.front();
  if (const metrics::AnswerTally& a = o.metrics.quality.answers; a.scored() > 0) {
    const metrics::WilsonInterval i = a.interval();
    p.accuracy = i.p;
    p.accuracy_low = i.low;
    p.accuracy_high = i.high;
  }
  for (const auto& s : slos) {
    const auto v = s.value(o.metrics);
    p.values.push_back(v);
    if (!v || *v > s.bound_ms) {
      p.pass = false;
      if (p.why.empty())
        p.why = v ? fmt::format("{} was {} ms", s.text(), format_round4(*v))
                  : fmt::format("{}: no value (n/a)", s.text());
    }
  }
  return p;
}

SearchSpace space_of(const ExperimentSettings& c) {
  SearchSpace s;
  s.integer = c.search == SearchAxis::MaxConcurrency;
  s.min = c.search_min > 0 ? c.search_min : 1;
  s.max = c.search_max > 0 ? c.search_max : 1024;
  if (s.integer) {
    s.min = std::max(1.0, std::floor(s.min));
    s.max = std::max(s.min, std::floor(s.max));
  }
  s.resolution = c.search_resolution > 0 ? c.search_resolution : s.integer ? 1 : 0.05;
  s.relative_resolution = !s.integer && c.search_resolution == 0;
  return s;
}

// --check-answers: accuracy that falls as the probes' load rises, by the sweep's rule ("" = none).
std::string falling_accuracy(const SearchResult& r, const report::SearchAsked& asked) {
  std::vector<metrics::LoadPoint> by_load;
  for (const auto& p : r.history) {
    metrics::LoadPoint lp;
    lp.label = p.label;
    lp.load = p.load;
    lp.accuracy = p.accuracy;
    lp.accuracy_low = p.accuracy_low;
    lp.accuracy_high = p.accuracy_high;
    by_load.push_back(lp);
  }
  std::stable_sort(by_load.begin(), by_load.end(),
                   [](const auto& a, const auto& b) { return a.load < b.load; });
  return metrics::falling_accuracy(by_load,
                                   asked.search == "max-rate" ? "request rate" : "concurrency");
}

// Each probe's pass or fail and SLO values, as its console line says them (PointWords).
runner::PointWords probe_words(const RunOutcome& o, const std::vector<metrics::RunSlo>& slos) {
  const Probe p = judge(o, slos, 0);
  runner::PointWords w{p.pass ? "pass" : "fail", ""};
  for (size_t i = 0; i < slos.size(); ++i)
    w.figures += fmt::format("{}{} {}", i ? ", " : "", slos[i].name(),
                             p.values[i] ? report::format_short(*p.values[i]) + " ms" : "n/a");
  return w;
}

// search/search.json and search.html written, the answer printed: after the probes' table when
// `probe_table` (`report` of a search, --verbose), else after their one line each (probe_words).
RunOutcome finish_search(const fs::path& root, const SearchResult& r,
                         const report::SearchAsked& asked, const std::vector<metrics::RunSlo>& slos,
                         const SearchSpace& space,
                         const std::optional<record::ServerProcessFacts>& server_process,
                         bool interrupted, bool disk_stopped, bool probe_table, std::FILE* console,
                         const std::vector<std::string>& resumed = {}) {
  const fs::path dir = root / "search";
  fs::create_directories(dir);
  std::string json = report::search_json(r, asked, slos, space);
  const std::string falling = falling_accuracy(r, asked);
  if (!falling.empty()) {
    JsonWriter f;
    f.value(falling);
    json.insert(json.size() - 1, ",\"accuracy_warning\":" + f.take());
  }
  if (server_process)
    json.insert(json.size() - 1, ",\"server_process\":" + record::to_json(*server_process));
  if (!resumed.empty()) {  // --resume: the probes read back from their folders
    JsonWriter list;
    list.begin_array();
    for (const auto& l : resumed) list.value(l);
    list.end_array();
    json.insert(json.size() - 1, ",\"resumed\":" + list.take());
  }
  runfolder::write_file(dir / "search.json", json);
  runfolder::write_file(dir / "search.html", report::search_page(r, json, slos));
  std::string bounds;
  for (const auto& s : slos) bounds += (bounds.empty() ? "" : ",") + s.text();
  fmt::print(console, "\nsearch {} under {}{}\n", asked.search, bounds,
             probe_table ? ":" : fmt::format(" ({} probe(s))", r.history.size()));
  for (const auto& p : r.history) {
    if (!probe_table) break;  // each probe said its own line as it ran
    std::string vals;
    for (size_t i = 0; i < slos.size(); ++i)
      vals += fmt::format("  {}: {}", slos[i].text(),
                          p.values[i] ? report::format_short(*p.values[i]) : "n/a");
    fmt::print(console, "  {:<10} {:<9}{}\n", p.label,
               p.pass        ? "pass"
               : p.uncertain ? "uncertain"
                             : "fail",
               vals);
  }
  if (!falling.empty()) fmt::print(console, "warning: {}\n", falling);
  fmt::print(console, "{}\nsearch: {}\n  result: {}\n  page:   {}\n", r.text, root.string(),
             (dir / "search.json").string(), (dir / "search.html").string());
  std::fflush(console);
  RunOutcome out;
  out.run_dir = root;
  out.interrupted = interrupted;
  out.verdict.valid = r.answer.has_value();
  if (!r.answer) out.verdict.reasons.push_back(r.text);
  // No answer because the first probe was INVALID: the series' reports are written and its
  // verdict is that probe's, so it exits as an INVALID run does (4), not as a failure (1).
  const bool first_invalid =
      !r.answer && !r.history.empty() && r.history.front().verdict == "INVALID";
  out.exit_code = series_exit_code(disk_stopped, out.interrupted,
                                   r.answer        ? kExitValid
                                   : first_invalid ? kExitInvalid
                                                   : kExitFailed);
  return out;
}

}  // namespace

RunOutcome run_search(RunPlan& plan, std::atomic<int>& stop, std::FILE* console,
                      const SeriesOptions& options) {
  const std::vector<metrics::RunSlo>& slos = plan.parsed.slos;
  const SearchSpace space = space_of(plan.cfg.experiment);
  SeriesOptions with_words = options;
  with_words.point_words = [&slos](const RunOutcome& o) { return probe_words(o, slos); };
  PointSession session(
      plan, stop, console,
      fmt::format("search {} under {}", kSearchAxes.name(plan.cfg.experiment.search),
                  plan.cfg.experiment.slo),
      with_words);
  const bool conc = space.integer;
  auto run_at = [&](double x) {
    PointSpec probe = spec_of(plan, conc ? fmt::format("c{}", static_cast<int64_t>(x))
                                         : fmt::format("r{}", format_round4(x)));
    if (conc)
      probe.concurrency = static_cast<int>(x);
    else
      probe.request_rate = x;
    fmt::print(session.point_console(), "\n== search probe: {} ==\n", probe.label);
    return judge(session.run(probe), slos, x);
  };
  auto run_probe = [&](double x) {
    return decide_probe([&] { return run_at(x); }, slos, plan.cfg.experiment.search_margin,
                        [&] { return session.stopped(); });
  };
  SearchResult r;
  try {
    r = bracket_and_bisect(space, run_probe, [&] { return session.stopped(); });
  } catch (const std::exception& e) {
    r.text = fmt::format("the search stopped: {}", e.what());
  }
  const auto server_process = session.close();
  return session.finish([&] {
    return finish_search(session.root(), r,
                         {std::string(kSearchAxes.name(plan.cfg.experiment.search)),
                          plan.cfg.experiment.search_margin},
                         slos, space, server_process, session.stopped(), session.disk_stopped(),
                         plan.cfg.output.verbose, console, session.resumed());
  });
}

RunOutcome rebuild_search(const fs::path& root, std::FILE* console) {
  const fs::path path = root / "search" / "search.json";
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(runfolder::read_file(path)).get(doc))
    throw std::runtime_error(
        fmt::format("cannot read {}: not a search summary (rerun the search)", path.string()));
  report::SearchAsked asked{json::string_or(doc, "search"), json::number_or(doc, "margin", 0)};
  std::vector<metrics::RunSlo> slos;
  simdjson::dom::array list;
  if (!doc["slos"].get_array().get(list))
    for (auto s : list) {
      std::string_view text;
      if (!s.get_string().get(text))
        for (auto& slo : metrics::parse_run_slos(text)) slos.push_back(slo);
    }
  if (slos.empty())
    throw std::runtime_error(fmt::format("{}: no SLOs (rerun the search)", path.string()));
  SearchSpace space;
  space.integer = asked.search == "max-concurrency";
  space.min = json::number_or(doc, "min", 1);
  space.max = json::number_or(doc, "max", 1024);
  space.resolution = json::number_or(doc, "resolution", 1);
  space.relative_resolution = json::bool_or(doc, "relative_resolution", false);
  // The probes as run: each load's folders (two when a probe was repeated within the margin).
  std::vector<std::pair<double, std::vector<std::string>>> ran;
  simdjson::dom::array history;
  if (!doc["history"].get_array().get(history))
    for (auto h : history) {
      std::vector<std::string> folders;
      const std::string label = json::string_or(h, "folder");
      for (size_t b = 0, e; b <= label.size(); b = e + 1) {
        e = std::min(label.find(',', b), label.size());
        if (e > b) folders.push_back(label.substr(b, e - b));
      }
      ran.emplace_back(json::number_or(h, "load", 0), folders);
    }
  // The search replayed over the recomputed probes: the same rule, so the same path as long as the
  // verdicts are the same; a probe it would need that never ran ends the rebuild, saying so.
  std::vector<bool> used(ran.size(), false);
  std::vector<Probe> seen;  // kept when the replay stops early
  bool disk_stopped = false;
  std::string missing;
  auto run_probe = [&](double x) -> Probe {
    size_t k = 0;
    while (k < ran.size() && (used[k] || std::fabs(ran[k].first - x) > 1e-9 * std::max(1.0, x)))
      ++k;
    if (k == ran.size()) {
      missing = fmt::format(
          "the recomputed probes lead the search to {} {}, which never ran (the verdicts changed "
          "since "
          "the run): rerun the search for an answer",
          space.integer ? "concurrency" : "rate",
          space.integer ? fmt::format("{:.0f}", x) : format_round4(x));
      throw std::runtime_error(missing);
    }
    used[k] = true;
    size_t next = 0;
    return seen.emplace_back(decide_probe(
        [&] {
          if (next == ran[k].second.size()) {
            missing = fmt::format(
                "the recomputed probe at {} is now within the margin of a bound and needs a second "
                "run, "
                "which never ran: rerun the search",
                format_round4(x));
            throw std::runtime_error(missing);
          }
          const std::string& folder = ran[k].second[next++];
          RunOutcome o = recompute_point(root / folder, std::nullopt, console);
          disk_stopped |= o.exit_code == kExitDiskStopped;
          o.label = folder;
          return judge(o, slos, x);
        },
        slos, asked.margin, [] { return false; }));
  };
  SearchResult r;
  try {
    r = bracket_and_bisect(space, run_probe, [] { return false; });
  } catch (const std::exception& e) {
    r.history = seen;
    r.answer.reset();
    r.text = missing.empty() ? fmt::format("the rebuild stopped: {}", e.what()) : missing;
  }
  std::optional<record::ServerProcessFacts> server =
      record::read_optional<record::ServerProcessFacts>(doc, "server_process");
  return finish_search(root, r, asked, slos, space, server, false, disk_stopped, true, console);
}

}  // namespace tokbench::runner
