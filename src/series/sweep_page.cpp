#include "series/sweep_page.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/format.hpp"
#include "common/json_writer.hpp"
#include "report/chart_asset.hpp"
#include "report/html.hpp"

namespace tokbench::report {

namespace {

std::string load_str(double v) { return std::isinf(v) ? "inf" : fmt::format("{}", v); }

void opt_field(JsonWriter& w, const char* k, const std::optional<double>& v) {
  w.key(k);
  if (v)
    w.value(*v);
  else
    w.null();
}

}  // namespace

std::string opt_str(const std::optional<double>& v) { return v ? format_round4(*v) : ""; }

const char* const kLoadPointCsvHeader =
    "point,concurrency,request_rate,num_prompts,verdict,success_requests,request_throughput,output_"
    "token_throughput,"
    "total_token_throughput,per_user_output_token_throughput,ttft_mean_ms,ttft_p99_ms,tpot_mean_ms,"
    "tpot_p99_ms,"
    "e2el_mean_ms,e2el_p99_ms,request_goodput,j_per_output_token,usd_per_m_output_tokens,accuracy,"
    "accuracy_low,accuracy_high";

std::string load_point_csv(const metrics::LoadPoint& r) {
  return fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}", r.label,
                     r.concurrency, load_str(r.request_rate), r.num_prompts, r.verdict, r.success,
                     format_round4(r.request_throughput), format_round4(r.output_token_throughput),
                     format_round4(r.total_token_throughput), opt_str(r.per_user_tokens_per_s),
                     opt_str(r.ttft_mean), opt_str(r.ttft_p99), opt_str(r.tpot_mean),
                     opt_str(r.tpot_p99), opt_str(r.e2el_mean), opt_str(r.e2el_p99),
                     opt_str(r.goodput), opt_str(r.j_per_output_token),
                     opt_str(r.usd_per_m_output_tokens), opt_str(r.accuracy),
                     opt_str(r.accuracy_low), opt_str(r.accuracy_high));
}

std::string sweep_csv(const std::vector<metrics::LoadPoint>& rows) {
  std::string out = std::string(kLoadPointCsvHeader) + "\n";
  for (const auto& r : rows) out += load_point_csv(r) + "\n";
  return out;
}

std::string class_points_csv(const std::vector<ClassPoint>& rows) {
  std::string out = fmt::format("class,{}\n", kLoadPointCsvHeader);
  for (const ClassPoint& c : rows) out += fmt::format("{},{}\n", c.name, load_point_csv(c.row));
  return out;
}

void write_load_point_fields(JsonWriter& w, const metrics::LoadPoint& r) {
  w.field("point", r.label);
  w.key("load").rate(r.load);
  w.field("concurrency", r.concurrency);
  w.key("request_rate").rate(r.request_rate);
  w.field("num_prompts", r.num_prompts).field("verdict", r.verdict).field("why", r.why);
  w.field("success_requests", r.success).field("request_throughput", r.request_throughput);
  w.field("output_token_throughput", r.output_token_throughput)
      .field("total_token_throughput", r.total_token_throughput);
  opt_field(w, "per_user_output_token_throughput", r.per_user_tokens_per_s);
  opt_field(w, "ttft_mean_ms", r.ttft_mean);
  opt_field(w, "ttft_p99_ms", r.ttft_p99);
  opt_field(w, "tpot_mean_ms", r.tpot_mean);
  opt_field(w, "tpot_p99_ms", r.tpot_p99);
  opt_field(w, "e2el_mean_ms", r.e2el_mean);
  opt_field(w, "e2el_p99_ms", r.e2el_p99);
  opt_field(w, "request_goodput", r.goodput);
  opt_field(w, "j_per_output_token", r.j_per_output_token);
  opt_field(w, "usd_per_m_output_tokens", r.usd_per_m_output_tokens);
  opt_field(w, "accuracy", r.accuracy);
  opt_field(w, "accuracy_low", r.accuracy_low);
  opt_field(w, "accuracy_high", r.accuracy_high);
  w.field("resumed", r.resumed);
}

std::string sweep_json(const std::vector<metrics::LoadPoint>& rows, const std::string& x_name,
                       const metrics::KneeAnalysis& knee, const std::vector<size_t>& front) {
  JsonWriter w;
  w.begin_object().field("x_name", x_name).key("points").begin_array();
  for (size_t i = 0; i < rows.size(); ++i) {
    const metrics::LoadPoint& r = rows[i];
    w.begin_object();
    write_load_point_fields(w, r);
    w.field("knee", knee.knee == i)
        .field("pareto", std::find(front.begin(), front.end(), i) != front.end());
    w.field("folder", r.label).end_object();
  }
  w.end_array().key("knee").begin_object();
  if (knee.knee)
    w.field("point", rows[*knee.knee].label);
  else
    w.key("point").null();
  w.field("still_rising", knee.still_rising).field("text", knee.text);
  w.field("rule",
          "the lowest load whose output token throughput reaches 90% of the sweep's highest")
      .end_object();
  w.end_object();
  return w.take();
}

namespace {

// --class: each class's row at every point, its own load beside its figures.
std::string class_table(const std::vector<ClassPoint>& rows) {
  if (rows.empty()) return {};
  std::string t =
      "<h2>By class</h2><table id=\"classes\"><tr><th>point</th><th>class</th><th>in flight "
      "at most</th><th>request rate</th><th>req/s</th><th>output tok/s</th><th>TTFT P99</th>"
      "<th>TPOT P99</th><th>E2EL P99</th><th>goodput</th></tr>";
  for (const ClassPoint& c : rows) {
    const metrics::LoadPoint& r = c.row;
    t += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td><td>{}</td></tr>",
        escape_html(r.label), escape_html(c.name), r.concurrency,
        r.request_rate > 0 ? load_str(r.request_rate) : "closed",
        format_round4(r.request_throughput), format_round4(r.output_token_throughput),
        opt_str(r.ttft_p99), opt_str(r.tpot_p99), opt_str(r.e2el_p99), opt_str(r.goodput));
  }
  return t + "</table>";
}

}  // namespace

std::string sweep_page(const std::vector<metrics::LoadPoint>& rows, const std::string& json,
                       const metrics::KneeAnalysis& knee,
                       const std::vector<ClassPoint>& class_rows) {
  std::string p =
      "<!doctype html><html><head><meta charset=\"utf-8\"><title>tokbench sweep</title><style>"
      "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px "
      "solid #ccc;"
      "padding:4px 8px;text-align:right}td:first-child{text-align:left}.knee{background:#e2f0fd}"
      "</style></head><body><h1>tokbench sweep</h1><p id=\"knee\">" +
      escape_html(knee.text) + "</p>";
  p += "<table><tr><th>point</th><th>verdict</th><th>req/s</th><th>output tok/s</th><th>tok/s per "
       "user</th>"
       "<th>TTFT mean</th><th>TTFT P99</th><th>TPOT mean</th><th>TPOT P99</th><th>E2EL "
       "P99</th><th>goodput</th>"
       "<th>accuracy</th><th>J / output token</th><th>$ / M output tokens</th></tr>";
  for (size_t i = 0; i < rows.size(); ++i) {
    const metrics::LoadPoint& r = rows[i];
    p += fmt::format(
        "<tr{}><td><a "
        "href=\"../{}/performances/\">{}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td></tr>",
        knee.knee == i ? " class=\"knee\"" : "", escape_html(r.label), escape_html(r.label),
        r.verdict, format_round4(r.request_throughput), format_round4(r.output_token_throughput),
        opt_str(r.per_user_tokens_per_s), opt_str(r.ttft_mean), opt_str(r.ttft_p99),
        opt_str(r.tpot_mean), opt_str(r.tpot_p99), opt_str(r.e2el_p99), opt_str(r.goodput),
        opt_str(r.accuracy), opt_str(r.j_per_output_token), opt_str(r.usd_per_m_output_tokens));
  }
  p += "</table><p>Latencies in ms. The knee: " +
       escape_html(
           "the lowest load whose output token throughput "
           "reaches 90% of the sweep's highest.") +
       "</p>" + class_table(class_rows);
  p += "<h2>Throughput and latency</h2><div id=\"curve\" style=\"width:100%;height:360px\"></div>";
  for (const char* id : {"lat-ttft", "lat-tpot", "lat-e2el"})
    p += fmt::format("<div id=\"{}\" style=\"display:inline-block;width:33%;height:300px\"></div>",
                     id);
  p += "<h2>Per-user vs total tokens/s</h2><div id=\"pareto\" "
       "style=\"width:100%;height:420px\"></div>";
  // --telemetry with a price: what a million output tokens cost at each point against the speed a
  // user sees there (only when some point knows its cost).
  const bool priced = std::any_of(rows.begin(), rows.end(), [](const auto& r) {
    return r.usd_per_m_output_tokens.has_value();
  });
  if (priced)
    p += "<h2>Cost vs per-user speed</h2><div id=\"cost\" style=\"width:100%;height:420px\"></div>";
  p += "<script>" + std::string(chart_library()) + "</script>";
  p += "<script type=\"application/json\" id=\"sweep-data\">" + script_safe(json) + "</script>";
  p += "<script>" + std::string(web_asset(WebAsset::Sweep)) + "</script></body></html>\n";
  return p;
}

}  // namespace tokbench::report
