#include "history/analysis.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>

#include "common/samples.hpp"
#include "common/significance.hpp"
#include "metrics/metrics.hpp"
#include "record/record_io.hpp"
#include "runfolder/run_folder.hpp"

namespace tokbench::history {

namespace fs = std::filesystem;

namespace {

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
    const runfolder::RunFolder f = runfolder::load_run_folder(folder);
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

std::vector<std::pair<std::string, std::vector<StoredRun>>> by_scenario(
    std::vector<StoredRun> runs, const std::vector<std::string>& keys) {
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

std::vector<ScenarioAnalysis> analyse(Store& store, const HistoryOptions& o,
                                      const std::vector<std::string>& names, bool per_request) {
  const double threshold = parse_threshold(o.threshold);
  std::map<std::string, std::map<int64_t, double>> values;
  for (const auto& n : names) values[n] = store.metric(n);
  std::vector<ScenarioAnalysis> out;
  for (auto& [s, runs] : by_scenario(selected(store, o), o.scenario_keys)) {
    ScenarioAnalysis sc;
    sc.scenario = s;
    sc.newest = runs.back();
    std::vector<const StoredRun*>
        baseline;  // the last N VALID runs before the newest, oldest first
    for (auto it = runs.rbegin() + 1;
         it != runs.rend() && baseline.size() < static_cast<size_t>(o.baseline); ++it)
      if (it->entry.valid()) baseline.insert(baseline.begin(), &*it);
    sc.baseline_runs = baseline.size();
    for (const auto& name : names) {
      const auto& vals = values[name];
      MetricAnalysis m;
      m.metric = name;
      for (const auto& r : runs)
        if (r.entry.valid() && vals.contains(r.id))
          m.series.push_back(
              {r.id, r.entry.run_id, r.entry.started_at, r.entry.folder, vals.at(r.id)});
      if (m.series.empty()) continue;
      m.change_points = change_points(
          [&] {
            std::vector<double> v;
            for (const auto& p : m.series) v.push_back(p.value);
            return v;
          }(),
          threshold);
      if (sc.newest.entry.valid() && vals.contains(sc.newest.id)) {
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
            if (vals.contains(b->id) &&
                (!typical || std::abs(vals.at(b->id) - band->median) <
                                 std::abs(vals.at(typical->id) - band->median)))
              typical = b;
        }
        if (per_request && !row.empty() && typical) {
          auto a = request_values(typical->entry.folder, row);
          auto b = request_values(sc.newest.entry.folder, row);
          if (a && b && a->size() >= 2 && b->size() >= 2) {
            p = metrics::mann_whitney(*a, *b).p_value;
            m.typical_run = typical->entry.run_id;
          }
        }
        m.judgement = judge(name, vals.at(sc.newest.id), base, threshold, p);
      }
      sc.metrics.push_back(std::move(m));
    }
    out.push_back(std::move(sc));
  }
  return out;
}

}  // namespace tokbench::history
