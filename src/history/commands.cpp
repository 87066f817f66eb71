#include "history/commands.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <stdexcept>

#include "common/exit_codes.hpp"
#include "common/json_writer.hpp"
#include "common/samples.hpp"
#include "common/significance.hpp"
#include "common/temp_path.hpp"
#include "history/analysis.hpp"
#include "history/regression.hpp"
#include "history/store.hpp"
#include "metrics/metrics.hpp"
#include "record/record_io.hpp"
#include "runfolder/run_folder.hpp"

namespace tokbench::history {

namespace fs = std::filesystem;

namespace {

// The run folders under `dir`: itself, or a series root's points (one level down).
std::vector<fs::path> folders_in(const fs::path& dir) {
  if (fs::exists(dir / "result.json") || fs::exists(dir / "manifest.json")) return {dir};
  std::vector<fs::path> out;
  if (fs::is_directory(dir)) {
    for (const auto& e : fs::directory_iterator(dir))
      if (e.is_directory() && fs::exists(e.path() / "result.json")) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  if (out.empty())
    throw std::runtime_error(fmt::format(
        "{}: no run folder here (no result.json in it or its sub-folders)", dir.string()));
  return out;
}

std::string fmt_value(double v) { return fmt::format("{:.4g}", v); }

}  // namespace

double parse_threshold(const std::string& text) {
  std::string t = text;
  const bool percent = !t.empty() && t.back() == '%';
  if (percent) t.pop_back();
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(t, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != t.size() || !(v >= 0) || std::isinf(v))
    throw std::invalid_argument(
        fmt::format("--threshold '{}': expected a percentage, e.g. 5%", text));
  return v / 100;
}

std::vector<std::string> resolve_runs(const std::string& path,
                                      const std::vector<std::string>& tokens) {
  Store store(path, false);
  const std::vector<StoredRun> runs = store.runs();  // oldest first
  std::vector<std::string> out;
  auto keep = [&](const std::string& folder) {
    if (std::find(out.begin(), out.end(), folder) == out.end()) out.push_back(folder);
  };
  auto count_after = [&](const std::string& token, size_t prefix) -> size_t {
    size_t used = 0;
    int64_t n = -1;
    try {
      n = std::stoll(token.substr(prefix), &used);
    } catch (const std::exception&) {
    }
    if (used == 0 || used != token.size() - prefix || n < 0)
      throw std::invalid_argument(fmt::format("compare: '{}': expected a count after '{}'", token,
                                              token.substr(0, prefix)));
    return static_cast<size_t>(n);
  };
  for (const auto& t : tokens) {
    if (fs::exists(t)) {
      keep(t);
      continue;
    }
    if (t == "latest" || t.rfind("latest~", 0) == 0) {
      const size_t back = t == "latest" ? 0 : count_after(t, 7);
      if (back >= runs.size())
        throw std::invalid_argument(
            fmt::format("compare: '{}': the store {} holds {} run(s)", t, path, runs.size()));
      keep(runs[runs.size() - 1 - back].entry.folder);
    } else if (t.rfind("last:", 0) == 0) {
      const size_t n = count_after(t, 5);
      if (n == 0 || n > runs.size())
        throw std::invalid_argument(
            fmt::format("compare: '{}': the store {} holds {} run(s)", t, path, runs.size()));
      for (size_t i = runs.size() - n; i < runs.size(); ++i) keep(runs[i].entry.folder);
    } else if (const auto r = store.find(t, false)) {
      keep(r->entry.folder);
    } else {
      throw std::invalid_argument(
          fmt::format("compare: '{}' is neither a folder nor a run of the store {} (a folder, "
                      "latest, latest~K, last:N, an id or a run id; see tokbench history list)",
                      t, path));
    }
  }
  return out;
}

void record_run(const std::string& path, const fs::path& dir) {
  Store store(path, true);
  store.record(read_entry(dir));
}

int history_add(const HistoryOptions& o, std::FILE* out) {
  std::vector<std::pair<std::string, std::string>> labels;
  for (const auto& l : o.labels) labels.push_back(parse_label(l, "--label"));
  std::vector<Entry>
      entries;  // every folder read before the store is touched: a bad one adds nothing
  for (const auto& d : o.folders)
    for (const auto& f : folders_in(d)) {
      entries.push_back(read_entry(f));
      set_labels(entries.back(), labels);
    }
  Store store(store_path(o.store), true);
  for (const auto& e : entries) {
    const int64_t id = store.record(e);
    fmt::print(out, "{:>5}  {}  {}  {}\n", id, e.verdict, e.run_id, e.folder);
  }
  fmt::print(out, "recorded {} run(s) in {}\n", entries.size(), store_path(o.store));
  return kExitValid;
}

int history_list(const HistoryOptions& o, std::FILE* out) {
  Store store(store_path(o.store), false);
  for (const auto& [s, runs] : by_scenario(selected(store, o), o.scenario_keys)) {
    fmt::print(out, "{}\n", s);
    for (const auto& r : runs) {
      std::string labels;
      for (const auto& [k, v] : r.entry.labels) labels += fmt::format(" {}={}", k, v);
      fmt::print(out, "  {:>5}  {:<25} {:<11} {}{}\n", r.id, r.entry.started_at, r.entry.verdict,
                 r.entry.run_id, labels);
    }
  }
  return kExitValid;
}

int history_show(const HistoryOptions& o, std::FILE* out) {
  Store store(store_path(o.store), false);
  std::string key = o.run;
  std::error_code ec;
  if (fs::exists(key)) key = fs::weakly_canonical(fs::absolute(key), ec).string();
  const auto r = store.find(key);
  if (!r)
    throw std::invalid_argument(fmt::format(
        "history show: no run '{}' in the store (an id, a run id or a folder; see history list)",
        o.run));
  const Entry& e = r->entry;
  fmt::print(out, "id {}  run {}  {}\nfolder {}\n", r->id, e.run_id, e.verdict, e.folder);
  if (!e.parent.empty()) fmt::print(out, "point of {}\n", e.parent);
  fmt::print(out, "started {}  tokbench {}  target {}\nscenario {}\n", e.started_at,
             e.tokbench_version, e.target, scenario(e, {}));
  for (const auto& [k, v] : e.labels) fmt::print(out, "label {}={}\n", k, v);
  for (const auto& [k, v] : e.metrics) fmt::print(out, "  {:<36} {}\n", k, fmt_value(v));
  return kExitValid;
}

int history_trend(const HistoryOptions& o, std::FILE* out) {
  Store store(store_path(o.store), false);
  const auto values = store.metric(o.metric);
  if (values.empty())
    throw std::invalid_argument(
        fmt::format("history trend: no run in the store has '{}' (e.g. tpot.p99, ttft.p50, "
                    "output_token_throughput; history show ID lists a run's)",
                    o.metric));
  for (const auto& [s, runs] : by_scenario(selected(store, o), o.scenario_keys)) {
    std::vector<double> series;
    std::vector<const StoredRun*> points;
    for (const auto& r : runs) {
      if (!r.entry.valid() || !values.contains(r.id)) continue;
      series.push_back(values.at(r.id));
      points.push_back(&r);
    }
    if (series.empty()) continue;
    const auto steps = change_points(series, parse_threshold(o.threshold));
    fmt::print(out, "{}\n", s);
    for (size_t i = 0; i < series.size(); ++i) {
      const bool step = std::find(steps.begin(), steps.end(), i) != steps.end();
      fmt::print(out, "  {:>5}  {:<25} {:>12}{}\n", points[i]->id, points[i]->entry.started_at,
                 fmt_value(series[i]), step ? "  <- change point" : "");
    }
  }
  return kExitValid;
}

int history_check(const HistoryOptions& o, std::FILE* out) {
  const double threshold = parse_threshold(o.threshold);
  if (o.baseline < 1) throw std::invalid_argument("--baseline: at least 1 earlier run");
  Store store(store_path(o.store), false);
  const auto scenarios = analyse(store, o, o.metrics.empty() ? kCheckedMetrics : o.metrics, true);
  JsonWriter w;
  w.begin_object()
      .field("threshold", threshold)
      .field("baseline_window", static_cast<int64_t>(o.baseline));
  w.key("scenarios").begin_array();
  int regressions = 0;
  for (const auto& sc : scenarios) {
    const Entry& newest = sc.newest.entry;
    w.begin_object()
        .field("scenario", sc.scenario)
        .field("newest", newest.run_id)
        .field("newest_id", sc.newest.id);
    w.field("folder", newest.folder)
        .field("verdict", newest.verdict)
        .field("baseline_runs", static_cast<int64_t>(sc.baseline_runs));
    if (!o.json)
      fmt::print(out, "{}\n  newest: {} ({}, id {}), baseline: {} earlier VALID run(s)\n",
                 sc.scenario, newest.run_id, newest.verdict, sc.newest.id, sc.baseline_runs);
    if (!newest.valid() && !o.json)
      fmt::print(out, "  not judged: the newest run is {} (INVALID runs never enter a baseline)\n",
                 newest.verdict);
    w.key("metrics").begin_array();
    for (const auto& m : sc.metrics) {
      if (!m.judgement) continue;
      const Judgement& j = *m.judgement;
      const SeriesPoint* step =
          m.change_points.empty() ? nullptr : &m.series[m.change_points.back()];
      regressions += j.regression;
      w.begin_object()
          .field("metric", m.metric)
          .field("value", j.value)
          .field("baseline_median", j.baseline);
      w.field("change", j.change).field("regression", j.regression).field("why", j.why);
      if (j.band) w.key("band").begin_array().value(j.band->low).value(j.band->high).end_array();
      if (j.p_value) {  // against the pooled requests of these baseline runs
        w.field("mann_whitney_p", *j.p_value).key("mann_whitney_against").begin_array();
        for (const auto& id : m.pooled_runs) w.value(id);
        w.end_array();
      }
      if (step) w.field("change_point", step->run_id).field("change_point_id", step->id);
      w.end_object();
      if (!o.json) {
        fmt::print(
            out, "  {} {}{}\n", j.regression ? "REGRESSION" : "ok        ", j.why,
            step ? fmt::format("; the series stepped at run {} (id {})", step->run_id, step->id)
                 : "");
      }
    }
    w.end_array().end_object();
  }
  w.end_array().field("regressions", static_cast<int64_t>(regressions)).end_object();
  if (o.json) {
    fmt::print(out, "{}\n", w.take());
  } else {
    fmt::print(out,
               "{} regression(s); a change counts when it is worse, beyond {:.1f}%, outside the "
               "baseline's band (median ± "
               "{} scaled MADs) and, where both folders' records are at hand, significant by "
               "Mann–Whitney (p < 0.05)\n",
               regressions, 100 * threshold, kBandMads);
  }
  return regressions > 0 ? kExitThreshold : kExitValid;
}

int history_page_command(const HistoryOptions& o, std::FILE* out) {
  const double threshold = parse_threshold(o.threshold);
  Store store(store_path(o.store), false);
  std::vector<std::string> names = o.metrics.empty() ? kCheckedMetrics : o.metrics;
  const auto scenarios = analyse(store, o, names, !o.no_records);
  const fs::path path =
      o.page.empty() ? fs::path(store_path(o.store)).replace_extension(".html") : fs::path(o.page);
  const std::string page = history_page(scenarios, threshold);
  {
    TempPath tmp(path);
    {
      std::ofstream f(tmp.path(), std::ios::binary | std::ios::trunc);
      f << page;
      if (!f.flush())
        throw std::runtime_error(
            fmt::format("cannot write '{}': check the folder and free space", path.string()));
    }
    tmp.commit();
  }
  size_t panels = 0;
  for (const auto& sc : scenarios) panels += sc.metrics.size();
  fmt::print(out, "history page: {} ({} scenario(s), {} panel(s))\n", path.string(),
             scenarios.size(), panels);
  return kExitValid;
}

}  // namespace tokbench::history
