#include "runner/search.hpp"

#include <fmt/format.h>

#include <cmath>

#include "common/format.hpp"
#include "common/json_writer.hpp"
#include "report/chart_asset.hpp"
#include "report/html.hpp"
#include "report/outputs.hpp"
#include "runner/points.hpp"

namespace tokbench::runner {

namespace fs = std::filesystem;

namespace {

std::string load_text(double x, bool integer) { return integer ? fmt::format("{}", static_cast<int64_t>(x)) : format_round4(x); }

// A probe's pass/fail from its run: every SLO present and within its bound, and a VALID run.
Probe judge(const RunOutcome& o, const std::vector<metrics::RunSlo>& slos, double load) {
  Probe p;
  p.label = o.label;
  p.load = load;
  p.verdict = o.verdict.valid ? "VALID" : "INVALID";
  p.pass = o.verdict.valid;
  if (!o.verdict.valid) p.why = o.verdict.reasons.empty() ? "INVALID" : o.verdict.reasons.front();
  for (const auto& s : slos) {
    const auto v = s.value(o.metrics);
    p.values.push_back(v);
    if (!v || *v > s.bound_ms) {
      p.pass = false;
      if (p.why.empty())
        p.why = v ? fmt::format("{} was {} ms", s.text(), format_round4(*v)) : fmt::format("{}: no value (n/a)", s.text());
    }
  }
  return p;
}

// Within the margin of a bound on either side: one more run decides.
bool too_close(const Probe& p, const std::vector<metrics::RunSlo>& slos, double margin) {
  for (size_t i = 0; i < slos.size(); ++i)
    if (p.values[i] && std::abs(*p.values[i] - slos[i].bound_ms) <= margin * slos[i].bound_ms) return true;
  return false;
}

std::string history_json(const SearchResult& r, const RunConfig& cfg, const std::vector<metrics::RunSlo>& slos,
                         const SearchSpace& space) {
  JsonWriter w;
  w.begin_object().field("format", "tokbench-search/1").field("search", cfg.search);
  w.key("slos").begin_array();
  for (const auto& s : slos) w.value(s.text());
  w.end_array();
  w.key("answer");
  if (r.answer) w.value(*r.answer); else w.null();
  w.field("text", r.text).field("resolution", space.resolution).field("relative_resolution", space.relative_resolution);
  w.field("min", space.min).field("max", space.max).field("margin", cfg.search_margin);
  w.field("rule", "probe from min, doubling, until a probe fails; then bisect between the last pass and the first failure "
                  "until high - low <= resolution; a probe within the margin of a bound is run twice, and counts as a "
                  "failure (uncertain) when the two disagree");
  w.key("history").begin_array();
  for (const auto& p : r.history) {
    w.begin_object().field("probe", p.label).field("load", p.load).field("pass", p.pass).field("uncertain", p.uncertain);
    w.field("verdict", p.verdict).field("why", p.why).key("values").begin_object();
    for (size_t i = 0; i < slos.size(); ++i) {
      w.key(slos[i].text());
      if (p.values[i]) w.value(*p.values[i]); else w.null();
    }
    w.end_object().field("folder", p.label).end_object();
  }
  w.end_array().end_object();
  return w.take();
}

constexpr const char* kSearchScript = R"JS(
const S = JSON.parse(document.getElementById('search-data').textContent);
const ch = echarts.init(document.getElementById('probes'));
const series = S.slos.map((slo) => ({name: slo, type: 'scatter', symbolSize: 12,
  data: S.history.map((p) => ({value: [p.load, p.values[slo]], itemStyle: {color: p.pass ? '#2e7d32' : '#c62828'}})),
  markLine: {symbol: 'none', label: {formatter: slo.replace(/.*<=/, '<= ')},
             data: [{yAxis: parseFloat(slo.replace(/.*<=/, ''))}]}}));
ch.setOption({animation: false, tooltip: {}, legend: {top: 0}, xAxis: {type: 'value', name: S.search},
  yAxis: {type: 'value', name: 'ms'}, series});
window.TOKBENCH_SEARCH = {answer: S.answer, history: S.history, rendered: true};
)JS";

std::string page(const SearchResult& r, const std::string& json, const std::vector<metrics::RunSlo>& slos) {
  std::string p = "<!doctype html><html><head><meta charset=\"utf-8\"><title>tokbench search</title><style>"
                  "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;"
                  "padding:4px 8px;text-align:right}td:first-child{text-align:left}.fail{background:#fde2e2}"
                  "</style></head><body><h1>tokbench search</h1><p id=\"answer\">" + report::escape_html(r.text) + "</p>";
  p += "<table><tr><th>probe</th><th>load</th><th>pass</th>";
  for (const auto& s : slos) p += "<th>" + report::escape_html(s.text()) + "</th>";
  p += "<th>why</th></tr>";
  for (const auto& pr : r.history) {
    p += fmt::format("<tr{}><td>{}</td><td>{}</td><td>{}</td>", pr.pass ? "" : " class=\"fail\"", report::escape_html(pr.label),
                     format_round4(pr.load), pr.pass ? "yes" : pr.uncertain ? "uncertain" : "no");
    for (const auto& v : pr.values) p += "<td>" + (v ? format_round4(*v) : std::string("n/a")) + "</td>";
    p += "<td>" + report::escape_html(pr.why) + "</td></tr>";
  }
  p += "</table><h2>SLO values per probe</h2><div id=\"probes\" style=\"width:100%;height:420px\"></div>";
  p += "<script>" + std::string(report::chart_library()) + "</script>";
  p += "<script type=\"application/json\" id=\"search-data\">" + report::script_safe(json) + "</script>";
  p += "<script>" + std::string(kSearchScript) + "</script></body></html>\n";
  return p;
}

SearchSpace space_of(const RunConfig& c) {
  SearchSpace s;
  s.integer = c.search == "max-concurrency";
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

}  // namespace

Probe decide_probe(const std::function<Probe()>& run_once, const std::vector<metrics::RunSlo>& slos, double margin,
                   const std::function<bool()>& stopped) {
  const Probe first = run_once();
  if (stopped() || !too_close(first, slos, margin)) return first;
  Probe again = run_once();  // within the margin of a bound: one more run decides
  if (again.pass != first.pass) {
    again.uncertain = true;
    again.pass = false;  // the answer errs low, never high
    again.why = fmt::format("too close to call: passed once and failed once within the {}% margin of a bound", margin * 100);
  }
  again.label = first.label + "," + again.label;  // both folders
  return again;
}

SearchResult bracket_and_bisect(const SearchSpace& space, const std::function<Probe(double)>& run_probe,
                                const std::function<bool()>& stopped) {
  SearchResult r;
  std::optional<double> lo, hi;
  auto probe = [&](double x) {
    r.history.push_back(run_probe(x));
    return r.history.back().pass;
  };
  // Bracket: double from min until a probe fails or max passes.
  for (double x = space.min; !stopped();) {
    if (!probe(x)) {
      hi = x;
      break;
    }
    lo = x;
    if (x >= space.max) break;
    x = std::min(space.max, space.integer ? std::floor(2 * x) : 2 * x);
  }
  // Bisect: the answer lies in [lo, hi).
  auto wide = [&] {
    const double res = space.relative_resolution ? space.resolution * *lo : space.resolution;
    return *hi - *lo > res + 1e-12;
  };
  while (lo && hi && wide() && !stopped()) {
    double mid = (*lo + *hi) / 2;
    if (space.integer) mid = std::floor(mid);
    if (mid <= *lo || mid >= *hi) break;
    (probe(mid) ? lo : hi) = mid;
  }
  r.answer = lo;
  auto t = [&](double x) { return load_text(x, space.integer); };
  if (!lo) {
    r.text = fmt::format("no load meets the SLOs: even the first probe ({}) failed ({}); lower --search-min", t(space.min),
                         r.history.empty() ? "not run" : r.history.front().why);
  } else if (!hi) {
    r.text = fmt::format("every probe up to --search-max {} met the SLOs: the answer is at least {}; raise --search-max",
                         t(space.max), t(*lo));
  } else {
    r.text = fmt::format("the highest load meeting every SLO is {} (the next probe, {}, failed: {}); resolution {}", t(*lo),
                         t(*hi), [&] {
                           for (const auto& p : r.history)
                             if (p.load == *hi) return p.why;
                           return std::string();
                         }(), space.relative_resolution ? fmt::format("{}%", space.resolution * 100) : t(space.resolution));
  }
  if (stopped()) r.text = "interrupted: " + r.text;
  return r;
}

RunOutcome run_search(RunPlan& plan, std::atomic<int>& stop, std::FILE* console) {
  const std::vector<metrics::RunSlo>& slos = plan.parsed.slos;
  const SearchSpace space = space_of(plan.cfg);
  PointSession session(plan, stop, console, fmt::format("search {} under {}", plan.cfg.search, plan.cfg.slo));
  const bool conc = space.integer;
  auto run_at = [&](double x) {
    RunPlan point = plan;
    for (RunConfig* c : {&point.cfg, &point.requested}) {
      if (conc) c->concurrency = static_cast<int>(x);
      else c->request_rate = x;
    }
    const std::string label = conc ? fmt::format("c{}", static_cast<int64_t>(x)) : fmt::format("r{}", format_round4(x));
    fmt::print(console, "\n== search probe: {} ==\n", label);
    return judge(session.run(point, label), slos, x);
  };
  auto run_probe = [&](double x) {
    return decide_probe([&] { return run_at(x); }, slos, plan.cfg.search_margin, [&] { return session.stopped(); });
  };
  SearchResult r;
  try {
    r = bracket_and_bisect(space, run_probe, [&] { return session.stopped(); });
  } catch (const std::exception& e) {
    r.text = fmt::format("the search stopped: {}", e.what());
  }
  const std::string server_process = session.close();
  const fs::path dir = session.root() / "search";
  fs::create_directories(dir);
  std::string json = history_json(r, plan.cfg, slos, space);
  if (!server_process.empty()) json.insert(json.size() - 1, ",\"server_process\":" + server_process);
  report::write_file(dir / "search.json", json);
  report::write_file(dir / "search.html", page(r, json, slos));

  fmt::print(console, "\nsearch {} under {}:\n", plan.cfg.search, plan.cfg.slo);
  for (const auto& p : r.history) {
    std::string vals;
    for (size_t i = 0; i < slos.size(); ++i)
      vals += fmt::format("  {}={}", slos[i].text(), p.values[i] ? format_round4(*p.values[i]) : "n/a");
    fmt::print(console, "  {:<10} {:<9}{}\n", p.label, p.pass ? "pass" : p.uncertain ? "uncertain" : "fail", vals);
  }
  fmt::print(console, "{}\nsearch: {}\n  result: {}\n  page:   {}\n", r.text, session.root().string(),
             (dir / "search.json").string(), (dir / "search.html").string());
  std::fflush(console);
  RunOutcome out;
  out.run_dir = session.root();
  out.interrupted = session.stopped();
  out.verdict.valid = r.answer.has_value();
  if (!r.answer) out.verdict.reasons.push_back(r.text);
  out.exit_code = out.interrupted ? 130 : r.answer ? 0 : 1;
  return out;
}

}  // namespace tokbench::runner
