#include "series/search_page.hpp"

#include <fmt/format.h>

#include "common/format.hpp"
#include "common/json_writer.hpp"
#include "report/chart_asset.hpp"
#include "report/html.hpp"

namespace tokbench::report {

namespace {}  // namespace

std::string search_json(const metrics::SearchResult& r, const SearchAsked& asked,
                        const std::vector<metrics::RunSlo>& slos,
                        const metrics::SearchSpace& space) {
  JsonWriter w;
  w.begin_object().field("format", "tokbench-search/1").field("search", asked.search);
  w.key("slos").begin_array();
  for (const auto& s : slos) w.value(s.text());
  w.end_array();
  w.key("answer");
  if (r.answer)
    w.value(*r.answer);
  else
    w.null();
  w.field("text", r.text)
      .field("resolution", space.resolution)
      .field("relative_resolution", space.relative_resolution);
  w.field("min", space.min).field("max", space.max).field("margin", asked.margin);
  w.field("rule",
          "probe from min, doubling, until a probe fails; then bisect between the last pass and "
          "the first failure "
          "until high - low <= resolution; a probe within the margin of a bound is run twice, and "
          "counts as a "
          "failure (uncertain) when the two disagree");
  w.key("history").begin_array();
  for (const auto& p : r.history) {
    w.begin_object()
        .field("probe", p.label)
        .field("load", p.load)
        .field("pass", p.pass)
        .field("uncertain", p.uncertain);
    w.field("verdict", p.verdict).field("why", p.why).key("values").begin_object();
    for (size_t i = 0; i < slos.size(); ++i) {
      w.key(slos[i].text());
      if (p.values[i])
        w.value(*p.values[i]);
      else
        w.null();
    }
    w.end_object().field("folder", p.label);
    if (p.accuracy)
      w.field("accuracy", *p.accuracy)
          .key("accuracy_interval")
          .begin_array()
          .value(*p.accuracy_low)
          .value(*p.accuracy_high)
          .end_array();
    w.end_object();
  }
  w.end_array().end_object();
  return w.take();
}

std::string search_page(const metrics::SearchResult& r, const std::string& json,
                        const std::vector<metrics::RunSlo>& slos) {
  std::string p =
      "<!doctype html><html><head><meta charset=\"utf-8\"><title>tokbench search</title><style>"
      "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px "
      "solid #ccc;"
      "padding:4px 8px;text-align:right}td:first-child{text-align:left}.fail{background:#fde2e2}"
      "</style></head><body><h1>tokbench search</h1><p id=\"answer\">" +
      escape_html(r.text) + "</p>";
  p += "<table><tr><th>probe</th><th>load</th><th>pass</th>";
  for (const auto& s : slos) p += "<th>" + escape_html(s.text()) + "</th>";
  p += "<th>why</th></tr>";
  for (const auto& pr : r.history) {
    p += fmt::format("<tr{}><td>{}</td><td>{}</td><td>{}</td>", pr.pass ? "" : " class=\"fail\"",
                     escape_html(pr.label), format_round4(pr.load),
                     pr.pass        ? "yes"
                     : pr.uncertain ? "uncertain"
                                    : "no");
    for (const auto& v : pr.values)
      p += "<td>" + (v ? format_round4(*v) : std::string("n/a")) + "</td>";
    p += "<td>" + escape_html(pr.why) + "</td></tr>";
  }
  p += "</table><h2>SLO values per probe</h2><div id=\"probes\" "
       "style=\"width:100%;height:420px\"></div>";
  p += "<script>" + std::string(chart_library()) + "</script>";
  p += "<script type=\"application/json\" id=\"search-data\">" + script_safe(json) + "</script>";
  p += "<script>" + std::string(web_asset(WebAsset::Search)) + "</script></body></html>\n";
  return p;
}

}  // namespace tokbench::report
