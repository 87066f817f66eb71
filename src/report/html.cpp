#include "report/html.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <stdexcept>
#include <tuple>

#include "common/json_writer.hpp"
#include "common/temp_path.hpp"
#include "report/chart_asset.hpp"
#include "report/page_rows.hpp"
#include "report/quality_view.hpp"
#include "report/tables.hpp"
#include "tokbench/version.hpp"

namespace tokbench::report {

using record::kNone;

namespace {

// About 60 bins over the run, at a round width (10 ms .. 1 s .. 10 min).
int64_t throughput_bin_ns(int64_t span_ns) {
  constexpr int64_t kMs = 1'000'000;
  for (int64_t w :
       {10 * kMs, 20 * kMs, 50 * kMs, 100 * kMs, 200 * kMs, 500 * kMs, 1000 * kMs, 2000 * kMs,
        5000 * kMs, 10'000 * kMs, 30'000 * kMs, 60'000 * kMs, 120'000 * kMs, 300'000 * kMs})
    if (span_ns / w <= 60) return w;
  return 600'000 * kMs;
}

}  // namespace

std::string escape_html(std::string_view s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '&':
        o += "&amp;";
        break;
      case '"':
        o += "&quot;";
        break;
      default:
        o.push_back(c);
    }
  }
  return o;
}

// JSON inside <script type="application/json">: only "</" could end the element early.
std::string script_safe(std::string json) {
  for (size_t p = 0; (p = json.find("</", p)) != std::string::npos; p += 3)
    json.replace(p, 2, "<\\/");
  return json;
}

namespace {

// A histogram of kBins equal bins over [lo, hi] (a value outside lands in the edge bin), made
// while the records stream: the page carries 60 counts, never the values.
class Bins {
 public:
  static constexpr int kBins = 60;
  Bins() = default;
  Bins(double lo, double hi)
      : lo_(lo), width_(((hi > lo ? hi : lo + 1) - lo) / kBins), counts_(kBins, 0) {}
  void add(double v, double n = 1) {
    if (counts_.empty()) return;
    counts_[static_cast<size_t>(
        std::clamp<double>(std::floor((v - lo_) / width_), 0, kBins - 1))] += n;
  }
  void write(JsonWriter& w) const {
    w.begin_object().key("edges").begin_array();
    for (size_t i = 0; i < counts_.size(); ++i) w.value(lo_ + static_cast<double>(i) * width_);
    w.end_array().key("counts").begin_array();
    for (double c : counts_) w.value(c);
    w.end_array().end_object();
  }

 private:
  double lo_ = 0, width_ = 1;
  std::vector<double> counts_;
};

// Time-weighted mean in flight per bin over the run, exact for any number of requests in O(1) a
// request: the partial bins at each end directly, the whole bins between as +1/-1 marks.
class InFlightBins {
 public:
  static constexpr int kBins = 600;
  explicit InFlightBins(double span_ms)
      : width_(std::max(span_ms, 1.0) / kBins), part_(kBins, 0), marks_(kBins + 1, 0) {}
  void add(double start_ms, double end_ms) {
    const double top = width_ * kBins;
    const double s = std::clamp(start_ms, 0.0, top), e = std::clamp(end_ms, s, top);
    const auto bs = std::min<int64_t>(static_cast<int64_t>(s / width_), kBins - 1);
    const auto be = std::min<int64_t>(static_cast<int64_t>(e / width_), kBins - 1);
    if (bs == be) {
      part_[bs] += e - s;
      return;
    }
    part_[bs] += static_cast<double>(bs + 1) * width_ - s;
    part_[be] += e - static_cast<double>(be) * width_;
    ++marks_[bs + 1];
    --marks_[be];
  }
  void write(JsonWriter& w) const {  // [bin start ms, mean in flight]
    w.begin_object().field("bin_ms", width_).key("points").begin_array();
    int64_t whole = 0;
    for (int k = 0; k < kBins; ++k) {
      whole += marks_[k];
      w.begin_array()
          .value(static_cast<double>(k) * width_)
          .value((part_[k] + static_cast<double>(whole) * width_) / width_)
          .end_array();
    }
    w.end_array().end_object();
  }

 private:
  double width_;
  std::vector<double> part_;
  std::vector<int64_t> marks_;
};

double ms_or_nan(int64_t ns, int64_t t0) {
  return ns == kNone ? std::numeric_limits<double>::quiet_NaN()
                     : static_cast<double>(ns - t0) / 1e6;
}

void value_or_null(JsonWriter& w, double v) {
  if (std::isnan(v))
    w.null();
  else
    w.value(v);
}

// The page's data. Every record passes once: the histograms, token throughput and in-flight bins
// see them all; the timeline's rows are those report/page_rows keeps (all up to its limit, then
// a stated sample), written at the end. Memory is bounded by those caps, not by the run.
class DataWriter {
 public:
  DataWriter(std::ostream& out, const HtmlInputs& in)
      : out_(out),
        in_(in),
        bin_ns_(throughput_bin_ns(in.span_ns)),
        inflight_(static_cast<double>(in.span_ns) / 1e6) {
    if (in.itl_ms && in.itl_ms->n > 0) itl_ = Bins(in.itl_ms->min, in.itl_ms->max);
    for (auto [row, bins] : {std::pair{"TTFT", &ttft_}, {"TPOT", &tpot_}, {"E2EL", &e2el_}}) {
      const auto* r = in.metrics.row(row);
      if (r && r->stats && r->stats->n > 0) *bins = Bins(r->stats->min, r->stats->max);
    }
    // --class: each class binned on the run's edges (empty yet), so its bars stack into the run's.
    classes_.assign(in.classes.size(), ClassBins{ttft_, tpot_, e2el_, itl_, {}});
  }

  void add(const record::RequestRecord& r) {
    if (r.warmup || r.sent_ns == kNone || r.done_ns == kNone) return;
    const int64_t t0 = in_.t0_ns;
    const int64_t out = metrics::output_tokens(r);
    PageRow row;
    row.start = ms_or_nan(r.sent_ns, t0);
    row.first = ms_or_nan(r.stream ? r.first_token_ns : kNone, t0);
    row.end = ms_or_nan(r.done_ns, t0);
    row.ok = r.ok();
    row.apart = r.apart();
    // TTFT and TPOT as the tables define them (n > 1: the mean over the request's choices).
    const auto value = [&](const char* metric) {
      const auto v = r.ok() ? metrics::request_value(r, metric) : std::nullopt;
      return v ? *v : std::numeric_limits<double>::quiet_NaN();
    };
    row.ttft = value("TTFT");
    row.tpot = value("TPOT");
    row.e2el = static_cast<double>(r.done_ns - r.sent_ns) / 1e6;
    row.out_tokens = out;
    row.scheduled = ms_or_nan(r.scheduled_ns, t0);
    row.index = r.index;
    for (size_t k = 0; k < in_.classes.size(); ++k)
      if (in_.classes[k] == r.traffic_class) row.traffic_class = static_cast<int32_t>(k);
    request_ids_ = request_ids_ || !r.client_request_id.empty();
    rows_.add(row);
    inflight_.add(row.start, row.end);
    if (!r.ok()) return;
    ClassBins* cls =
        row.traffic_class >= 0 ? &classes_[static_cast<size_t>(row.traffic_class)] : nullptr;
    for (auto [v, all, own] : {std::tuple{row.ttft, &ttft_, cls ? &cls->ttft : nullptr},
                               {row.tpot, &tpot_, cls ? &cls->tpot : nullptr},
                               {row.e2el, &e2el_, cls ? &cls->e2el : nullptr}}) {
      if (std::isnan(v)) continue;  // E2EL is request_value's: (done - sent) of a success
      all->add(v);
      if (own) own->add(v);
    }
    // Tokens over time: each text chunk's share (exact with cumulative usage, else spread).
    const auto tokens_at = [&](int64_t t_ns, double k) {
      per_bin_[(t_ns - t0) / bin_ns_] += k;
      if (cls) cls->per_bin[(t_ns - t0) / bin_ns_] += k;
    };
    int64_t texts = 0;
    for (const auto& c : r.chunks) texts += c.has_text();
    if (!r.stream || texts == 0) {
      tokens_at(r.done_ns, static_cast<double>(out));
    } else {
      int64_t prev_cum = 0;
      for (const auto& c : r.chunks) {
        if (!c.has_text()) continue;
        double k = static_cast<double>(out) / static_cast<double>(texts);
        if (c.cum_tokens >= 0) {
          k = static_cast<double>(c.cum_tokens - prev_cum);
          prev_cum = c.cum_tokens;
        }
        tokens_at(c.t_ns, k);
      }
    }
    if (!in_.itl_ms || in_.itl_ms->n == 0) return;
    metrics::for_each_choice(r, [&](const record::RequestRecord& choice, bool) {
      metrics::for_each_token_gap(choice, [&](double g_ns, int64_t n) {
        itl_.add(g_ns / 1e6, static_cast<double>(n));
        if (cls) cls->itl.add(g_ns / 1e6, static_cast<double>(n));
      });
    });
  }

  void finish() {
    // The rows go straight to the page, a row at a time: up to 50,000 of them are never held as
    // one string (numbers only: nothing in them needs script_safe).
    out_ << "{\"requests\":[";
    auto drawn = rows_.take();
    bool first = true;
    drawn.for_each([&](const PageRow& r) {
      JsonWriter row;
      row.begin_array();
      for (double v : {r.start, r.first, r.end}) value_or_null(row, v);
      row.value(r.ok ? 1 : r.apart ? 2 : 0);  // 2: counted apart (cancelled, cut)
      for (double v : {r.ttft, r.tpot, r.e2el}) value_or_null(row, v);
      row.value(r.out_tokens);
      value_or_null(row, r.scheduled);
      row.value(r.index);
      if (!in_.classes.empty()) row.value(int64_t{r.traffic_class});  // --class: its position
      row.end_array();
      if (!first) out_ << ',';
      first = false;
      out_ << row.take();
    });
    out_ << ']';
    // The rest of the object: its "{" becomes the "," after the rows.
    JsonWriter w;
    w.begin_object();
    w.field("request_ids", request_ids_);
    w.key("classes").begin_array();
    for (const auto& name : in_.classes) w.value(name);
    w.end_array();
    // Past the limit, what the timeline shows and how it was chosen (the page says so on the
    // chart).
    w.key("sampling");
    if (!drawn.sampled) {
      w.null();
    } else {
      w.begin_object().field("total", drawn.total).field("drawn", drawn.drawn);
      w.field("failed", drawn.failed)
          .field("failed_drawn", drawn.failed_drawn)
          .field("slowest_drawn", drawn.slowest_drawn);
      w.field("sampled_drawn", drawn.sampled_drawn)
          .field("draw_all_limit", static_cast<int64_t>(RowSampler::kDrawAll));
      w.field("seed", static_cast<int64_t>(RowSampler::kSeed)).end_object();
    }
    w.key("inflight");
    inflight_.write(w);
    // Histograms made here over every request (and ITL over every token gap), never from the rows.
    w.key("hist").begin_object();
    for (auto [name, bins] : {std::pair{"TTFT", &ttft_}, {"TPOT", &tpot_}, {"E2EL", &e2el_}}) {
      w.key(name);
      bins->write(w);
    }
    w.end_object();
    // --class: each class's histograms and token throughput, on the run's edges and bins.
    w.key("class_hist").begin_array();
    for (const ClassBins& c : classes_) {
      w.begin_object();
      for (auto [name, bins] :
           {std::pair{"TTFT", &c.ttft}, {"TPOT", &c.tpot}, {"E2EL", &c.e2el}, {"ITL", &c.itl}}) {
        w.key(name);
        bins->write(w);
      }
      w.end_object();
    }
    w.end_array();
    w.key("itl_hist");
    itl_.write(w);
    // Output tokens per second, in bins that suit the run's length (a 0.6 s run gets 10 ms bins,
    // not one 1 s bar past its end): [bin centre s, token/s].
    const double bin_s = static_cast<double>(bin_ns_) / 1e9;
    w.field("throughput_bin_s", bin_s).field("span_s", static_cast<double>(in_.span_ns) / 1e9);
    w.field("t0_ms", static_cast<double>(in_.t0_ns) / 1e6).field("one_shot", in_.one_shot);
    // Every class on the run's bins (0 where it had none): the page stacks bars by position.
    const auto per_s = [&](const std::map<int64_t, double>& bins) {
      w.begin_array();
      for (const auto& [bin, all] : per_bin_) {
        const auto own = bins.find(bin);
        w.begin_array()
            .value((static_cast<double>(bin) + 0.5) * bin_s)
            .value((own == bins.end() ? 0.0 : own->second) / bin_s)
            .end_array();
      }
      w.end_array();
    };
    w.key("throughput");
    per_s(per_bin_);
    w.key("class_throughput").begin_array();
    for (const ClassBins& c : classes_) per_s(c.per_bin);
    w.end_array();
    w.key("percentiles").begin_object();
    for (const char* row : {"TTFT", "TPOT", "ITL", "E2EL"}) {
      const auto* r = in_.metrics.row(row);
      if (!r || !r->stats) continue;
      w.key(row)
          .begin_object()
          .field("p50", r->stats->median)
          .field("p90", r->stats->p90)
          .field("p99", r->stats->p99)
          .end_object();
    }
    w.end_object();
    const std::string slices = in_.late_slices_json ? in_.late_slices_json() : std::string();
    if (slices.empty())
      w.key("slices").null();
    else
      w.field_raw("slices", slices);
    w.field("stable_tables", in_.late_stable_tables ? in_.late_stable_tables() : std::string());
    record::write_optional(w, "adaptive", in_.info.adaptive);
    w.key("turns").begin_array();  // multi-turn: per-turn means (empty otherwise)
    for (const auto& t : in_.metrics.turns) {
      w.begin_object().field("turn", t.turn).field("requests", t.requests);
      for (const auto& [k, v] : {std::pair{"ttft_ms", t.ttft_ms},
                                 {"input_tokens", t.input_tokens},
                                 {"cached_tokens", t.cached_tokens}}) {
        w.key(k);
        if (v)
          w.value(*v);
        else
          w.null();
      }
      w.end_object();
    }
    w.end_array();
    if (in_.info.telemetry_json.empty())
      w.key("telemetry").null();
    else
      w.field_raw("telemetry", in_.info.telemetry_json);
    if (in_.info.server_json.empty()) {
      w.key("server").null();
    } else {
      w.field_raw("server", in_.info.server_json);
    }
    JsonWriter id;
    id.value(in_.info.run_id);
    w.field_raw("run_id", id.take());
    w.field("stream", in_.stream).field("rate", in_.rate_driven);
    w.end_object();
    std::string rest = script_safe(w.take());
    rest.front() = ',';
    out_ << rest;
  }

 private:
  std::ostream& out_;
  const HtmlInputs& in_;
  int64_t bin_ns_;
  RowSampler rows_;
  bool request_ids_ = false;
  std::map<int64_t, double> per_bin_;  // output tokens by bin of arrival
  Bins itl_, ttft_, tpot_, e2el_;
  struct ClassBins {  // --class: one class's share of the histograms and of the tokens
    Bins ttft, tpot, e2el, itl;
    std::map<int64_t, double> per_bin;
  };
  std::vector<ClassBins> classes_;
  InFlightBins inflight_;
};

// The figures a reader looks for first, as cards above everything else.
std::string headline_cards(const HtmlInputs& in) {
  const metrics::MetricSet& m = in.metrics;
  auto card = [](const std::string& label, const std::string& value, const std::string& sub) {
    return fmt::format(
        "<div class=\"card\"><div class=\"label\">{}</div><div class=\"value\">{}</div><div "
        "class=\"sub\">{}</div></div>",
        escape_html(label), escape_html(value), escape_html(sub));
  };
  auto common = [&](std::string_view key) {
    const metrics::Common* c = m.common_metric(key);
    return c && c->known ? std::optional<double>(c->value) : std::nullopt;
  };
  auto latency = [&](const char* row) {
    const metrics::Row* r = m.row(row);
    if (!r || !r->stats) return card(row, "n/a", r ? r->na_reason : "");
    return card(std::string(row) + " P99", format_short(r->stats->p99) + " ms",
                "mean " + format_short(r->stats->mean) + " ms");
  };
  std::string cards =
      card("Verdict", in.info.interrupted ? "INTERRUPTED" : metrics::verdict_status(in.verdict),
           fmt::format("{} reason(s), {} warning(s)", in.verdict.reasons.size(),
                       in.verdict.warnings.size()));
  cards += card(
      "Requests",
      fmt::format("{:.0f} / {:.0f}", common("success_requests").value_or(0),
                  common("total_requests").value_or(0)),
      fmt::format("succeeded; {:.0f} failed{}", common("failed_requests").value_or(0),
                  common("cancelled_requests") ? fmt::format("; {:.0f} cancelled by the client",
                                                             *common("cancelled_requests"))
                                               : ""));
  for (const char* row : {"TTFT", "TPOT", "E2EL"}) cards += latency(row);
  const auto out_tps = common("output_token_throughput");
  if (!in.one_shot)
    cards +=
        card("Output throughput", out_tps ? format_short(*out_tps) + " token/s" : "n/a",
             m.output_tokens_from_chunks > 0 ? "tokens counted as text chunks" : "all requests");
  if (const metrics::AnswerTally& a = m.quality.answers; a.scored() > 0) {
    const metrics::WilsonInterval i = a.interval();
    cards += card("Accuracy", format_short(i.p),
                  fmt::format("95% interval [{}, {}]; {} of {} right", format_short(i.low),
                              format_short(i.high), a.right, a.scored()));
  }
  cards +=
      card("Request throughput", format_short(common("request_throughput").value_or(0)) + " req/s",
           "in flight " + format_short(common("concurrency").value_or(0)) + " on average");
  return "<div id=\"cards\">" + cards + "</div>";
}

}  // namespace

void write_html_report(const std::filesystem::path& path, const HtmlInputs& in,
                       const RecordStream& records) {
  std::string audit;
  for (const auto& [level, text] : in.info.audit)
    audit += fmt::format("<li><b>{}</b>: {}</li>", level, escape_html(text));
  std::string reasons;
  for (const auto& r : in.verdict.reasons) reasons += "<li>" + escape_html(r) + "</li>";
  for (const auto& r : in.verdict.warnings) reasons += "<li>warning: " + escape_html(r) + "</li>";
  for (const auto& r : in.verdict.notes) reasons += "<li>note: " + escape_html(r) + "</li>";
  std::string defs;
  for (const auto& [k, text] : metrics::definition_texts(in.metrics.definitions))
    defs += fmt::format("<tr><td>{}</td><td>{}</td></tr>", escape_html(k), escape_html(text));
  std::string tables = console_tables(in.metrics);
  if (const std::string cache = prefix_cache_line(in.metrics); !cache.empty())
    tables += cache + "\n";
  if (!in.side_by_side.empty()) tables += definitions_table(in.side_by_side);
  tables += in.server_tables;
  tables += in.telemetry_tables;
  tables += in.waterfall;
  if (outputs_read(in.metrics.quality)) {
    tables += "\nAnswers and integrity (" + in.info.dataset_abbr + "_quality.csv)\n";
    for (const auto& line : quality_lines(in.metrics.quality)) tables += line + "\n";
  }

  std::string page;
  page.reserve(chart_library().size() + 200'000);
  page += "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>tokbench: ";
  page += escape_html(in.info.model) + " / " + escape_html(in.info.dataset_abbr);
  page +=
      "</"
      "title><style>body{font-family:sans-serif;margin:16px;color:#222}pre{font-size:12px;overflow-"
      "x:auto}"
      ".panel{width:100%;height:360px}.small{display:inline-block;width:49%;height:300px}"
      "#timeline{height:640px}.verdict-VALID{color:#2ca02c}.verdict-INVALID{color:#d62728}"
      "table.defs td{border-bottom:1px solid #eee;padding:2px "
      "8px;font-size:13px;vertical-align:top}"
      "#cards{display:flex;flex-wrap:wrap;gap:10px;margin:12px 0}.card{border:1px solid "
      "#ddd;border-radius:6px;"
      "padding:8px 14px;min-width:140px}.card .label{font-size:12px;color:#666}.card "
      ".value{font-size:22px;"
      "font-weight:bold}.card "
      ".sub{font-size:12px;color:#666}#body{white-space:pre-wrap;word-break:break-all}"
      "#hover{position:absolute;display:none;background:#fff;border:1px solid "
      "#999;padding:6px;font-size:12px;"
      "pointer-events:none;box-shadow:2px 2px 6px #ccc}</style>";
  page += "<script>";
  page += chart_library();
  page += "</script></head><body>";
  // Which engine answered and how that is known (result.json's engine), beside the target.
  const std::string engine =
      in.info.engine.empty() ? std::string()
                             : fmt::format(" &middot; engine {} ({})", escape_html(in.info.engine),
                                           escape_html(in.info.engine_how));
  page += fmt::format(
      "<h1>tokbench: {} on {}</h1><p>{} &middot; target {}{} &middot; started {} &middot; "
      "tokbench {}</p>",
      escape_html(in.info.model), escape_html(in.info.dataset_abbr),
      in.info.interrupted ? "INTERRUPTED" : "completed", escape_html(in.info.target_url), engine,
      escape_html(in.info.started_at), escape_html(fmt::format("{} ({})", kVersion, kGitHash)));
  page += headline_cards(in);
  page += fmt::format("<h2 class=\"verdict-{0}\">Verdict: {0}</h2><ul>{1}</ul>",
                      metrics::verdict_status(in.verdict), reasons);
  page +=
      "<p>Metric definitions used: <a href=\"#definitions\">below</a> (docs/METRICS.md in the "
      "tokbench sources).</p>";
  page += "<h2>Tables</h2><pre id=\"tables\">" + escape_html(tables) + "</pre>";
  if (!in.class_lines.empty()) {
    std::string lines;
    for (const auto& l : in.class_lines) lines += l + "\n";
    page += "<h2>Traffic classes</h2><pre id=\"classes\">" + escape_html(lines) + "</pre>";
  }
  page += "<pre id=\"stable-tables\"></pre>";  // filled from the data: the stable stage is found on
                                               // the page's own pass
  page += "<h2>Request body</h2><pre id=\"body\">" + escape_html(in.info.body_example) +
          "</pre><ul id=\"audit\">" + audit + "</ul>";
  if (!in.stream) {
    page +=
        "<p id=\"non-streaming-note\"><b>Non-streaming run:</b> the client cannot see the first "
        "token, so there is no "
        "TTFT/decode split and no TTFT, TPOT or ITL distribution; the timeline shows each "
        "request's E2EL.</p>";
  }
  page += "<div id=\"hover\"></div><div id=\"timeline\" class=\"panel\"></div>";
  page +=
      "<div id=\"dist-ttft\" class=\"small\"></div><div id=\"dist-tpot\" class=\"small\"></div>";
  page += "<div id=\"dist-itl\" class=\"small\"></div><div id=\"dist-e2el\" class=\"small\"></div>";
  page +=
      "<div id=\"throughput\" class=\"panel\"></div><div id=\"sendlag\" class=\"panel\"></div><div "
      "id=\"server\" class=\"panel\"></div><div id=\"devices\" class=\"panel\"></div>";
  page +=
      "<div id=\"slices\" class=\"panel\"></div><div id=\"adaptive\" class=\"panel\"></div><div "
      "id=\"turns\" class=\"panel\"></div>";
  page += "<h2 id=\"definitions\">Definitions</h2><table class=\"defs\">" + defs + "</table>";
  page += "<script type=\"application/json\" id=\"tokbench-data\">";
  // A temporary file renamed over the page: a kill leaves the old page or the new one.
  TempPath tmp(path);
  {
    std::ofstream out(tmp.path(), std::ios::binary | std::ios::trunc);
    out << page;
    DataWriter data(out, in);
    records([&](const record::RequestRecord& r) { data.add(r); });
    data.finish();
    // The page's script (web/report.js) reads the data above and draws every panel.
    out << "</script><script>" << web_asset(WebAsset::Report) << "</script></body></html>\n";
    out.flush();
    if (!out)
      throw std::runtime_error(
          fmt::format("cannot write '{}': {}", path.string(), std::strerror(errno)));
  }
  tmp.commit();
}

}  // namespace tokbench::report
