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

// Adds the per-request values of `row` in a run folder to `into`; false when its records are not
// at hand.
bool add_request_values(const std::string& folder, const std::string& row, metrics::Samples& into) {
  try {
    const runfolder::RunFolder f = runfolder::load_run_folder(folder);
    if (!fs::exists(f.details)) return false;
    record::for_each_detail(f.details.string(), [&](record::RequestRecord&& r) {
      if (auto v = metrics::request_value(r, row)) into.push(*v);
    });
    return true;
  } catch (const std::exception&) {
    return false;  // moved or deleted: the robust band alone judges
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
        std::vector<const StoredRun*> had;  // the baseline runs with the metric, as `base`
        for (const auto* b : baseline)
          if (vals.contains(b->id)) {
            base.push_back(vals.at(b->id));
            had.push_back(b);
          }
        // The records at hand: the per-request distributions decide the noise too, the newest
        // run's against the pooled requests of the baseline's typical runs (nearest its median).
        std::optional<double> p;
        const std::string row = per_request_row(name);
        const auto band = robust_band(base);
        if (per_request && !row.empty() && band) {
          metrics::Samples pooled;
          std::vector<std::string> pooled_ids;
          for (size_t i : typical_runs(base, band->median))
            if (add_request_values(had[i]->entry.folder, row, pooled))
              pooled_ids.push_back(had[i]->entry.run_id);
          metrics::Samples newest;
          if (add_request_values(sc.newest.entry.folder, row, newest) && pooled.size() >= 2 &&
              newest.size() >= 2) {
            p = metrics::mann_whitney(pooled, newest).p_value;
            m.pooled_runs = std::move(pooled_ids);
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
