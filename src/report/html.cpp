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

// The page's script: reads the embedded data and draws every panel. Kept in one place so the
// browser test and the page agree on names (window.TOKBENCH).
constexpr const char* kScript = R"JS(
const D = JSON.parse(document.getElementById('tokbench-data').textContent);
const R = D.requests.sort((a, b) => a[0] - b[0]);  // sorted by start; [start_ms, first_ms|null, end_ms, ok, ttft_ms|null, tpot_ms|null, e2el_ms, out_tokens, scheduled_ms|null]
window.TOKBENCH = {requests: R, rendered: false, charts: {}};
const t0 = performance.now();
const tools = {feature: {dataZoom: {}, restore: {}, saveAsImage: {name: 'tokbench'}}};
const fmt = (v) => v == null ? 'n/a' : (Math.round(v * 10000) / 10000).toString();
function chart(id, option) {
  const c = echarts.init(document.getElementById(id), null, {renderer: 'canvas'});
  c.setOption(option);
  window.TOKBENCH.charts[id] = c;
  return c;
}
// Timeline (one line per request, sorted by start) above the concurrency step chart.
const large = R.length > 10000;
const ttft = [], decode = [], e2e = [], failed = [];
R.forEach((r, i) => {
  if (!r[3]) failed.push({coords: [[r[0], i], [r[2], i]]});
  else if (D.stream && r[1] != null) {
    ttft.push({coords: [[r[0], i], [r[1], i]]});
    decode.push({coords: [[r[1], i], [r[2], i]]});
  } else e2e.push({coords: [[r[0], i], [r[2], i]]});
});
const maxEnd = Math.ceil(R.reduce((m, r) => Math.max(m, r[2]), 1));
const ev = [];
R.forEach((r) => { ev.push([r[0], 1]); ev.push([r[2], -1]); });
ev.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
let cur = 0;
const conc = ev.map((e) => [e[0], cur += e[1]]);
const lines = (name, data, color) => ({name, type: 'lines', coordinateSystem: 'cartesian2d', xAxisIndex: 0, yAxisIndex: 0,
  polyline: false, large, data, lineStyle: {color, width: 1.5, opacity: 0.9}, silent: true});
chart('timeline', {
  animation: false, toolbox: tools,
  title: {text: D.stream ? 'Requests: TTFT (red) and decode (blue); failed (grey)' : 'Requests: E2EL (non-streaming)', left: 'center', textStyle: {fontSize: 14}},

  grid: [{top: 40, height: '52%', left: 60, right: 30}, {top: '70%', height: '18%', left: 60, right: 30}],
  // Explicit ranges: 'lines' series do not widen axes, and both panels share one time axis.
  xAxis: [{type: 'value', gridIndex: 0, name: 'ms', min: 0, max: maxEnd}, {type: 'value', gridIndex: 1, name: 'ms', min: 0, max: maxEnd}],
  yAxis: [{type: 'value', gridIndex: 0, name: 'request', inverse: true, min: -1, max: R.length}, {type: 'value', gridIndex: 1, name: 'in flight'}],
  dataZoom: [{type: 'inside', xAxisIndex: [0, 1]}, {type: 'slider', xAxisIndex: [0, 1], bottom: 5}],
  series: [lines('TTFT', ttft, '#d62728'), lines('decode', decode, '#1f77b4'), lines('E2EL', e2e, '#1f77b4'),
           lines('failed', failed, '#999999'),
           {name: 'concurrency', type: 'line', step: 'end', xAxisIndex: 1, yAxisIndex: 1, data: conc, symbol: 'none',
            areaStyle: {color: '#2ca02c', opacity: 0.3}, lineStyle: {color: '#2ca02c'}}]
});
// Hover: the row under the pointer is the request (rows are indices), so the lookup is O(1) at
// any size; the mouse and the tests both go through TOKBENCH.hover.
const hoverBox = document.getElementById('hover');
window.TOKBENCH.hover = (i, px = 80, py = 80) => {
  if (i < 0 || i >= R.length) { hoverBox.style.display = 'none'; return ''; }
  const r = R[i];
  hoverBox.innerHTML = `request ${i}<br>start: ${fmt(r[0] / 1000)} s<br>TTFT: ${fmt(r[4])} ms<br>` +
      `Decode: ${r[1] == null ? 'n/a' : fmt(r[2] - r[1])} ms<br>E2EL: ${fmt(r[6])} ms<br>output tokens: ${r[7]}` +
      (r[3] ? '' : '<br>FAILED');
  hoverBox.style.left = (px + 16) + 'px';
  hoverBox.style.top = (py + 16) + 'px';
  hoverBox.style.display = 'block';
  return hoverBox.textContent;
};
{
  const tl = window.TOKBENCH.charts.timeline;
  tl.getZr().on('mousemove', (e) => {
    if (!tl.containPixel({gridIndex: 0}, [e.offsetX, e.offsetY])) { window.TOKBENCH.hover(-1); return; }
    const [, y] = tl.convertFromPixel({gridIndex: 0}, [e.offsetX, e.offsetY]);
    const box = document.getElementById('timeline').getBoundingClientRect();
    window.TOKBENCH.hover(Math.round(y), box.left + window.scrollX + e.offsetX, box.top + window.scrollY + e.offsetY);
  });
  tl.getZr().on('globalout', () => window.TOKBENCH.hover(-1));
}
// Distributions with P50/P90/P99 marked.
function histogram(values, bins) {
  if (!values.length) return {edges: [], counts: []};
  let lo = Infinity, hi = -Infinity;  // a loop: spreading 100k+ arguments overflows the JS stack
  for (const v of values) { if (v < lo) lo = v; if (v > hi) hi = v; }
  if (hi === lo) hi = lo + 1;
  const w = (hi - lo) / bins, counts = new Array(bins).fill(0);
  for (const v of values) counts[Math.min(bins - 1, Math.floor((v - lo) / w))]++;
  return {edges: counts.map((_, i) => lo + i * w), counts};
}
function dist(id, name, h) {
  const p = D.percentiles[name];
  const marks = p ? [['P50', p.p50], ['P90', p.p90], ['P99', p.p99]].map(([n, v]) => ({name: n, xAxis: v, label: {formatter: n}})) : [];
  chart(id, {animation: false, toolbox: tools, title: {text: name + ' (ms)', left: 'center', textStyle: {fontSize: 13}},
    tooltip: {trigger: 'axis'}, grid: {left: 50, right: 20, top: 40, bottom: 30},
    xAxis: {type: 'value', scale: true}, yAxis: {type: 'value', name: 'count'},
    series: [{type: 'bar', barWidth: '90%', data: h.edges.map((e, i) => [e, h.counts[i]]),
              markLine: {symbol: 'none', data: marks, lineStyle: {color: '#d62728'}}}]});
}
const col = (k) => R.filter((r) => r[3] && r[k] != null).map((r) => r[k]);
if (D.stream) {
  dist('dist-ttft', 'TTFT', histogram(col(4), 60));
  dist('dist-tpot', 'TPOT', histogram(col(5), 60));
  dist('dist-itl', 'ITL', D.itl_hist);
} else {
  for (const id of ['dist-ttft', 'dist-tpot', 'dist-itl']) document.getElementById(id).style.display = 'none';
}
dist('dist-e2el', 'E2EL', histogram(col(6), 60));
chart('throughput', {animation: false, toolbox: tools, title: {text: 'Output tokens per second', left: 'center', textStyle: {fontSize: 13}},
  tooltip: {trigger: 'axis'}, grid: {left: 60, right: 20, top: 40, bottom: 30},
  xAxis: {type: 'value', name: 's'}, yAxis: {type: 'value', name: 'token/s'},
  series: [{type: 'bar', data: D.throughput}]});
if (D.rate) {
  chart('sendlag', {animation: false, toolbox: tools, title: {text: 'Send lag (sent - scheduled)', left: 'center', textStyle: {fontSize: 13}},
    tooltip: {trigger: 'item'}, grid: {left: 60, right: 20, top: 40, bottom: 30},
    xAxis: {type: 'value', name: 'scheduled (s)'}, yAxis: {type: 'value', name: 'ms'},
    series: [{type: 'scatter', symbolSize: 4, large, data: R.filter((r) => r[8] != null).map((r) => [r[8] / 1000, r[0] - r[8]])}]});
} else document.getElementById('sendlag').style.display = 'none';
if (D.server && D.server.running_waiting) {
  const rw = D.server.running_waiting;
  chart('server', {animation: false, toolbox: tools, title: {text: 'Server: running and waiting requests (/metrics)', left: 'center', textStyle: {fontSize: 13}},
    tooltip: {trigger: 'axis'}, legend: {top: 22}, grid: {left: 60, right: 20, top: 50, bottom: 30},
    xAxis: {type: 'value', name: 's'}, yAxis: {type: 'value'},
    series: [{name: 'running', type: 'line', step: 'end', data: rw.map((x) => [x.t_ms / 1000, x.running])},
             {name: 'waiting', type: 'line', step: 'end', data: rw.map((x) => [x.t_ms / 1000, x.waiting])}]});
} else document.getElementById('server').style.display = 'none';
if (D.slices && D.slices.slices.length) {
  const S = D.slices.slices, mid = (s) => (s.start_s + s.end_s) / 2;
  chart('slices', {animation: false, toolbox: tools, title: {text: 'Per time slice (' + D.slices.width_s + ' s)', left: 'center', textStyle: {fontSize: 13}},
    tooltip: {trigger: 'axis'}, legend: {top: 22}, grid: {left: 60, right: 60, top: 50, bottom: 30},
    xAxis: {type: 'value', name: 's'}, yAxis: [{type: 'value', name: 'ms'}, {type: 'value', name: 'token/s'}],
    series: [{name: 'TTFT P99', type: 'line', data: S.map((s) => [mid(s), s.ttft.n ? s.ttft.p99 : null])},
             {name: 'TPOT mean', type: 'line', data: S.map((s) => [mid(s), s.tpot.n ? s.tpot.mean : null])},
             {name: 'output tokens/s', type: 'bar', yAxisIndex: 1, data: S.map((s) => [mid(s), s.output_token_throughput])}]});
} else document.getElementById('slices').style.display = 'none';
if (D.adaptive && D.adaptive.windows.length) {
  const W = D.adaptive.windows;
  chart('adaptive', {animation: false, toolbox: tools, title: {text: 'Adaptive controller: ' + D.adaptive.summary, left: 'center', textStyle: {fontSize: 13}},
    tooltip: {trigger: 'item', formatter: (p) => p.data[2]}, grid: {left: 60, right: 20, top: 40, bottom: 30},
    xAxis: {type: 'value', name: 's'}, yAxis: {type: 'value', name: 'concurrency'},
    series: [{type: 'line', step: 'start', data: W.map((w) => [w.end_s, w.concurrency, w.action])},
             {type: 'scatter', symbolSize: 10, data: W.map((w) => ({value: [w.end_s, w.concurrency, (w.pass ? 'pass: ' : 'fail: ') + w.action],
               itemStyle: {color: w.pass ? '#2e7d32' : '#c62828'}}))}]});
} else document.getElementById('adaptive').style.display = 'none';
if (D.turns && D.turns.length) {  // multi-turn sessions: what each turn costs as the conversation grows
  const T = D.turns;
  chart('turns', {animation: false, toolbox: tools, title: {text: 'Per turn (multi-turn sessions, means)', left: 'center', textStyle: {fontSize: 13}},
    tooltip: {trigger: 'axis'}, legend: {top: 22}, grid: {left: 60, right: 60, top: 50, bottom: 30},
    xAxis: {type: 'category', name: 'turn', data: T.map((t) => t.turn)},
    yAxis: [{type: 'value', name: 'ms'}, {type: 'value', name: 'tokens'}],
    series: [{name: 'TTFT', type: 'line', data: T.map((t) => t.ttft_ms)},
             {name: 'input tokens', type: 'bar', yAxisIndex: 1, data: T.map((t) => t.input_tokens)},
             {name: 'cached tokens', type: 'bar', yAxisIndex: 1, data: T.map((t) => t.cached_tokens)}]});
} else document.getElementById('turns').style.display = 'none';
window.TOKBENCH.render_ms = performance.now() - t0;
window.TOKBENCH.rendered = true;
)JS";

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
    if (in_.info.adaptive_json.empty()) w.key("adaptive").null(); else w.field_raw("adaptive", in_.info.adaptive_json);
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
    out << "</script><script>" << kScript << "</script></body></html>\n";
    out.flush();
    if (!out) throw std::runtime_error(fmt::format("cannot write '{}': {}", path.string(), std::strerror(errno)));
  }
  std::filesystem::rename(tmp, path);
}

}  // namespace tokbench::report
