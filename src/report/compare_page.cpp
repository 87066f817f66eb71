#include "report/compare_page.hpp"

#include "common/json_writer.hpp"
#include "report/chart_asset.hpp"
#include "report/html.hpp"

namespace tokbench::report {

namespace {

std::string load_curve(const CompareContents& c) {
  if (c.x_name.empty()) return {};
  JsonWriter w;
  w.begin_object().field("x_name", c.x_name).key("points").begin_array();
  for (const auto& p : c.points) {
    w.begin_object().field("x", p.x).field("ttft_p99", p.ttft_p99).field("tpot_p99", p.tpot_p99);
    w.field("output_token_throughput", p.output_token_throughput).field("run", p.run).end_object();
  }
  w.end_array().end_object();
  std::string page =
      "<h2>Load points</h2><div id=\"curve\" style=\"width:100%;height:420px\"></div>";
  page += "<script>" + std::string(chart_library()) + "</script>";
  page +=
      "<script type=\"application/json\" id=\"curve-data\">" + script_safe(w.take()) + "</script>";
  page += "<script>" + std::string(web_asset(WebAsset::Compare)) + "</script>";
  return page;
}

}  // namespace

std::string compare_page(const CompareContents& c) {
  std::string page =
      "<!doctype html><html><head><meta charset=\"utf-8\"><title>tokbench compare</title><style>"
      "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px "
      "solid #ccc;"
      "padding:4px 8px;text-align:right}td:first-child{text-align:left}.sig{background:#fde2e2}"
      "</style></head><body><h1>tokbench compare</h1><table><tr><th>metric</th>";
  for (size_t i = 0; i < c.runs.size(); ++i)
    page += "<th>" + escape_html(c.runs[i]) + (i ? "" : " (baseline)") + "</th>";
  page += "</tr>";
  for (const auto& row : c.rows) {
    page += std::string("<tr") + (row.significant ? " class=\"sig\"" : "") + "><td>" +
            escape_html(row.name) + "</td>";
    for (const auto& cell : row.cells) page += "<td>" + escape_html(cell) + "</td>";
    page += "</tr>";
  }
  page +=
      "</table><p>Mann–Whitney U, two-sided, α = 0.05, on per-request values; highlighted rows "
      "changed significantly.</p>";
  page += "<h2>Differences</h2><pre>" +
          escape_html(c.differences.empty() ? "none\n" : c.differences) + "</pre>";
  if (c.thresholds) {
    std::string text = c.crossed.empty() ? "all passed\n" : "";
    for (const auto& x : c.crossed) text += "FAIL " + x + "\n";
    page += "<h2>Thresholds</h2><pre>" + escape_html(text) + "</pre>";
  }
  page += load_curve(c);
  page += "</body></html>\n";
  return page;
}

}  // namespace tokbench::report
