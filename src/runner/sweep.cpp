#include "runner/sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/format.hpp"
#include "common/json_writer.hpp"
#include "report/chart_asset.hpp"
#include "report/html.hpp"
#include "report/outputs.hpp"

namespace tokbench::runner {

namespace fs = std::filesystem;

namespace {


double common(const metrics::MetricSet& m, const char* key) {
  const auto* c = m.common_metric(key);
  return c ? c->value : 0;
}

std::string load_str(double v) { return std::isinf(v) ? "inf" : fmt::format("{}", v); }
std::string opt_str(const std::optional<double>& v) { return v ? format_round4(*v) : ""; }

void opt_field(JsonWriter& w, const char* k, const std::optional<double>& v) {
  w.key(k);
  if (v) w.value(*v); else w.null();
}

bool ran(const SweepRow& r) { return r.verdict != "FAILED" && r.success > 0; }

std::string csv(const std::vector<SweepRow>& rows) {
  std::string out =
      "point,concurrency,request_rate,num_prompts,verdict,success_requests,request_throughput,output_token_throughput,"
      "total_token_throughput,per_user_output_token_throughput,ttft_mean_ms,ttft_p99_ms,tpot_mean_ms,tpot_p99_ms,"
      "e2el_mean_ms,e2el_p99_ms,request_goodput\n";
  for (const auto& r : rows) {
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", r.label, r.concurrency, load_str(r.request_rate),
                       r.num_prompts, r.verdict, r.success, format_round4(r.request_throughput),
                       format_round4(r.output_token_throughput), format_round4(r.total_token_throughput),
                       opt_str(r.per_user_tokens_per_s), opt_str(r.ttft_mean), opt_str(r.ttft_p99), opt_str(r.tpot_mean),
                       opt_str(r.tpot_p99), opt_str(r.e2el_mean), opt_str(r.e2el_p99), opt_str(r.goodput));
  }
  return out;
}

std::string points_json(const std::vector<SweepRow>& rows, const std::string& x_name, const KneeAnalysis& knee,
                        const std::vector<size_t>& front) {
  JsonWriter w;
  w.begin_object().field("x_name", x_name).key("points").begin_array();
  for (size_t i = 0; i < rows.size(); ++i) {
    const SweepRow& r = rows[i];
    w.begin_object().field("point", r.label);
    if (std::isinf(r.load)) w.field("load", "inf"); else w.field("load", r.load);
    w.field("concurrency", r.concurrency);
    if (std::isinf(r.request_rate)) w.field("request_rate", "inf"); else w.field("request_rate", r.request_rate);
    w.field("num_prompts", r.num_prompts).field("verdict", r.verdict).field("why", r.why);
    w.field("success_requests", r.success).field("request_throughput", r.request_throughput);
    w.field("output_token_throughput", r.output_token_throughput).field("total_token_throughput", r.total_token_throughput);
    opt_field(w, "per_user_output_token_throughput", r.per_user_tokens_per_s);
    opt_field(w, "ttft_mean_ms", r.ttft_mean);
    opt_field(w, "ttft_p99_ms", r.ttft_p99);
    opt_field(w, "tpot_mean_ms", r.tpot_mean);
    opt_field(w, "tpot_p99_ms", r.tpot_p99);
    opt_field(w, "e2el_mean_ms", r.e2el_mean);
    opt_field(w, "e2el_p99_ms", r.e2el_p99);
    opt_field(w, "request_goodput", r.goodput);
    w.field("knee", knee.knee == i).field("pareto", std::find(front.begin(), front.end(), i) != front.end());
    w.field("folder", r.label).end_object();
  }
  w.end_array().key("knee").begin_object();
  if (knee.knee) w.field("point", rows[*knee.knee].label); else w.key("point").null();
  w.field("still_rising", knee.still_rising).field("text", knee.text);
  w.field("rule", "the lowest load whose output token throughput reaches 90% of the sweep's highest").end_object();
  w.end_object();
  return w.take();
}

constexpr const char* kSweepPageScript = R"JS(
const S = JSON.parse(document.getElementById('sweep-data').textContent);
const pts = S.points.filter((p) => p.verdict !== 'FAILED');
const X = (p) => p.load === 'inf' ? null : p.load;
const knee = pts.find((p) => p.knee);
const curve = echarts.init(document.getElementById('curve'));
curve.setOption({animation: false, tooltip: {trigger: 'axis'}, legend: {top: 0},
  toolbox: {feature: {dataZoom: {}, restore: {}, saveAsImage: {name: 'tokbench-sweep'}}},
  xAxis: {type: 'value', name: S.x_name}, yAxis: [{type: 'value', name: 'token/s'}, {type: 'value', name: 'ms'}],
  series: [
    {name: 'output tokens/s', type: 'line', data: pts.map((p) => [X(p), p.output_token_throughput]),
     markPoint: knee ? {data: [{name: 'knee', coord: [X(knee), knee.output_token_throughput], value: 'knee'}]} : undefined},
    {name: 'TTFT P99', type: 'line', yAxisIndex: 1, data: pts.map((p) => [X(p), p.ttft_p99_ms])},
    {name: 'TPOT P99', type: 'line', yAxisIndex: 1, data: pts.map((p) => [X(p), p.tpot_p99_ms])},
    {name: 'E2EL P99', type: 'line', yAxisIndex: 1, data: pts.map((p) => [X(p), p.e2el_p99_ms])}]});
const pareto = echarts.init(document.getElementById('pareto'));
const front = pts.filter((p) => p.pareto).sort((a, b) => a.output_token_throughput - b.output_token_throughput);
pareto.setOption({animation: false, tooltip: {formatter: (q) => q.data[2]}, legend: {top: 0},
  xAxis: {type: 'value', name: 'total output tokens/s'}, yAxis: {type: 'value', name: 'tokens/s per user'},
  series: [{name: 'points', type: 'scatter', symbolSize: 10,
            data: pts.map((p) => [p.output_token_throughput, p.per_user_output_token_throughput, p.point])},
           {name: 'Pareto front', type: 'line', data: front.map((p) => [p.output_token_throughput, p.per_user_output_token_throughput, p.point])}]});
window.TOKBENCH_SWEEP = {points: S.points, knee: S.knee, rendered: true};
)JS";

std::string page(const std::vector<SweepRow>& rows, const std::string& json, const KneeAnalysis& knee) {
  std::string p = "<!doctype html><html><head><meta charset=\"utf-8\"><title>tokbench sweep</title><style>"
                  "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;"
                  "padding:4px 8px;text-align:right}td:first-child{text-align:left}.knee{background:#e2f0fd}"
                  "</style></head><body><h1>tokbench sweep</h1><p id=\"knee\">" + report::escape_html(knee.text) + "</p>";
  p += "<table><tr><th>point</th><th>verdict</th><th>req/s</th><th>output tok/s</th><th>tok/s per user</th>"
       "<th>TTFT mean</th><th>TTFT P99</th><th>TPOT mean</th><th>TPOT P99</th><th>E2EL P99</th><th>goodput</th></tr>";
  for (size_t i = 0; i < rows.size(); ++i) {
    const SweepRow& r = rows[i];
    p += fmt::format("<tr{}><td><a href=\"../{}/performances/\">{}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
                     "<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                     knee.knee == i ? " class=\"knee\"" : "", report::escape_html(r.label), report::escape_html(r.label),
                     r.verdict, format_round4(r.request_throughput), format_round4(r.output_token_throughput),
                     opt_str(r.per_user_tokens_per_s), opt_str(r.ttft_mean), opt_str(r.ttft_p99), opt_str(r.tpot_mean),
                     opt_str(r.tpot_p99), opt_str(r.e2el_p99), opt_str(r.goodput));
  }
  p += "</table><p>Latencies in ms. The knee: " + report::escape_html("the lowest load whose output token throughput "
       "reaches 90% of the sweep's highest.") + "</p>";
  p += "<h2>Throughput and latency</h2><div id=\"curve\" style=\"width:100%;height:420px\"></div>";
  p += "<h2>Per-user vs total tokens/s</h2><div id=\"pareto\" style=\"width:100%;height:420px\"></div>";
  p += "<script>" + std::string(report::chart_library()) + "</script>";
  p += "<script type=\"application/json\" id=\"sweep-data\">" + report::script_safe(json) + "</script>";
  p += "<script>" + std::string(kSweepPageScript) + "</script></body></html>\n";
  return p;
}

}  // namespace

KneeAnalysis find_knee(const std::vector<SweepRow>& rows) {
  KneeAnalysis k;
  std::vector<size_t> live;
  for (size_t i = 0; i < rows.size(); ++i)
    if (ran(rows[i])) live.push_back(i);
  if (live.size() < 2) {
    k.text = "fewer than two points ran: no knee can be judged";
    return k;
  }
  double top = 0;
  for (size_t i : live) top = std::max(top, rows[i].output_token_throughput);
  size_t first_near = live.back();
  for (size_t i : live) {
    if (rows[i].output_token_throughput >= 0.9 * top) {
      first_near = i;
      break;
    }
  }
  const SweepRow& f = rows[live.front()];
  const SweepRow& n = rows[first_near];
  if (first_near == live.back()) {
    k.still_rising = true;
    k.text = fmt::format("output token throughput is still rising at the highest load ({}: {} tok/s, from {} tok/s at {}): "
                         "no plateau in range; extend the sweep to find the knee",
                         n.label, format_round4(n.output_token_throughput), format_round4(f.output_token_throughput), f.label);
    return k;
  }
  k.knee = first_near;
  const SweepRow& last = rows[live.back()];
  std::string latency;
  if (n.ttft_p99 && last.ttft_p99)
    latency = fmt::format("; TTFT P99 goes from {} ms there to {} ms at {}", format_round4(*n.ttft_p99),
                          format_round4(*last.ttft_p99), last.label);
  k.text = fmt::format("output token throughput rises from {} tok/s ({}) to {} tok/s at {}, then flattens: every higher load "
                       "stays within 10% of the peak {} tok/s. The knee is {}{}",
                       format_round4(f.output_token_throughput), f.label, format_round4(n.output_token_throughput), n.label,
                       format_round4(top), n.label, latency);
  return k;
}

std::vector<size_t> pareto_front(const std::vector<SweepRow>& rows) {
  std::vector<size_t> out;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (!ran(rows[i]) || !rows[i].per_user_tokens_per_s) continue;
    bool dominated = false;
    for (size_t j = 0; j < rows.size() && !dominated; ++j) {
      if (j == i || !ran(rows[j]) || !rows[j].per_user_tokens_per_s) continue;
      const double ti = rows[i].output_token_throughput, tj = rows[j].output_token_throughput;
      const double ui = *rows[i].per_user_tokens_per_s, uj = *rows[j].per_user_tokens_per_s;
      dominated = tj >= ti && uj >= ui && (tj > ti || uj > ui);
    }
    if (!dominated) out.push_back(i);
  }
  return out;
}

SweepSummary::SweepSummary(fs::path root, const RunConfig& sweep)
    : root_(std::move(root)), x_name_(sweep.request_rate_sweep.empty() ? "concurrency" : "request_rate") {}

SweepRow SweepSummary::base(const std::string& label, const RunConfig& point) const {
  SweepRow r;
  r.label = label;
  r.concurrency = point.concurrency;
  r.request_rate = point.request_rate;
  r.num_prompts = point.num_prompts;
  r.load = x_name_ == "request_rate" ? point.request_rate : point.concurrency;
  return r;
}

void SweepSummary::add(const std::string& label, const RunConfig& point, const RunOutcome& o) {
  SweepRow r = base(o.label.empty() ? label : o.label, point);  // the folder it got (c4-2 for a repeated c4)
  const metrics::MetricSet& m = o.metrics;
  r.verdict = o.exit_code == 130 ? "INTERRUPTED" : o.verdict.valid ? "VALID" : "INVALID";
  for (const auto& why : o.verdict.reasons) r.why += (r.why.empty() ? "" : "; ") + why;
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
  rows_.push_back(std::move(r));
  last_ = o;
}

void SweepSummary::add_failed(const std::string& label, const RunConfig& point, const std::string& why) {
  SweepRow r = base(label, point);
  r.verdict = "FAILED";
  r.why = why;
  rows_.push_back(std::move(r));
}

RunOutcome SweepSummary::finish(const std::string& server_process_json, bool interrupted, std::FILE* console) {
  std::stable_sort(rows_.begin(), rows_.end(), [](const SweepRow& a, const SweepRow& b) { return a.load < b.load; });
  const KneeAnalysis knee = find_knee(rows_);
  const std::vector<size_t> front = pareto_front(rows_);
  const fs::path dir = root_ / "sweep";
  fs::create_directories(dir);
  const std::string points = points_json(rows_, x_name_, knee, front);
  JsonWriter w;
  w.begin_object().field("format", "tokbench-sweep/1").field("interrupted", interrupted);
  w.field_raw("sweep", points);
  if (!server_process_json.empty()) w.field_raw("server_process", server_process_json);
  w.end_object();
  report::write_file(dir / "summary.json", w.take());
  report::write_file(dir / "summary.csv", csv(rows_));
  report::write_file(dir / "sweep.html", page(rows_, points, knee));

  fmt::print(console, "\nsweep over {} ({} point(s)):\n", x_name_, rows_.size());
  fmt::print(console, "  {:<12} {:<11} {:>10} {:>14} {:>12} {:>12} {:>12}\n", "point", "verdict", "req/s", "output tok/s",
             "TTFT P99", "TPOT P99", "E2EL P99");
  for (const auto& r : rows_) {
    fmt::print(console, "  {:<12} {:<11} {:>10} {:>14} {:>12} {:>12} {:>12}\n", r.label, r.verdict,
               format_round4(r.request_throughput), format_round4(r.output_token_throughput), opt_str(r.ttft_p99),
               opt_str(r.tpot_p99), opt_str(r.e2el_p99));
  }
  fmt::print(console, "{}\nsweep: {}\n  summary: {}\n  page:    {}\n", knee.text, root_.string(),
             (dir / "summary.csv").string(), (dir / "sweep.html").string());
  std::fflush(console);

  RunOutcome out = last_.value_or(RunOutcome{});
  out.run_dir = root_;
  out.interrupted = interrupted;
  out.verdict = {};
  out.verdict.valid = true;
  int code = 0;
  for (const auto& r : rows_) {
    if (r.verdict != "VALID") {
      out.verdict.valid = false;
      out.verdict.reasons.push_back(fmt::format("{}: {} {}", r.label, r.verdict, r.why));
    }
    if (r.verdict == "FAILED" || r.success == 0) code = 1;
    else if (r.verdict != "VALID" && code == 0) code = 4;
  }
  out.exit_code = interrupted ? 130 : rows_.empty() ? 1 : code;
  return out;
}

}  // namespace tokbench::runner
