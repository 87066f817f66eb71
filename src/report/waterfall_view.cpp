#include "report/waterfall_view.hpp"

#include <fmt/format.h>

#include "common/format.hpp"
#include "common/json_writer.hpp"

namespace tokbench::report {

namespace {

void phases(JsonWriter& j, const std::array<double, 7>& ms) {
  for (size_t k = 0; k < ms.size(); ++k)
    j.field(std::string(metrics::kWaterfallPhases[k]) + "_ms", ms[k]);
}

// A text cell as RFC 4180 quotes it: ids come from the server and may hold commas.
std::string quoted(const std::string& s) {
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string request_name(const metrics::WaterfallRow& r) {
  return r.traffic_class.empty() ? fmt::format("#{}", r.index)
                                 : fmt::format("{}#{}", r.traffic_class, r.index);
}

}  // namespace

std::string waterfall_json(const metrics::Waterfall& w) {
  JsonWriter j;
  j.begin_object()
      .field("measured", w.measured)
      .field("joined", static_cast<int64_t>(w.rows.size()))
      .field("untraced", w.untraced)
      .field("unjoined", w.unjoined)
      .field("no_times", w.no_times)
      .field("spans_received", w.header.spans)
      .field("exports", w.header.exports)
      .field("refused_exports", w.header.refused)
      .field("receiver", w.header.listen);
  j.key("phases").begin_array();
  for (const char* p : metrics::kWaterfallPhases) j.value(p);
  j.end_array();
  j.key("buckets").begin_array();
  for (const auto& b : w.buckets) {
    j.begin_object().field("bucket", b.name).field("n", b.n);
    phases(j, b.mean_ms);
    j.field("e2el_ms", b.e2el_mean_ms).end_object();
  }
  j.end_array();
  j.field("client_share_budget_pct", w.budget).field("over_budget", w.over_count);
  j.key("over_budget_requests").begin_array();
  for (const auto& r : w.over)
    j.begin_object()
        .field("index", r.index)
        .field("class", r.traffic_class)
        .field("request_id", r.request_id)
        .field("client_share_pct", 100 * r.client_share)
        .field("e2el_ms", r.e2el_ms)
        .end_object();
  j.end_array().end_object();
  return j.take();
}

std::vector<std::string> waterfall_lines(const metrics::Waterfall& w) {
  std::vector<std::string> out;
  std::string missing;
  if (w.unjoined > 0) missing += fmt::format(", {} with no span", w.unjoined);
  if (w.untraced > 0) missing += fmt::format(", {} sent without a traceparent", w.untraced);
  if (w.no_times > 0)
    missing += fmt::format(", {} whose span has no queue/prefill/decode", w.no_times);
  out.push_back(fmt::format(
      "server spans: {} of {} requests joined by trace id{}; mean ms per E2EL bucket (the "
      "waterfall, docs/METRICS.md)",
      w.rows.size(), w.measured, missing));
  if (w.over_count == 0) {
    if (!w.rows.empty())
      out.push_back(fmt::format("  no request spent over {}% of its time outside the server",
                                format_round4(w.budget)));
    return out;
  }
  std::string named;
  for (size_t i = 0; i < w.over.size() && i < 5; ++i)
    named += fmt::format("{}{} ({:.0f}%)", i ? ", " : "", request_name(w.over[i]),
                         100 * w.over[i].client_share);
  out.push_back(
      fmt::format("  {} request(s) spent over {}% of their time outside the server "
                  "(schedule lag, to the server, delivery): {}{}",
                  w.over_count, format_round4(w.budget), named,
                  w.over_count > 5 ? ", ... (all in the waterfall CSV)" : ""));
  return out;
}

std::string waterfall_csv(const metrics::Waterfall& w) {
  std::string csv = "index,class,request_id";
  for (const char* p : metrics::kWaterfallPhases) csv += fmt::format(",{}_ms", p);
  csv += ",e2el_ms,client_share_pct\n";
  for (const auto& r : w.rows) {
    csv += fmt::format("{},{},{}", r.index, quoted(r.traffic_class), quoted(r.request_id));
    for (double ms : r.ms) csv += fmt::format(",{:.3f}", ms);
    csv += fmt::format(",{:.3f},{:.2f}\n", r.e2el_ms, 100 * r.client_share);
  }
  return csv;
}

}  // namespace tokbench::report
