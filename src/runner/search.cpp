#include "runner/search.hpp"

#include <fmt/format.h>

#include <cmath>

#include "common/format.hpp"
#include "common/json_writer.hpp"
#include "report/outputs.hpp"
#include "report/search_page.hpp"
#include "runner/points.hpp"

namespace tokbench::runner {

namespace fs = std::filesystem;

namespace {

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

SearchSpace space_of(const RunConfig& c) {
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

}  // namespace

RunOutcome run_search(RunPlan& plan, std::atomic<int>& stop, std::FILE* console) {
  const std::vector<metrics::RunSlo>& slos = plan.parsed.slos;
  const SearchSpace space = space_of(plan.cfg);
  PointSession session(plan, stop, console, fmt::format("search {} under {}", kSearchAxes.name(plan.cfg.search), plan.cfg.slo));
  const bool conc = space.integer;
  auto run_at = [&](double x) {
    RunPlan point = plan;
    for (RunConfig* c : {&point.cfg, &point.requested}) {
      if (conc) c->concurrency = static_cast<int>(x);
      else c->request_rate = x;
    }
    const std::string label = conc ? fmt::format("c{}", static_cast<int64_t>(x)) : fmt::format("r{}", format_round4(x));
    fmt::print(session.point_console(), "\n== search probe: {} ==\n", label);
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
  const auto server_process = session.close();
  const fs::path dir = session.root() / "search";
  fs::create_directories(dir);
  std::string json = report::search_json(r, {std::string(kSearchAxes.name(plan.cfg.search)), plan.cfg.search_margin}, slos, space);
  if (server_process) json.insert(json.size() - 1, ",\"server_process\":" + record::to_json(*server_process));
  report::write_file(dir / "search.json", json);
  report::write_file(dir / "search.html", report::search_page(r, json, slos));

  fmt::print(console, "\nsearch {} under {}:\n", kSearchAxes.name(plan.cfg.search), plan.cfg.slo);
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
