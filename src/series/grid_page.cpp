#include "series/grid_page.hpp"

#include <fmt/format.h>

#include "common/format.hpp"
#include "common/json_writer.hpp"
#include "report/chart_asset.hpp"
#include "report/html.hpp"
#include "series/sweep_page.hpp"

namespace tokbench::report {

namespace {

std::string values_text(const GridConfig& c) {
  std::string s;
  for (const auto& [k, v] : c.values) s += fmt::format("{}{}={}", s.empty() ? "" : " ", k, v);
  return s;
}

}  // namespace

std::string grid_json(const std::vector<GridConfig>& configs, const metrics::CapacityChoice& choice,
                      const GridAsked& asked, bool interrupted) {
  JsonWriter w;
  w.begin_object().field("format", "tokbench-grid/1").field("interrupted", interrupted);
  w.field("x_name", asked.x_name).field("slo", asked.slo).field("experiment", asked.experiment);
  w.key("configurations").begin_array();
  for (const GridConfig& c : configs) {
    w.begin_object().field("name", c.name).key("values").begin_object();
    for (const auto& [k, v] : c.values) w.field(k, v);
    w.end_object()
        .field("status", c.status)
        .field("why", c.why)
        .field("devices", c.devices)
        .field("folder", c.name);
    w.key("answer").begin_object().field("at", c.answer.at).field("runs", c.answer.runs);
    w.key("output_tokens_per_s_per_device").value(c.answer.value);
    w.key("half_width").value(c.answer.half_width);
    w.end_object().key("search_answer").value(c.search_answer);
    w.key("points").begin_array();
    for (const GridRow& r : c.rows) {
      w.begin_object();
      write_load_point_fields(w, r.point);
      w.key("meets_slo");
      if (r.meets_slo)
        w.value(*r.meets_slo);
      else
        w.null();
      w.field("slo_why", r.slo_why)
          .field("output_tokens_per_s_per_device", r.per_device)
          .end_object();
    }
    w.end_array().end_object();
  }
  w.end_array().key("recommendation").begin_object();
  w.key("best");
  if (choice.best)
    w.value(configs[*choice.best].name);
  else
    w.null();
  w.key("runner_up");
  if (choice.runner_up)
    w.value(configs[*choice.runner_up].name);
  else
    w.null();
  w.key("margin").value(choice.margin);
  w.key("beyond_noise");
  if (choice.beyond_noise)
    w.value(*choice.beyond_noise);
  else
    w.null();
  w.field("text", choice.text);
  w.key("missing").begin_array();  // incomplete configurations: nothing is recommended
  for (const auto& m : choice.missing) w.value(m);
  w.end_array();
  w.field("rule",
          "among configurations with a VALID point meeting every --slo (and each --class's slo=), "
          "the highest output tokens/s per device at such a point wins (with repeats: the mean "
          "over the runs, all of which must meet the SLO); the margin is over the runner-up, and "
          "the confidence intervals say whether it is beyond the noise");
  w.end_object().end_object();
  return w.take();
}

std::string grid_csv(const std::vector<GridConfig>& configs) {
  std::string out =
      fmt::format("configuration,status,devices,{},meets_slo,output_tokens_per_s_per_device\n",
                  kLoadPointCsvHeader);
  for (const GridConfig& c : configs) {
    if (c.rows.empty())
      out += fmt::format("{},{},{}{}\n", c.name, c.status, c.devices,
                         std::string(21, ','));  // 19 + 2 empty cells
    for (const GridRow& r : c.rows)
      out += fmt::format("{},{},{},{},{},{}\n", c.name, c.status, c.devices,
                         load_point_csv(r.point), r.meets_slo ? (*r.meets_slo ? "yes" : "no") : "",
                         format_round4(r.per_device));
  }
  return out;
}

std::string grid_page(const std::vector<GridConfig>& configs, const std::string& json,
                      const metrics::CapacityChoice& choice) {
  std::string p =
      "<!doctype html><html><head><meta charset=\"utf-8\"><title>tokbench server "
      "grid</title><style>"
      "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px "
      "solid #ccc;"
      "padding:4px "
      "8px;text-align:right}td:first-child,td:nth-child(2){text-align:left}.best{background:#"
      "e2f0fd}"
      "</style></head><body><h1>tokbench server grid</h1><p id=\"recommendation\"><b>" +
      escape_html(choice.text) + "</b></p>";
  p += "<table><tr><th>configuration</th><th>values</th><th>status</th><th>devices</th><th>answer "
       "at</th>"
       "<th>output tok/s per device</th><th>$ / M output tokens</th></tr>";
  for (size_t i = 0; i < configs.size(); ++i) {
    const GridConfig& c = configs[i];
    std::optional<double> usd;
    for (const auto& r : c.rows)
      if (r.point.label == c.answer.at) usd = r.point.usd_per_m_output_tokens;
    std::string figure = c.answer.value ? format_round4(*c.answer.value) : "";
    if (c.answer.half_width) figure += " ± " + format_round4(*c.answer.half_width);
    p += fmt::format(
        "<tr{}><td><a "
        "href=\"../{}/\">{}</a></td><td>{}</td><td>{}{}</td><td>{}</td><td>{}</td><td>{}</"
        "td><td>{}</td></tr>",
        choice.best == i ? " class=\"best\"" : "", escape_html(c.name), escape_html(c.name),
        escape_html(values_text(c)), escape_html(c.status),
        c.why.empty() ? "" : ": " + escape_html(c.why), c.devices, escape_html(c.answer.at), figure,
        opt_str(usd));
  }
  p += "</table><p>Latencies in ms. Each configuration's points are in its folder (its sweep, "
       "search or repeats "
       "page there).</p>";
  p += "<h2>Throughput and latency per configuration</h2>";
  for (const char* id : {"curve", "lat-ttft", "lat-tpot"})
    p += fmt::format("<div id=\"{}\" style=\"display:inline-block;width:33%;height:340px\"></div>",
                     id);
  p += "<h2>Output tokens/s per device against TPOT P99</h2><div id=\"front\" "
       "style=\"width:100%;height:420px\"></div>";
  p += "<script>" + std::string(chart_library()) + "</script>";
  p += "<script type=\"application/json\" id=\"grid-data\">" + script_safe(json) + "</script>";
  p += "<script>" + std::string(web_asset(WebAsset::Grid)) + "</script></body></html>\n";
  return p;
}

}  // namespace tokbench::report
