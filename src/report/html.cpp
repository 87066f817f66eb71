#include "report/html.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <stdexcept>

#include "common/json_writer.hpp"
#include "report/chart_asset.hpp"
#include "report/tables.hpp"
#include "tokbench/version.hpp"

namespace tokbench::report {

using record::kNone;

namespace {

void nullable(JsonWriter& w, int64_t ns, int64_t t0) {
  if (ns == kNone) {
    w.null();
  } else {
    w.value(static_cast<double>(ns - t0) / 1e6);
  }
}

}  // namespace

std::string escape_html(std::string_view s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '&': o += "&amp;"; break;
      case '"': o += "&quot;"; break;
      default: o.push_back(c);
    }
  }
  return o;
}

// JSON inside <script type="application/json">: only "</" could end the element early.
std::string script_safe(std::string json) {
  for (size_t p = 0; (p = json.find("</", p)) != std::string::npos; p += 3) json.replace(p, 2, "<\\/");
  return json;
}


namespace {

// The page's data: the request rows stream straight into the file; everything else is small.
class DataWriter {
 public:
  DataWriter(std::ostream& out, const HtmlInputs& in) : out_(out), in_(in) {
    if (in.itl_ms && in.itl_ms->n > 0) {
      lo_ = in.itl_ms->min;
      const double hi = in.itl_ms->max > lo_ ? in.itl_ms->max : lo_ + 1;
      width_ = (hi - lo_) / kBins;
      counts_.assign(kBins, 0);
    }
    out_ << fmt::format("{{\"stream\":{},\"rate\":{},\"requests\":[", in.stream, in.rate_driven);
  }

  void add(const record::RequestRecord& r) {
    if (r.warmup || r.sent_ns == kNone || r.done_ns == kNone) return;
    const int64_t t0 = in_.t0_ns;
    const int64_t out = metrics::output_tokens(r);
    JsonWriter w;
    w.begin_array();
    nullable(w, r.sent_ns, t0);
    nullable(w, r.stream ? r.first_token_ns : kNone, t0);
    nullable(w, r.done_ns, t0);
    w.value(r.ok() ? 1 : 0);
    // TTFT and TPOT as the tables define them (n > 1: the mean over the request's choices).
    for (const char* metric : {"TTFT", "TPOT"}) {
      if (const auto v = r.ok() ? metrics::request_value(r, metric) : std::nullopt) w.value(*v); else w.null();
    }
    w.value(static_cast<double>(r.done_ns - r.sent_ns) / 1e6);
    w.value(out);
    nullable(w, r.scheduled_ns, t0);
    w.end_array();
    if (rows_++) out_ << ',';
    out_ << w.take();
    if (!r.ok()) return;
    // Tokens over time: each text chunk's share (exact with cumulative usage, else spread).
    int64_t texts = 0;
    for (const auto& c : r.chunks) texts += c.has_text();
    if (!r.stream || texts == 0) {
      per_second_[(r.done_ns - t0) / 1'000'000'000] += static_cast<double>(out);
    } else {
      int64_t prev_cum = 0;
      for (const auto& c : r.chunks) {
        if (!c.has_text()) continue;
        double k = static_cast<double>(out) / static_cast<double>(texts);
        if (c.cum_tokens >= 0) {
          k = static_cast<double>(c.cum_tokens - prev_cum);
          prev_cum = c.cum_tokens;
        }
        per_second_[(c.t_ns - t0) / 1'000'000'000] += k;
      }
    }
    if (counts_.empty()) return;
    metrics::for_each_choice(r, [&](const record::RequestRecord& choice, bool) {
      metrics::for_each_token_gap(choice, [&](double g_ns, int64_t n) {
        const double g = g_ns / 1e6;
        counts_[static_cast<size_t>(std::clamp<double>(std::floor((g - lo_) / width_), 0, kBins - 1))] += static_cast<double>(n);
      });
    });
  }

  void finish() {
    JsonWriter w;
    // ITL: a histogram made here, since per-token gaps can number in the millions.
    w.begin_object().key("itl_hist").begin_object().key("edges").begin_array();
    for (size_t i = 0; i < counts_.size(); ++i) w.value(lo_ + static_cast<double>(i) * width_);
    w.end_array().key("counts").begin_array();
    for (double c : counts_) w.value(c);
    w.end_array().end_object();
    w.key("throughput").begin_array();
    for (const auto& [sec, tokens] : per_second_) w.begin_array().value(static_cast<double>(sec) + 0.5).value(tokens).end_array();
    w.end_array();
    w.key("percentiles").begin_object();
    for (const char* row : {"TTFT", "TPOT", "ITL", "E2EL"}) {
      const auto* r = in_.metrics.row(row);
      if (!r || !r->stats) continue;
      w.key(row).begin_object().field("p50", r->stats->median).field("p90", r->stats->p90).field("p99", r->stats->p99).end_object();
    }
    w.end_object();
    const std::string slices = in_.late_slices_json ? in_.late_slices_json() : std::string();
    if (slices.empty()) w.key("slices").null(); else w.field_raw("slices", slices);
    record::write_optional(w, "adaptive", in_.info.adaptive);
    w.key("turns").begin_array();  // multi-turn: per-turn means (empty otherwise)
    for (const auto& t : in_.metrics.turns) {
      w.begin_object().field("turn", t.turn).field("requests", t.requests);
      for (const auto& [k, v] : {std::pair{"ttft_ms", t.ttft_ms}, {"input_tokens", t.input_tokens}, {"cached_tokens", t.cached_tokens}}) {
        w.key(k);
        if (v) w.value(*v); else w.null();
      }
      w.end_object();
    }
    w.end_array();
    if (in_.info.server_json.empty()) {
      w.key("server").null();
    } else {
      w.field_raw("server", in_.info.server_json);
    }
    w.end_object();
    std::string tail = script_safe(w.take());
    out_ << "]," << std::string_view(tail).substr(1);  // the rest of the data object
  }

 private:
  static constexpr int kBins = 60;
  std::ostream& out_;
  const HtmlInputs& in_;
  int64_t rows_ = 0;
  std::map<int64_t, double> per_second_;  // output tokens by second of arrival
  double lo_ = 0, width_ = 1;
  std::vector<double> counts_;
};

}  // namespace

void write_html_report(const std::filesystem::path& path, const HtmlInputs& in, const RecordStream& records) {
  std::string audit;
  for (const auto& [level, text] : in.info.audit) audit += fmt::format("<li><b>{}</b>: {}</li>", level, escape_html(text));
  std::string reasons;
  for (const auto& r : in.verdict.reasons) reasons += "<li>" + escape_html(r) + "</li>";
  for (const auto& r : in.verdict.warnings) reasons += "<li>warning: " + escape_html(r) + "</li>";
  for (const auto& r : in.verdict.notes) reasons += "<li>note: " + escape_html(r) + "</li>";
  std::string defs;
  for (const auto& [k, text] : metrics::definition_texts(in.metrics.definitions))
    defs += fmt::format("<tr><td>{}</td><td>{}</td></tr>", escape_html(k), escape_html(text));
  std::string tables = console_tables(in.metrics);
  if (!in.side_by_side.empty()) tables += definitions_table(in.side_by_side);

  std::string page;
  page.reserve(chart_library().size() + 200'000);
  page += "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>tokbench: ";
  page += escape_html(in.info.model) + " / " + escape_html(in.info.dataset_abbr);
  page += "</title><style>body{font-family:sans-serif;margin:16px;color:#222}pre{font-size:12px;overflow-x:auto}"
          ".panel{width:100%;height:360px}.small{display:inline-block;width:49%;height:300px}"
          "#timeline{height:640px}.verdict-VALID{color:#2ca02c}.verdict-INVALID{color:#d62728}"
          "table.defs td{border-bottom:1px solid #eee;padding:2px 8px;font-size:13px;vertical-align:top}"
          "#hover{position:absolute;display:none;background:#fff;border:1px solid #999;padding:6px;font-size:12px;"
          "pointer-events:none;box-shadow:2px 2px 6px #ccc}</style>";
  page += "<script>";
  page += chart_library();
  page += "</script></head><body>";
  page += fmt::format("<h1>tokbench: {} on {}</h1><p>{} &middot; target {} &middot; started {} &middot; tokbench {}</p>",
                      escape_html(in.info.model), escape_html(in.info.dataset_abbr), in.info.interrupted ? "INTERRUPTED" : "completed",
                      escape_html(in.info.target_url), escape_html(in.info.started_at), escape_html(fmt::format("{} ({})", kVersion, kGitHash)));
  page += fmt::format("<h2 class=\"verdict-{0}\">Verdict: {0}</h2><ul>{1}</ul>", in.verdict.valid ? "VALID" : "INVALID", reasons);
  page += "<p>Metric definitions used: <a href=\"#definitions\">below</a> (docs/METRICS.md in the tokbench sources).</p>";
  page += "<h2>Tables</h2><pre id=\"tables\">" + escape_html(tables) + "</pre>";
  page += "<h2>Request body</h2><pre id=\"body\">" + escape_html(in.info.body_example) + "</pre><ul id=\"audit\">" + audit + "</ul>";
  if (!in.stream) {
    page += "<p id=\"non-streaming-note\"><b>Non-streaming run:</b> the client cannot see the first token, so there is no "
            "TTFT/decode split and no TTFT, TPOT or ITL distribution; the timeline shows each request's E2EL.</p>";
  }
  page += "<div id=\"hover\"></div><div id=\"timeline\" class=\"panel\"></div>";
  page += "<div id=\"dist-ttft\" class=\"small\"></div><div id=\"dist-tpot\" class=\"small\"></div>";
  page += "<div id=\"dist-itl\" class=\"small\"></div><div id=\"dist-e2el\" class=\"small\"></div>";
  page += "<div id=\"throughput\" class=\"panel\"></div><div id=\"sendlag\" class=\"panel\"></div><div id=\"server\" class=\"panel\"></div>";
  page += "<div id=\"slices\" class=\"panel\"></div><div id=\"adaptive\" class=\"panel\"></div><div id=\"turns\" class=\"panel\"></div>";
  page += "<h2 id=\"definitions\">Definitions</h2><table class=\"defs\">" + defs + "</table>";
  page += "<script type=\"application/json\" id=\"tokbench-data\">";
  // A temporary file renamed over the page: a kill leaves the old page or the new one.
  const std::filesystem::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << page;
    DataWriter data(out, in);
    records([&](const record::RequestRecord& r) { data.add(r); });
    data.finish();
    // The page's script (web/report.js) reads the data above and draws every panel.
    out << "</script><script>" << web_asset(WebAsset::Report) << "</script></body></html>\n";
    out.flush();
    if (!out) throw std::runtime_error(fmt::format("cannot write '{}': {}", path.string(), std::strerror(errno)));
  }
  std::filesystem::rename(tmp, path);
}

}  // namespace tokbench::report
