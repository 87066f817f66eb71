#include "compare/compare.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <map>
#include <sstream>
#include <stdexcept>

#include "common/exit_codes.hpp"
#include "common/format.hpp"
#include "common/json_writer.hpp"
#include "common/parallel.hpp"
#include "common/significance.hpp"
#include "compare/thresholds.hpp"
#include "history/commands.hpp"
#include "metrics/metrics.hpp"
#include "record/record_io.hpp"
#include "report/compare_page.hpp"
#include "report/outputs.hpp"
#include "runfolder/files.hpp"
#include "runfolder/run_folder.hpp"
#include "runfolder/series.hpp"

namespace tokbench::compare {

namespace fs = std::filesystem;
using metrics::stat_of;

namespace {

constexpr double kAlpha = 0.05;  // significance level of the Mann–Whitney test
constexpr const char* kTested[] = {"E2EL", "TTFT", "TPOT", "OutputTokenThroughput"};

struct Run {
  fs::path dir;
  int64_t concurrency = 1;
  double request_rate = 0;
  // Per-request values of the tested metrics, in bounded memory at any run length (they spill
  // sorted runs to disk): Mann–Whitney ranks them exactly by walking two of them side by side.
  std::map<std::string, metrics::Samples> values;
  metrics::MetricSet m;
  std::map<std::string, std::string> config, body, server;  // flattened JSON
};

// Flattens a JSON value into path -> minified value.
void flatten(simdjson::dom::element e, const std::string& prefix,
             std::map<std::string, std::string>& out) {
  simdjson::dom::object o;
  if (!e.get_object().get(o)) {
    for (auto f : o)
      flatten(f.value, prefix.empty() ? std::string(f.key) : prefix + "." + std::string(f.key),
              out);
    return;
  }
  out[prefix] = simdjson::minify(e);
}

Run load(const fs::path& dir) {
  runfolder::RunFolder f = runfolder::load_run_folder(dir);
  Run r;
  r.dir = f.dir;
  r.concurrency = f.manifest.facts.max_concurrency;
  r.request_rate = f.manifest.request_rate;
  // One pass: the statistics, and the per-request values the significance test ranks.
  metrics::MetricsPass pass(f.manifest.facts, {metrics::Definitions::Tokbench});
  for (const char* name : kTested) r.values.emplace(name, metrics::Samples());
  if (fs::exists(f.details)) {
    record::for_each_detail(f.details.string(), [&](record::RequestRecord&& rec) {
      pass.add(rec);
      for (const char* name : kTested)
        if (auto v = metrics::request_value(rec, name)) r.values.at(name).push(*v);
    });
  }
  r.m = std::move(pass.finish().front());
  runfolder::RunInfo info = f.manifest.info;
  info.server_json = runfolder::read_file(dir / "server.json");
  simdjson::dom::parser p;
  simdjson::dom::element e;
  if (!p.parse(info.config_json).get(e)) flatten(e, "", r.config);
  for (const char* volatile_key : {"output_dir", "api_key", "history"})
    r.config.erase(volatile_key);
  if (!info.body_example.empty() && !p.parse(info.body_example).get(e)) flatten(e, "", r.body);
  if (!info.server_json.empty() && !p.parse(info.server_json).get(e)) {
    for (const char* k : {"generation_token_throughput", "prompt_token_throughput",
                          "spec_acceptance_rate", "spec_mean_acceptance_length"}) {
      simdjson::dom::element v;
      if (!e[k].get(v)) r.server[k] = simdjson::minify(v);
    }
    for (const char* k : {"ttft_ms", "itl_per_step_ms", "e2e_ms", "queue_ms"}) {
      simdjson::dom::element v;
      if (!e[k]["mean"].get(v)) r.server[std::string(k) + ".mean"] = simdjson::minify(v);
    }
  }
  // Prompt text differs with the dataset; what matters is the shape of the body.
  for (auto& [k, v] : r.body)
    if (k.starts_with("messages") || k == "prompt") v = "(prompt)";
  return r;
}

std::string pct(double base, double v) {
  if (base == 0) return v == 0 ? "0%" : "n/a";
  return fmt::format("{:+.2f}%", 100 * (v - base) / base);
}

struct Diff {
  std::string key, a, b;
};

std::vector<Diff> diff(const std::map<std::string, std::string>& a,
                       const std::map<std::string, std::string>& b) {
  std::vector<Diff> out;
  for (const auto& [k, v] : a) {
    auto it = b.find(k);
    if (it == b.end())
      out.push_back({k, v, "(absent)"});
    else if (it->second != v)
      out.push_back({k, v, it->second});
  }
  for (const auto& [k, v] : b)
    if (!a.contains(k)) out.push_back({k, "(absent)", v});
  return out;
}

}  // namespace

namespace {

struct Line {
  std::string name;
  std::vector<std::string> cells;
  bool significant = false;
};

// --check-answers: each run's accuracy with its 95% Wilson interval; a change is significant when
// the intervals do not overlap. nullopt when no run scored an answer.
std::optional<Line> accuracy_line(const std::vector<Run>& runs) {
  auto text = [](const metrics::AnswerTally& a) {
    const metrics::WilsonInterval i = a.interval();
    return fmt::format("{:.4f} [{:.4f}, {:.4f}]", i.p, i.low, i.high);
  };
  const metrics::AnswerTally& b = runs.front().m.quality.answers;
  if (std::none_of(runs.begin(), runs.end(),
                   [](const Run& r) { return r.m.quality.answers.scored() > 0; }))
    return std::nullopt;
  Line line{"accuracy", {b.scored() > 0 ? text(b) : "n/a"}, false};
  for (size_t i = 1; i < runs.size(); ++i) {
    const metrics::AnswerTally& a = runs[i].m.quality.answers;
    std::string cell = a.scored() > 0 ? text(a) : "n/a";
    if (a.scored() > 0 && b.scored() > 0) {
      const auto x = a.interval(), y = b.interval();
      const bool apart = x.high < y.low || y.high < x.low;
      line.significant |= apart;
      cell += fmt::format(" ({}, {})", pct(y.p, x.p),
                          apart ? "intervals apart: significant" : "intervals overlap: noise");
    }
    line.cells.push_back(cell);
  }
  return line;
}

// The metric table's lines: baseline, then each run with its change and, for per-request
// latencies, the Mann–Whitney verdict.
std::vector<Line> metric_lines(std::vector<Run>& runs) {
  Run& base = runs.front();
  std::vector<Line> lines;
  const char* rows[] = {"E2EL", "TTFT", "TPOT", "ITL", "OutputTokens", "OutputTokenThroughput"};
  for (const char* row : rows) {
    for (const char* stat : {"mean", "median", "p99"}) {
      Line line{fmt::format("{}.{}", row, stat), {}, false};
      const auto b = stat_of(base.m, row, stat);
      line.cells.push_back(b ? format_round4(*b) : "n/a");
      for (size_t i = 1; i < runs.size(); ++i) {
        const auto v = stat_of(runs[i].m, row, stat);
        std::string cell = v ? format_round4(*v) : "n/a";
        if (v && b) cell += " (" + pct(*b, *v);
        const std::string r(row);
        if (v && b && std::string(stat) == "median" && r != "ITL" && r != "OutputTokens") {
          const auto mw = metrics::mann_whitney(base.values.at(r), runs[i].values.at(r));
          const bool sig = mw.p_value < kAlpha;
          line.significant |= sig;
          cell += fmt::format(", p={:.3g} {}", mw.p_value, sig ? "significant" : "noise");
        }
        if (v && b) cell += ")";
        line.cells.push_back(cell);
      }
      lines.push_back(std::move(line));
    }
  }
  for (const char* key : {"request_throughput", "output_token_throughput", "success_requests",
                          "failed_requests", "concurrency"}) {
    Line line{key, {}, false};
    const double b = base.m.common_metric(key)->value;
    line.cells.push_back(format_round4(b));
    for (size_t i = 1; i < runs.size(); ++i) {
      const double v = runs[i].m.common_metric(key)->value;
      line.cells.push_back(format_round4(v) + " (" + pct(b, v) + ")");
    }
    lines.push_back(std::move(line));
  }
  if (auto line = accuracy_line(runs)) lines.push_back(std::move(*line));
  return lines;
}

// What differs besides the numbers: request bodies, configs, server metrics.
std::string differences(const std::vector<Run>& runs) {
  const Run& base = runs.front();
  std::string diffs;
  for (size_t i = 1; i < runs.size(); ++i) {
    const std::pair<const char*, std::vector<Diff>> sections[] = {
        {"request body", diff(base.body, runs[i].body)},
        {"config", diff(base.config, runs[i].config)},
        {"server /metrics", diff(base.server, runs[i].server)}};
    for (const auto& [what, ds] : sections) {
      if (ds.empty()) continue;
      diffs += fmt::format("{} differs ({} vs {}):\n", what, base.dir.filename().string(),
                           runs[i].dir.filename().string());
      for (const auto& d : ds) diffs += fmt::format("  {}: {} -> {}\n", d.key, d.a, d.b);
    }
  }
  return diffs;
}

std::vector<std::string> crossed_thresholds(const std::vector<Threshold>& thresholds,
                                            const std::vector<Run>& runs) {
  const Run& base = runs.front();
  std::vector<std::string> crossed;
  for (const auto& t : thresholds) {
    const auto b = stat_of(base.m, t.metric, t.stat);
    if (!b)
      throw std::invalid_argument(fmt::format("--fail-if '{}': the baseline has no {}{}", t.text,
                                              t.metric, t.stat.empty() ? "" : "." + t.stat));
    for (size_t i = 1; i < runs.size(); ++i) {
      const auto v = stat_of(runs[i].m, t.metric, t.stat);
      if (!v) continue;
      if (const auto x = metrics::crossed(t, *b, *v))
        crossed.push_back(fmt::format("{}: {} is {}{}", t.text, runs[i].dir.filename().string(),
                                      format_round4(*x), t.relative ? "%" : ""));
    }
  }
  return crossed;
}

// The page's contents: the table, the differences, the thresholds and, when the runs differ in
// concurrency (or rate), the throughput-latency curve.
report::CompareContents page_contents(const std::vector<Run>& runs, const std::vector<Line>& lines,
                                      const std::string& diffs,
                                      const std::vector<Threshold>& thresholds,
                                      const std::vector<std::string>& crossed) {
  report::CompareContents c;
  for (const auto& r : runs) c.runs.push_back(r.dir.filename().string());
  for (const auto& l : lines) c.rows.push_back({l.name, l.cells, l.significant});
  c.differences = diffs;
  c.thresholds = !thresholds.empty();
  c.crossed = crossed;
  const bool by_rate =
      std::all_of(runs.begin(), runs.end(), [](const Run& x) { return x.request_rate > 0; });
  std::map<double, int> distinct;
  for (const auto& x : runs)
    distinct[by_rate ? x.request_rate : static_cast<double>(x.concurrency)]++;
  if (distinct.size() < 2) return c;
  c.x_name = by_rate ? "request rate (req/s)" : "concurrency";
  for (const auto& x : runs) {
    c.points.push_back({x.dir.filename().string(),
                        by_rate ? x.request_rate : static_cast<double>(x.concurrency),
                        stat_of(x.m, "TTFT", "p99"), stat_of(x.m, "TPOT", "p99"),
                        x.m.common_metric("output_token_throughput")->value});
  }
  std::stable_sort(c.points.begin(), c.points.end(),
                   [](const auto& a, const auto& b) { return a.x < b.x; });
  return c;
}

// A comparison's own folder beside the runs (compare_<YYYYmmdd_HHMMSS>[_N]): it never writes into a
// run folder, and a second comparison in the same second does not overwrite the first.
fs::path own_folder(const fs::path& beside) {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d_%H%M%S", &tm);
  for (int n = 1; n < 1000; ++n) {
    const fs::path dir =
        beside / (std::string("compare_") + stamp + (n > 1 ? "_" + std::to_string(n) : ""));
    std::error_code ec;
    if (fs::create_directories(dir, ec)) return dir;
    if (ec)
      throw std::runtime_error(
          fmt::format("cannot create {}: {} (pass --html PATH)", dir.string(), ec.message()));
  }
  throw std::runtime_error(
      fmt::format("no free compare_{}_N folder in {} (pass --html PATH)", stamp, beside.string()));
}

// The key a threshold names in a repeat summary: "tpot.p99" -> tpot_p99_ms, a common key as is.
std::string series_key(const Threshold& t) {
  if (t.stat.empty()) return t.metric;
  std::string m;
  for (char c : t.metric)
    m.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return fmt::format("{}_{}_ms", m, t.stat);
}

// Repeat series (run --repeats): per metric, each series' mean ± its interval, the change of the
// mean, and Welch's t-test on the per-run values (runs, not requests, are the independent unit).
int compare_series(const std::vector<runfolder::RepeatSeries>& series,
                   const std::vector<Threshold>& thresholds, std::FILE* console) {
  const runfolder::RepeatSeries& base = series.front();
  std::string table = "metric";
  for (size_t i = 0; i < series.size(); ++i)
    table += fmt::format(" | {}{}", series[i].root.filename().string(),
                         i ? " (change, Welch p)" : " (baseline)");
  table += "\n";
  auto cell = [](const std::vector<double>& v, double level) {
    const auto ci = metrics::confidence_interval(v, level);
    return std::isnan(ci.half_width)
               ? format_round4(ci.mean)
               : fmt::format("{} ± {}", format_round4(ci.mean), format_round4(ci.half_width));
  };
  for (const auto& key : base.keys) {
    const auto it = base.values.find(key);
    if (it == base.values.end() || it->second.empty()) continue;
    table += key + " | " + cell(it->second, base.level);
    for (size_t i = 1; i < series.size(); ++i) {
      const auto jt = series[i].values.find(key);
      if (jt == series[i].values.end() || jt->second.empty()) {
        table += " | n/a";
        continue;
      }
      const double p = metrics::welch_p_value(it->second, jt->second);
      const double mb = metrics::confidence_interval(it->second, base.level).mean;
      const double mi = metrics::confidence_interval(jt->second, base.level).mean;
      table += fmt::format(" | {} ({}, p={:.3g}{})", cell(jt->second, base.level), pct(mb, mi), p,
                           p < kAlpha ? ", significant" : "");
    }
    table += "\n";
  }
  fmt::print(console,
             "{}repeat series: {:.0f}% intervals (Student's t over runs); Welch's t-test on "
             "per-run values, "
             "alpha = {}\n",
             table, base.level * 100, kAlpha);
  std::vector<std::string> crossed;
  for (const auto& t : thresholds) {
    const std::string key = series_key(t);
    const auto b = base.values.find(key);
    if (b == base.values.end() || b->second.empty())
      throw std::invalid_argument(
          fmt::format("--fail-if '{}': the baseline series has no {}", t.text, key));
    const double mb = metrics::confidence_interval(b->second, base.level).mean;
    for (size_t i = 1; i < series.size(); ++i) {
      const auto v = series[i].values.find(key);
      if (v == series[i].values.end() || v->second.empty()) continue;
      const double mi = metrics::confidence_interval(v->second, base.level).mean;
      if (const auto x = metrics::crossed(t, mb, mi))
        crossed.push_back(fmt::format("{}: {} is {}{}", t.text, series[i].root.filename().string(),
                                      format_round4(*x), t.relative ? "%" : ""));
    }
  }
  for (const auto& c : crossed) fmt::print(console, "FAIL {}\n", c);
  return crossed.empty() ? kExitValid : kExitThreshold;
}

}  // namespace

int compare_runs(CompareOptions o, std::FILE* console) {
  if (!o.history.empty()) o.runs = history::resolve_runs(o.history, o.runs);
  if (o.runs.size() < 2)
    throw std::invalid_argument(
        "compare: give at least two run folders (the first is the baseline)");
  std::vector<Threshold> thresholds;
  for (const auto& f : o.fail_if) thresholds.push_back(parse_threshold(f));
  std::vector<runfolder::RepeatSeries> series;
  for (const auto& r : o.runs)
    if (auto s = runfolder::load_repeat_series(r)) series.push_back(std::move(*s));
  if (!series.empty() && series.size() != o.runs.size()) {
    throw std::invalid_argument(
        "compare: mix of repeat series (run --repeats) and single runs: compare series with "
        "series, "
        "or single run folders (e.g. SERIES/run-1) with each other");
  }
  if (!series.empty()) return compare_series(series, thresholds, console);
  // Each folder is read in one pass of its own (bounded memory each): on every core at once.
  std::vector<Run> runs(o.runs.size());
  parallel_for(runs.size(), [&](size_t i) { runs[i] = load(o.runs[i]); });

  std::string table = "metric";
  for (size_t i = 0; i < runs.size(); ++i)
    table += fmt::format(" | {}{}", runs[i].dir.filename().string(),
                         i ? " (change, test)" : " (baseline)");
  table += "\n";
  const std::vector<Line> lines = metric_lines(runs);
  for (const auto& l : lines) {
    table += l.name;
    for (const auto& c : l.cells) table += " | " + c;
    table += "\n";
  }
  fmt::print(console, "{}", table);
  const std::string diffs = differences(runs);
  fmt::print(
      console, "{}",
      diffs.empty() ? "request bodies, configs and server metrics: no differences\n" : diffs);
  const std::vector<std::string> crossed = crossed_thresholds(thresholds, runs);
  for (const auto& c : crossed) fmt::print(console, "FAIL {}\n", c);
  const fs::path html = o.html.empty() ? own_folder(runs.back().dir.parent_path()) / "compare.html"
                                       : fs::path(o.html);
  runfolder::write_file(
      html, report::compare_page(page_contents(runs, lines, diffs, thresholds, crossed)));
  fmt::print(console, "page: {}\n", html.string());
  return crossed.empty() ? kExitValid : kExitThreshold;
}

}  // namespace tokbench::compare
