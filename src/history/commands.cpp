#include "history/commands.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <stdexcept>

#include "common/exit_codes.hpp"
#include "common/json_writer.hpp"
#include "history/regression.hpp"
#include "history/store.hpp"
#include "metrics/metrics.hpp"
#include "metrics/samples.hpp"
#include "metrics/significance.hpp"
#include "record/record_io.hpp"
#include "report/run_folder.hpp"

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
  if (out.empty()) throw std::runtime_error(fmt::format("{}: no run folder here (no result.json in it or its sub-folders)", dir.string()));
  return out;
}

// A scenario fact or a label, by name (--where, --scenario-keys).
std::string fact(const Entry& e, const std::string& key) {
  if (key == "model") return e.model;
  if (key == "api") return e.api;
  if (key == "dataset") return e.dataset;
  if (key == "concurrency") return std::to_string(e.concurrency);
  if (key == "request_rate") return fmt::format("{}", e.request_rate);
  if (key == "verdict") return e.verdict;
  if (key == "input_len") return std::to_string(e.input_len);
  if (key == "output_len") return std::to_string(e.output_len);
  if (key == "max_tokens") return std::to_string(e.max_tokens);
  if (key == "parent") return e.parent;
  return e.label(key);
}

std::vector<StoredRun> selected(Store& store, const HistoryOptions& o) {
  std::vector<std::pair<std::string, std::string>> where;
  for (const auto& w : o.where) where.push_back(parse_label(w, "--where"));
  std::vector<StoredRun> out;
  for (auto& r : store.runs()) {
    bool keep = true;
    for (const auto& [k, v] : where) keep = keep && fact(r.entry, k) == v;
    if (keep) out.push_back(std::move(r));
  }
  return out;
}

// Runs by scenario, each oldest first; the scenarios in the order of their newest run.
std::vector<std::pair<std::string, std::vector<StoredRun>>> by_scenario(std::vector<StoredRun> runs,
                                                                        const std::vector<std::string>& keys) {
  std::vector<std::pair<std::string, std::vector<StoredRun>>> out;
  std::map<std::string, size_t> at;
  for (auto& r : runs) {
    const std::string s = scenario(r.entry, keys);
    auto [it, fresh] = at.emplace(s, out.size());
    if (fresh) out.emplace_back(s, std::vector<StoredRun>{});
    out[it->second].second.push_back(std::move(r));
  }
  return out;
}

std::string fmt_value(double v) { return fmt::format("{:.4g}", v); }

// "tpot.p99" -> "TPOT": the per-request metric whose records Mann–Whitney can rank, or "".
std::string per_request_row(const std::string& metric) {
  for (const char* row : {"ttft", "tpot", "e2el"}) {
    if (metric.rfind(std::string(row) + ".", 0) == 0) {
      std::string up(row);
      for (auto& c : up) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      return up;
    }
  }
  return {};
}

// The per-request values of `row` in a run folder, or nullopt when its records are not at hand.
std::optional<metrics::Samples> request_values(const std::string& folder, const std::string& row) {
  try {
    const report::RunFolder f = report::load_run_folder(folder);
    if (!fs::exists(f.details)) return std::nullopt;
    metrics::Samples s;
    record::for_each_detail(f.details.string(), [&](record::RequestRecord&& r) {
      if (auto v = metrics::request_value(r, row)) s.push(*v);
    });
    return s;
  } catch (const std::exception&) {
    return std::nullopt;  // moved or deleted: the robust band alone judges
  }
}

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
    throw std::invalid_argument(fmt::format("--threshold '{}': expected a percentage, e.g. 5%", text));
  return v / 100;
}

void record_run(const std::string& path, const fs::path& dir) {
  Store store(path, true);
  store.record(read_entry(dir));
}

int history_add(const HistoryOptions& o, std::FILE* out) {
  std::vector<std::pair<std::string, std::string>> labels;
  for (const auto& l : o.labels) labels.push_back(parse_label(l, "--label"));
  std::vector<Entry> entries;  // every folder read before the store is touched: a bad one adds nothing
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
      fmt::print(out, "  {:>5}  {:<25} {:<11} {}{}\n", r.id, r.entry.started_at, r.entry.verdict, r.entry.run_id, labels);
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
  if (!r) throw std::invalid_argument(fmt::format("history show: no run '{}' in the store (an id, a run id or a folder; see history list)", o.run));
  const Entry& e = r->entry;
  fmt::print(out, "id {}  run {}  {}\nfolder {}\n", r->id, e.run_id, e.verdict, e.folder);
  if (!e.parent.empty()) fmt::print(out, "point of {}\n", e.parent);
  fmt::print(out, "started {}  tokbench {}  target {}\nscenario {}\n", e.started_at, e.tokbench_version, e.target, scenario(e, {}));
  for (const auto& [k, v] : e.labels) fmt::print(out, "label {}={}\n", k, v);
  for (const auto& [k, v] : e.metrics) fmt::print(out, "  {:<36} {}\n", k, fmt_value(v));
  return kExitValid;
}

int history_trend(const HistoryOptions& o, std::FILE* out) {
  Store store(store_path(o.store), false);
  const auto values = store.metric(o.metric);
  if (values.empty())
    throw std::invalid_argument(fmt::format("history trend: no run in the store has '{}' (e.g. tpot.p99, ttft.p50, "
                                            "output_token_throughput; history show ID lists a run's)", o.metric));
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
      fmt::print(out, "  {:>5}  {:<25} {:>12}{}\n", points[i]->id, points[i]->entry.started_at, fmt_value(series[i]),
                 step ? "  <- change point" : "");
    }
  }
  return kExitValid;
}

int history_check(const HistoryOptions& o, std::FILE* out) {
  const double threshold = parse_threshold(o.threshold);
  if (o.baseline < 1) throw std::invalid_argument("--baseline: at least 1 earlier run");
  Store store(store_path(o.store), false);
  const std::vector<std::string>& names = o.metrics.empty() ? kCheckedMetrics : o.metrics;
  std::map<std::string, std::map<int64_t, double>> values;
  for (const auto& n : names) values[n] = store.metric(n);
  JsonWriter w;
  w.begin_object().field("threshold", threshold).field("baseline_window", static_cast<int64_t>(o.baseline));
  w.key("scenarios").begin_array();
  int regressions = 0;
  for (const auto& [s, runs] : by_scenario(selected(store, o), o.scenario_keys)) {
    const StoredRun& newest = runs.back();
    std::vector<const StoredRun*> baseline;  // the last N VALID runs before the newest, oldest first
    for (auto it = runs.rbegin() + 1; it != runs.rend() && baseline.size() < static_cast<size_t>(o.baseline); ++it)
      if (it->entry.valid()) baseline.insert(baseline.begin(), &*it);
    w.begin_object().field("scenario", s).field("newest", newest.entry.run_id).field("newest_id", newest.id);
    w.field("folder", newest.entry.folder).field("verdict", newest.entry.verdict).field("baseline_runs", static_cast<int64_t>(baseline.size()));
    if (!o.json) fmt::print(out, "{}\n  newest: {} ({}, id {}), baseline: {} earlier VALID run(s)\n", s, newest.entry.run_id,
                            newest.entry.verdict, newest.id, baseline.size());
    w.key("metrics").begin_array();
    if (!newest.entry.valid()) {
      if (!o.json) fmt::print(out, "  not judged: the newest run is {} (INVALID runs never enter a baseline)\n", newest.entry.verdict);
    } else {
      for (const auto& name : names) {
        const auto& vals = values[name];
        if (!vals.contains(newest.id)) continue;
        std::vector<double> base;
        for (const auto* b : baseline)
          if (vals.contains(b->id)) base.push_back(vals.at(b->id));
        // Both folders' records at hand: the per-request distributions decide the noise too,
        // against the baseline's most typical run (its value nearest the baseline's median).
        std::optional<double> p;
        const std::string row = per_request_row(name);
        const StoredRun* typical = nullptr;
        if (const auto band = robust_band(base)) {
          for (const auto* b : baseline)
            if (vals.contains(b->id) && (!typical || std::abs(vals.at(b->id) - band->median) <
                                                          std::abs(vals.at(typical->id) - band->median)))
              typical = b;
        }
        if (!row.empty() && typical) {
          auto a = request_values(typical->entry.folder, row);
          auto b = request_values(newest.entry.folder, row);
          if (a && b && a->size() >= 2 && b->size() >= 2) p = metrics::mann_whitney(*a, *b).p_value;
        }
        const Judgement j = judge(name, vals.at(newest.id), base, threshold, p);
        // Where the series stepped: the change points over every VALID run up to the newest.
        std::vector<double> series;
        std::vector<const StoredRun*> at;
        for (const auto& r : runs)
          if (r.entry.valid() && vals.contains(r.id)) {
            series.push_back(vals.at(r.id));
            at.push_back(&r);
          }
        const auto steps = change_points(series, threshold);
        const StoredRun* step = steps.empty() ? nullptr : at[steps.back()];
        regressions += j.regression;
        w.begin_object().field("metric", name).field("value", j.value).field("baseline_median", j.baseline);
        w.field("change", j.change).field("regression", j.regression).field("why", j.why);
        if (j.band) w.key("band").begin_array().value(j.band->low).value(j.band->high).end_array();
        if (j.p_value) w.field("mann_whitney_p", *j.p_value).field("mann_whitney_against", typical->entry.run_id);
        if (step) w.field("change_point", step->entry.run_id).field("change_point_id", step->id);
        w.end_object();
        if (!o.json) {
          fmt::print(out, "  {} {}{}\n", j.regression ? "REGRESSION" : "ok        ", j.why,
                     step ? fmt::format("; the series stepped at run {} (id {})", step->entry.run_id, step->id) : "");
        }
      }
    }
    w.end_array().end_object();
  }
  w.end_array().field("regressions", static_cast<int64_t>(regressions)).end_object();
  if (o.json) {
    fmt::print(out, "{}\n", w.take());
  } else {
    fmt::print(out, "{} regression(s); a change counts when it is worse, beyond {:.1f}%, outside the baseline's band (median ± "
                    "{} scaled MADs) and, where both folders' records are at hand, significant by Mann–Whitney (p < 0.05)\n",
               regressions, 100 * threshold, kBandMads);
  }
  return regressions > 0 ? kExitThreshold : kExitValid;
}

}  // namespace tokbench::history
