#include "series/grid.hpp"

#include <fmt/format.h>
#include <simdjson.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <limits>

#include "common/format.hpp"
#include "common/json_fields.hpp"
#include "common/json_writer.hpp"
#include "common/significance.hpp"
#include "core/run_control.hpp"
#include "point/points.hpp"
#include "point/resume.hpp"
#include "report/outputs.hpp"
#include "runfolder/files.hpp"
#include "series/grid_page.hpp"
#include "series/series.hpp"
#include "series/sweep.hpp"
#include "series/sweep_page.hpp"
#include "settings/server_grid.hpp"

namespace tokbench::runner {

namespace fs = std::filesystem;

namespace {

// What a configuration's folder says of it once its series ended: the status and its points' loads
// (what --resume needs to read it back without starting its server).
constexpr const char* kPointFile = "grid_point.json";

struct PointRun {
  PointSpec spec;  ///< as it ran (its count the settled one)
  RowLoad load;
  RunOutcome outcome;
};

std::string x_name_of(const RunPlan& plan) {
  return plan.cfg.experiment.search == SearchAxis::MaxRate ? "request_rate"
                                                           : sweep_axis(plan).x_name;
}

std::string experiment_of(const ExperimentSettings& e, size_t sweep_points) {
  if (e.searching()) return fmt::format("search {}", kSearchAxes.name(e.search));
  if (e.repeats > 1) return fmt::format("repeats {}", e.repeats);
  return sweep_points > 1 ? fmt::format("sweep of {} load points", sweep_points) : "one load point";
}

void write_point_file(const fs::path& dir, const std::string& status, const std::string& why,
                      const std::vector<PointRun>& runs) {
  JsonWriter w;
  w.begin_object()
      .field("format", "tokbench-grid-point/1")
      .field("status", status)
      .field("why", why);
  w.key("points").begin_array();
  for (const PointRun& p : runs) {
    w.begin_object().field("folder", p.outcome.label).field("concurrency", p.spec.concurrency);
    w.field("request_rate", std::isinf(p.spec.request_rate) ? -1.0 : p.spec.request_rate)
        .field("num_prompts", p.spec.num_prompts);
    w.end_object();
  }
  w.end_array().end_object();
  fs::create_directories(dir);
  runfolder::write_file(dir / kPointFile, w.take());
}

// --resume: a configuration whose series ended and whose every point completed VALID, read back
// from its folders (no server started); nullopt: run it (again), reusing what is VALID.
std::optional<std::vector<PointRun>> completed_configuration(const fs::path& dir,
                                                             const RunPlan& base) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (!fs::exists(dir / kPointFile) || parser.load((dir / kPointFile).string()).get(doc))
    return std::nullopt;
  const std::string status = json::string_or(doc, "status");
  if (status != "ran" && status != "resumed") return std::nullopt;
  simdjson::dom::array points;
  if (doc["points"].get_array().get(points) || points.size() == 0) return std::nullopt;
  std::vector<PointRun> runs;
  for (simdjson::dom::element p : points) {
    const std::string folder = json::string_or(p, "folder");
    auto done = folder.empty() ? std::nullopt : completed_point(dir / folder);
    if (!done) return std::nullopt;
    done->label = folder;
    PointSpec spec = spec_of(base, folder);
    spec.concurrency = static_cast<int>(json::int_or(p, "concurrency", spec.concurrency));
    const double rate = json::number_or(p, "request_rate", 0);
    spec.request_rate = rate < 0 ? std::numeric_limits<double>::infinity() : rate;
    spec.num_prompts = json::int_or(p, "num_prompts", base.cfg.load.num_prompts);
    const RowLoad load = row_load(at_point(base, spec), sweep_axis(base).load_class);
    runs.push_back({std::move(spec), load, std::move(*done)});
  }
  return runs;
}

// The rows of one configuration, each judged against the run's --slo and each --class's slo=
// (which the point's verdict judges: slo_missed).
std::vector<report::GridRow> rows_of(const std::vector<PointRun>& runs, const std::string& x_name,
                                     const ParsedFlags& parsed, int devices) {
  const std::vector<metrics::RunSlo>& slos = parsed.slos;
  const bool class_slos = std::any_of(parsed.classes.begin(), parsed.classes.end(),
                                      [](const TrafficClass& k) { return !k.slos.empty(); });
  std::vector<report::GridRow> rows;
  for (const PointRun& p : runs) {
    report::GridRow r;
    r.point = load_point_row(p.outcome.label, x_name, p.load, p.outcome);
    r.per_device = r.point.output_token_throughput / devices;
    const std::vector<std::string>& class_missed = p.outcome.verdict.slo_missed;
    if (!slos.empty() || class_slos) {
      r.meets_slo = r.point.verdict == "VALID";
      if (!*r.meets_slo) r.slo_why = r.point.verdict;
      for (const auto& s : slos) {
        const auto v = s.value(p.outcome.metrics);
        if (v && *v <= s.bound_ms) continue;
        if (r.slo_why.empty())
          r.slo_why =
              v ? fmt::format("{} was {} ms", s.text(), format_round4(*v)) : s.text() + ": n/a";
        r.meets_slo = false;
      }
      if (!class_missed.empty()) {
        if (r.slo_why.empty()) r.slo_why = class_missed.front();
        r.meets_slo = false;
      }
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

bool qualifies(const report::GridRow& r) {
  return r.point.verdict == "VALID" && r.meets_slo.value_or(true);
}

// The configuration's answer: its best qualifying point; with repeats, the mean over the runs,
// every one of which must qualify.
metrics::CapacityCandidate answer_of(const report::GridConfig& c, const ExperimentSettings& e) {
  metrics::CapacityCandidate a;
  a.name = c.name;
  if (c.rows.empty()) return a;
  if (e.repeats > 1) {
    std::vector<double> values;
    for (const auto& r : c.rows) {
      if (!qualifies(r)) return a;
      values.push_back(r.per_device);
    }
    const auto ci = metrics::confidence_interval(values, e.confidence);
    a.value = ci.mean;
    if (!std::isnan(ci.half_width)) a.half_width = ci.half_width;
    a.runs = static_cast<int>(values.size());
    a.at = fmt::format("{} runs", values.size());
    return a;
  }
  for (const auto& r : c.rows) {
    if (!qualifies(r) || (a.value && *a.value >= r.per_device)) continue;
    a.value = r.per_device;
    a.at = r.point.label;
  }
  return a;
}

std::optional<double> search_answer(const fs::path& dir) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.load((dir / "search" / "search.json").string()).get(doc)) return std::nullopt;
  return json::optional_number(doc, "answer");
}

std::string values_text(const ServerPoint& sp) {
  std::string s;
  for (const auto& [k, v] : sp.values) s += fmt::format("{}{}={}", s.empty() ? "" : " ", k, v);
  return s;
}

// The plan of one configuration: its server command and environment, its folder, its labels.
RunPlan configuration_plan(const RunPlan& plan, const ServerPoint& sp) {
  RunPlan inner = plan;
  const std::string command =
      expand_server_command(plan.cfg.target.server_cmd, sp, url_port(plan.cfg.target_url()));
  for (auto* c : {&inner.cfg, &inner.requested}) {
    c->target.server_grid.clear();  // each configuration's points are plain runs of one server
    c->experiment.resume.clear();
    c->target.server_cmd = command;
    for (const auto& [k, v] :
         sp.values) {  // tagged with the grid's values (result.json, the results store)
      const bool given = std::any_of(c->output.labels.begin(), c->output.labels.end(),
                                     [&](const std::string& l) { return l.starts_with(k + "="); });
      if (!given) c->output.labels.push_back(k + "=" + v);
    }
  }
  inner.server_env = sp.env();
  return inner;
}

// The grid's exit code and verdict from its configurations.
void judge(RunOutcome& out, const std::vector<report::GridConfig>& configs,
           const metrics::CapacityChoice& choice, bool interrupted, bool disk_stopped) {
  // No answer from a complete grid: 1, as a run with no success; an incomplete one: INVALID.
  int code = choice.best ? 0 : choice.missing.empty() ? 1 : 4;
  for (const auto& c : configs) {
    if (c.status != "ran" && c.status != "resumed")
      out.verdict.reasons.push_back(
          fmt::format("{}: {}{}", c.name, c.status, c.why.empty() ? "" : " (" + c.why + ")"));
    for (const auto& r : c.rows)
      if (r.point.verdict != "VALID" && r.point.verdict != "SATURATED")
        out.verdict.reasons.push_back(
            fmt::format("{}/{}: {}", c.name, r.point.label, r.point.verdict));
  }
  if (code == 0 && !out.verdict.reasons.empty()) code = 4;
  if (!choice.best) out.verdict.reasons.push_back(choice.text);
  out.verdict.valid = code == 0;
  out.interrupted = interrupted;
  out.exit_code = series_exit_code(disk_stopped, interrupted, code);
}

void print_summary(std::FILE* console, const std::vector<report::GridConfig>& configs,
                   const metrics::CapacityChoice& choice, const fs::path& root) {
  fmt::print(console, "\nserver grid ({} configuration(s)):\n", configs.size());
  fmt::print(console, "  {:<32} {:<16} {:<12} {:>20} {:>12} {:>12}\n", "configuration", "status",
             "answer at", "out tok/s per device", "TTFT P99", "TPOT P99");
  for (const auto& c : configs) {
    const report::GridRow* at = nullptr;
    for (const auto& r : c.rows)
      if (r.point.label == c.answer.at) at = &r;
    std::string figure = c.answer.value ? format_round4(*c.answer.value) : "-";
    if (c.answer.half_width) figure += " ± " + format_round4(*c.answer.half_width);
    fmt::print(console, "  {:<32} {:<16} {:<12} {:>20} {:>12} {:>12}\n", c.name, c.status,
               c.answer.at.empty() ? "-" : c.answer.at, figure,
               at ? report::opt_str(at->point.ttft_p99) : "",
               at ? report::opt_str(at->point.tpot_p99) : "");
  }
  fmt::print(console, "{}\ngrid: {}\n  summary: {}\n  page:    {}\n", choice.text, root.string(),
             (root / "grid" / "summary.csv").string(), (root / "grid" / "grid.html").string());
  std::fflush(console);
}

}  // namespace

RunOutcome run_grid(RunPlan& plan, std::atomic<int>& stop, std::FILE* console,
                    const SeriesOptions& options) {
  const std::vector<ServerPoint> servers =
      server_points(parse_server_grid(plan.cfg.target.server_grid));
  const bool resuming = options.resume;
  const fs::path root =
      resuming ? options.root
               : runfolder::make_run_dir(plan.cfg.output.output_dir, std::time(nullptr));
  if (!resuming) write_series_record(root, plan.requested.to_json());
  auto log = make_logger(root, resuming);
  log->info("{}server grid of {} configuration(s), {} each: {}", resuming ? "resumed: " : "",
            servers.size(), experiment_of(plan.cfg.experiment, plan.cfg.sweep_points()),
            plan.requested.to_json());
  const std::string x_name = x_name_of(plan);
  std::vector<report::GridConfig> configs;
  bool disk_stopped = false;
  for (size_t i = 0; i < servers.size(); ++i) {
    const ServerPoint& sp = servers[i];
    report::GridConfig c{sp.name, sp.values, "not run", "", plan.cfg.target.server_devices,
                         {},      {},        {}};
    const bool stopped = stop.load() != core::kRunning || disk_stopped;
    if (!stopped) {
      const fs::path dir = root / sp.name;
      fmt::print(console, "\n== server {}/{}: {} ==\n", i + 1, servers.size(), values_text(sp));
      std::fflush(console);
      std::vector<PointRun> runs;
      if (auto done = resuming ? completed_configuration(dir, plan) : std::nullopt) {
        runs = std::move(*done);
        c.status = "resumed";
        fmt::print(console,
                   "{}: resumed (every point VALID in its folder; its server not started)\n",
                   sp.name);
        log->info("{}: resumed from its folders", sp.name);
      } else {
        RunPlan inner = configuration_plan(plan, sp);
        SeriesOptions series;
        series.root = dir;
        series.resume = resuming && fs::exists(dir / kSeriesFile);
        series.on_point = [&runs, load_class = sweep_axis(plan).load_class](const RunPlan& point,
                                                                            const RunOutcome& o) {
          PointSpec spec = spec_of(point, o.label);
          spec.num_prompts = point.cfg.load.num_prompts;  // the count it ran (a dataset's size)
          runs.push_back({std::move(spec), row_load(point, load_class), o});
        };
        try {
          const RunOutcome o = run_series(inner, stop, console, series);
          disk_stopped |= o.exit_code == kExitDiskStopped;
          c.status = o.exit_code == kExitInterrupted || disk_stopped ? "interrupted" : "ran";
        } catch (const std::invalid_argument&) {
          throw;  // a usage error is every configuration's
        } catch (const std::exception& e) {
          c.status = runs.empty() ? "failed to start" : "failed";
          c.why = e.what();
          fmt::print(console, "{}: {}: {} (the grid goes on; its log is in {})\n", sp.name,
                     c.status, e.what(), (dir / "logs").string());
          log->error("{}: {}: {}", sp.name, c.status, e.what());
          std::error_code ec;  // a server that never started leaves only its logs
          for (const char* sub : {"configs", "performances"})
            if (fs::is_empty(dir / sub, ec)) fs::remove(dir / sub, ec);
        }
        write_point_file(dir, c.status, c.why, runs);
      }
      c.rows = rows_of(runs, x_name, plan.parsed, c.devices);
      c.answer = answer_of(c, plan.cfg.experiment);
      if (plan.cfg.experiment.searching()) c.search_answer = search_answer(dir);
    }
    configs.push_back(std::move(c));
  }
  std::vector<metrics::CapacityCandidate> candidates;
  for (const auto& c : configs) {
    candidates.push_back(c.answer);
    candidates.back().name = c.name;
    if (c.status != "ran" && c.status != "resumed") candidates.back().missing = c.status;
  }
  metrics::CapacityChoice choice = choose_configuration(
      candidates, plan.cfg.experiment.slo.empty() ? "" : "under " + plan.cfg.experiment.slo);
  if (!choice.missing.empty())
    choice.text +=
        fmt::format("; the same command with --resume {} runs only what is missing", root.string());
  const bool interrupted = stop.load() != core::kRunning;
  const fs::path dir = root / "grid";
  fs::create_directories(dir);
  const std::string json =
      report::grid_json(configs, choice,
                        {x_name, plan.cfg.experiment.slo,
                         experiment_of(plan.cfg.experiment, plan.cfg.sweep_points())},
                        interrupted);
  runfolder::write_file(dir / "summary.json", json);
  runfolder::write_file(dir / "summary.csv", report::grid_csv(configs));
  runfolder::write_file(dir / "grid.html", report::grid_page(configs, json, choice));
  std::error_code ec;
  for (const char* sub : {"configs", "performances"})  // the configurations hold these
    if (fs::is_empty(root / sub, ec)) fs::remove(root / sub, ec);
  print_summary(console, configs, choice, root);
  log->info("{}", choice.text);
  RunOutcome out;
  out.run_dir = root;
  judge(out, configs, choice, interrupted, disk_stopped);
  return out;
}

}  // namespace tokbench::runner
