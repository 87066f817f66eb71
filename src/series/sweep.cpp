#include "series/sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/format.hpp"
#include "common/json_writer.hpp"
#include "point/points.hpp"
#include "report/outputs.hpp"
#include "report/tables.hpp"
#include "runfolder/files.hpp"
#include "series/sweep_page.hpp"

namespace tokbench::runner {

namespace fs = std::filesystem;

namespace {

std::string short_or_na(const std::optional<double>& v) {
  return v ? report::format_short(*v) : std::string("n/a");
}

double common(const metrics::MetricSet& m, const char* key) {
  const auto* c = m.common_metric(key);
  return c ? c->value : 0;
}

}  // namespace

SweepSummary::SweepSummary(fs::path root, SweepAxis axis)
    : root_(std::move(root)), axis_(std::move(axis)) {}

RowLoad row_load(const RunPlan& point, const std::string& load_class) {
  for (size_t i = 0; i < point.parsed.classes.size() && !load_class.empty(); ++i)
    if (point.parsed.classes[i].name == load_class) return row_load(class_plan(point, i));
  if (!point.traffic_class && !point.parsed.classes.empty()) {  // the whole run's: every class's
    RowLoad sum;
    for (const auto& [name, l] : class_loads(point)) {
      sum.in_flight += l.in_flight;
      sum.request_rate += l.request_rate;
      sum.num_prompts += l.num_prompts;
    }
    return sum;
  }
  return {point.load.max_in_flight(), point.cfg.load.request_rate, point.cfg.load.num_prompts};
}

ClassLoads class_loads(const RunPlan& point) {
  ClassLoads out;
  for (size_t i = 0; i < point.parsed.classes.size(); ++i)
    out.emplace_back(point.parsed.classes[i].name, row_load(class_plan(point, i)));
  return out;
}

SweepAxis sweep_axis(const RunPlan& plan) {
  for (const TrafficClass& k : plan.parsed.classes)
    if (k.sweep_points() > 1)
      return {k.request_rate_sweep.empty() ? "concurrency" : "request_rate", k.name};
  return {plan.cfg.load.request_rate_sweep.empty() ? "concurrency" : "request_rate", ""};
}

static SweepRow load_point_base(const std::string& label, const std::string& x_name,
                                const RowLoad& load) {
  SweepRow r;
  r.label = label;
  r.concurrency = load.in_flight;
  r.request_rate = load.request_rate;
  r.num_prompts = load.num_prompts;
  r.load = x_name == "request_rate" ? load.request_rate : r.concurrency;
  return r;
}

// The figures a row shows of a set of metrics (a point's, or one class's at a point).
static void fill_figures(SweepRow& r, const metrics::MetricSet& m) {
  r.success = static_cast<int64_t>(common(m, "success_requests"));
  r.request_throughput = common(m, "request_throughput");
  r.output_token_throughput = common(m, "output_token_throughput");
  r.total_token_throughput = common(m, "total_token_throughput");
  using metrics::row_statistic;
  r.per_user_tokens_per_s = row_statistic(m, "OutputTokenThroughput", "mean");
  r.ttft_mean = row_statistic(m, "TTFT", "mean");
  r.ttft_p99 = row_statistic(m, "TTFT", "p99");
  r.tpot_mean = row_statistic(m, "TPOT", "mean");
  r.tpot_p99 = row_statistic(m, "TPOT", "p99");
  r.e2el_mean = row_statistic(m, "E2EL", "mean");
  r.e2el_p99 = row_statistic(m, "E2EL", "p99");
  if (m.common_metric("request_goodput")) r.goodput = common(m, "request_goodput");
}

SweepRow load_point_row(const std::string& label, const std::string& x_name, const RowLoad& load,
                        const RunOutcome& o) {
  // The folder it got (c4-2 for a repeated c4).
  SweepRow r = load_point_base(o.label.empty() ? label : o.label, x_name, load);
  const metrics::MetricSet& m = o.metrics;
  r.verdict = o.exit_code == kExitInterrupted ? "INTERRUPTED" : metrics::verdict_status(o.verdict);
  for (const auto& why : o.verdict.reasons) r.why += (r.why.empty() ? "" : "; ") + why;
  fill_figures(r, m);
  r.resumed = o.resumed;
  if (const metrics::AnswerTally& a = m.quality.answers; a.scored() > 0) {
    const metrics::WilsonInterval i = a.interval();
    r.accuracy = i.p;
    r.accuracy_low = i.low;
    r.accuracy_high = i.high;
    r.scored = a.scored();
  }
  r.j_per_output_token = o.j_per_output_token;
  r.usd_per_m_output_tokens = o.usd_per_m_output_tokens;
  return r;
}

void SweepSummary::add(const std::string& label, const RowLoad& load, const RunOutcome& o,
                       const ClassLoads& classes) {
  disk_stopped_ |= o.exit_code == kExitDiskStopped;
  rows_.push_back(load_point_row(label, axis_.x_name, load, o));
  for (const auto& [name, m] : o.class_metrics) {
    const auto own = std::find_if(classes.begin(), classes.end(),
                                  [&](const auto& c) { return c.first == name; });
    report::ClassPoint c{name, load_point_base(rows_.back().label, axis_.x_name,
                                               own == classes.end() ? RowLoad{} : own->second)};
    c.row.load = rows_.back().load;  // sorted with its point
    c.row.verdict = rows_.back().verdict;
    fill_figures(c.row, m);
    class_rows_.push_back(std::move(c));
  }
  last_ = o;
}

void SweepSummary::add_failed(const std::string& label, const RowLoad& load,
                              const std::string& why) {
  SweepRow r = load_point_base(label, axis_.x_name, load);
  r.verdict = "FAILED";
  r.why = why;
  rows_.push_back(std::move(r));
}

RunOutcome SweepSummary::finish(const std::optional<record::ServerProcessFacts>& server_process,
                                bool interrupted, std::FILE* console) {
  std::stable_sort(rows_.begin(), rows_.end(),
                   [](const SweepRow& a, const SweepRow& b) { return a.load < b.load; });
  KneeAnalysis knee = find_knee(rows_);
  // A knee from part of the sweep is not the server's: none is named until every point completed.
  std::vector<std::string> missing;
  for (const auto& label : expected_) {
    const auto row = std::find_if(rows_.begin(), rows_.end(),
                                  [&](const SweepRow& r) { return r.label == label; });
    if (row == rows_.end() || row->verdict == "FAILED" || row->verdict == "INTERRUPTED")
      missing.push_back(label);
  }
  if (interrupted || !missing.empty()) {
    std::string list;
    for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
    knee = KneeAnalysis{};
    knee.text = fmt::format(
        "no knee named: the sweep is incomplete ({}{}); the same command with --resume {} runs "
        "only what is missing",
        interrupted ? "interrupted" : "",
        missing.empty()
            ? ""
            : fmt::format("{}{} of {} point(s) did not complete: {}", interrupted ? "; " : "",
                          missing.size(), expected_.size(), list),
        root_.string());
  }
  // Each class's rows together, in the order the classes came, by load.
  std::vector<std::string> order;
  for (const auto& c : class_rows_)
    if (std::find(order.begin(), order.end(), c.name) == order.end()) order.push_back(c.name);
  std::stable_sort(class_rows_.begin(), class_rows_.end(), [&](const auto& a, const auto& b) {
    const auto at = [&](const std::string& n) { return std::find(order.begin(), order.end(), n); };
    return at(a.name) != at(b.name) ? at(a.name) < at(b.name) : a.row.load < b.row.load;
  });
  const std::vector<size_t> front = pareto_front(rows_);
  const std::string falling = metrics::falling_accuracy(rows_, axis_.x_name);
  const fs::path dir = root_ / "sweep";
  fs::create_directories(dir);
  const std::string points = report::sweep_json(rows_, axis_.x_name, knee, front);
  JsonWriter w;
  w.begin_object().field("format", "tokbench-sweep/1").field("interrupted", interrupted);
  w.field_raw("sweep", points);
  if (!axis_.load_class.empty()) w.field("load_class", axis_.load_class);
  if (!class_rows_.empty()) {
    w.key("classes").begin_array();
    for (const auto& c : class_rows_) {
      w.begin_object().field("class", c.name);
      report::write_load_point_fields(w, c.row);
      w.end_object();
    }
    w.end_array();
  }
  w.field("accuracy_warning", falling);
  w.field("complete", !interrupted && missing.empty()).field("missing", missing);
  if (server_process) record::write_optional(w, "server_process", server_process);
  w.end_object();
  runfolder::write_file(dir / "summary.json", w.take());
  runfolder::write_file(dir / "summary.csv", report::sweep_csv(rows_));
  if (!class_rows_.empty())
    runfolder::write_file(dir / "classes.csv", report::class_points_csv(class_rows_));
  runfolder::write_file(dir / "sweep.html", report::sweep_page(rows_, points, knee, class_rows_));
  print(console, knee, falling);

  RunOutcome out = last_.value_or(RunOutcome{});
  out.run_dir = root_;
  out.interrupted = interrupted;
  out.verdict = {};
  out.verdict.valid = true;
  int code = 0;
  for (const auto& r : rows_) {
    if (r.verdict == "SATURATED")
      continue;  // an answer about the load (past what the server serves), not a failure
    if (r.verdict != "VALID") {
      out.verdict.valid = false;
      out.verdict.reasons.push_back(fmt::format("{}: {} {}", r.label, r.verdict, r.why));
    }
    if (r.verdict == "FAILED" || r.success == 0)
      code = 1;
    else if (r.verdict != "VALID" && code == 0)
      code = 4;
  }
  out.exit_code = series_exit_code(disk_stopped_, interrupted, rows_.empty() ? 1 : code);
  return out;
}

void SweepSummary::print(std::FILE* console, const KneeAnalysis& knee,
                         const std::string& falling) const {
  const fs::path dir = root_ / "sweep";
  fmt::print(console, "\nsweep over {}{} ({} point(s)):\n", axis_.x_name,
             axis_.load_class.empty() ? "" : " of class " + axis_.load_class, rows_.size());
  const auto line = [&](const std::string& point, const std::string& verdict, const SweepRow& r) {
    fmt::print(console, "  {:<14} {:<11} {:>10} {:>14} {:>12} {:>12} {:>12}{}\n", point, verdict,
               report::format_short(r.request_throughput),
               report::format_short(r.output_token_throughput), short_or_na(r.ttft_p99),
               short_or_na(r.tpot_p99), short_or_na(r.e2el_p99), r.resumed ? "  (resumed)" : "");
  };
  const auto header = [&](const char* second) {
    fmt::print(console, "  {:<14} {:<11} {:>10} {:>14} {:>12} {:>12} {:>12}\n", "point", second,
               "req/s", "output tok/s", "TTFT P99", "TPOT P99", "E2EL P99");
  };
  header("verdict");
  for (const auto& r : rows_) line(r.label, r.verdict, r);
  if (!class_rows_.empty()) {  // --class: each class at each point, with its own load
    fmt::print(console, "by class:\n");
    header("class");
    for (const auto& c : class_rows_)
      line(c.row.label,
           c.name + (c.row.request_rate > 0
                         ? fmt::format(" r{}", report::format_short(c.row.request_rate))
                         : fmt::format(" c{}", c.row.concurrency)),
           c.row);
  }
  if (!falling.empty()) fmt::print(console, "warning: {}\n", falling);
  fmt::print(console, "{}\nsweep: {}\n  summary: {}\n  page:    {}\n", knee.text, root_.string(),
             (dir / "summary.csv").string(), (dir / "sweep.html").string());
  std::fflush(console);
}

}  // namespace tokbench::runner
