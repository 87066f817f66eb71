#include "report/tables.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/format.hpp"
#include "common/json_writer.hpp"
#include "metrics/waterfall.hpp"
#include "report/telemetry_view.hpp"

namespace tokbench::report {

using metrics::Unit;

namespace {

using Table = std::vector<std::vector<std::string>>;

// Display width of a UTF-8 string (every code point counts 1; our cells are ASCII or box art).
size_t width(const std::string& s) {
  return static_cast<size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

std::string rule(const std::vector<size_t>& w, const char* left, const char* fill, const char* mid,
                 const char* right) {
  std::string out = left;
  for (size_t i = 0; i < w.size(); ++i) {
    for (size_t k = 0; k < w[i] + 2; ++k) out += fill;
    out += i + 1 < w.size() ? mid : right;
  }
  return out + "\n";
}

// tabulate's "fancy_grid": double rules at the top, under the header and at the bottom.
// `row_rules` = false: no rule between body rows (a short summary reads better dense).
std::string grid(const Table& t, bool row_rules = true) {
  std::vector<size_t> w(t.front().size(), 0);
  for (const auto& row : t)
    for (size_t i = 0; i < row.size(); ++i) w[i] = std::max(w[i], width(row[i]));
  auto line = [&](const std::vector<std::string>& row) {
    std::string out = "│";
    for (size_t i = 0; i < row.size(); ++i)
      out += " " + row[i] + std::string(w[i] - width(row[i]), ' ') + " │";
    return out + "\n";
  };
  std::string out = rule(w, "╒", "═", "╤", "╕") + line(t[0]) + rule(w, "╞", "═", "╪", "╡");
  for (size_t r = 1; r < t.size(); ++r) {
    out += line(t[r]);
    if (r + 1 == t.size())
      out += rule(w, "╘", "═", "╧", "╛");
    else if (row_rules)
      out += rule(w, "├", "─", "┼", "┤");
  }
  return out;
}

// Rows counted in tokens are labelled when the "tokens" were SSE chunks (no usage, no
// --tokenizer): never printed as if they were per token.
std::string row_label(const metrics::MetricSet& m, const metrics::Row& r) {
  if (m.output_tokens_from_chunks <= 0) return r.name;
  if (r.name != "TPOT" && r.name != "ITL" && r.name != "OutputTokens" &&
      r.name != "OutputTokenThroughput")
    return r.name;
  const auto* ok = m.common_metric("success_requests");
  const bool all = ok && static_cast<double>(m.output_tokens_from_chunks) >= ok->value;
  return r.name + (all ? " (per chunk)" : " (partly per chunk)");
}

Table performance_table(const metrics::MetricSet& m, const std::string& stage) {
  Table t{{"Performance Parameters", "Stage", "Average", "Min", "Max", "Median", "P75", "P90",
           "P99", "N"}};
  for (const auto& r : m.rows) {
    if (!r.stats) {
      t.push_back(
          {row_label(m, r), stage, "n/a (" + r.na_reason + ")", "-", "-", "-", "-", "-", "-", "-"});
      continue;
    }
    const auto& s = *r.stats;
    t.push_back({row_label(m, r), stage, format_value(s.mean, r.unit), format_value(s.min, r.unit),
                 format_value(s.max, r.unit), format_value(s.median, r.unit),
                 format_value(s.p75, r.unit), format_value(s.p90, r.unit),
                 format_value(s.p99, r.unit), std::to_string(s.n)});
  }
  return t;
}

// A row's name with its unit, for the console: "TTFT (ms)", "TPOT (ms, per chunk)".
std::string console_label(const metrics::MetricSet& m, const metrics::Row& r) {
  const std::string label = row_label(m, r);
  const auto suffix = metrics::unit_suffix(r.unit);
  if (suffix.empty()) return label;
  const size_t paren = label.find(" (");
  if (paren == std::string::npos) return fmt::format("{} ({})", label, suffix);
  return fmt::format("{} ({}, {}", label.substr(0, paren), suffix, label.substr(paren + 2));
}

// "n/a (non-streaming): TTFT, TPOT, ITL": the rows that do not apply, grouped by reason, one
// line each (under a table, where a long reason widens nothing).
std::string not_applicable(const std::vector<const metrics::Row*>& rows) {
  std::vector<std::pair<std::string, std::string>> na;  // reason -> the rows it applies to
  for (const metrics::Row* r : rows) {
    if (r->stats) continue;
    auto it =
        std::find_if(na.begin(), na.end(), [&](const auto& x) { return x.first == r->na_reason; });
    if (it == na.end())
      na.emplace_back(r->na_reason, r->name);
    else
      it->second += ", " + r->name;
  }
  std::string out;
  for (const auto& [reason, names] : na) out += fmt::format("n/a ({}): {}\n", reason, names);
  return out;
}

// The console's Performance Parameters: the stage in the title instead of a column, units in the
// names instead of every cell, short numbers: it fits 120 columns (the CSV keeps AISBench's form).
Table console_performance_table(const metrics::MetricSet& m, const std::string& stage) {
  Table t{{stage == "total" ? "Performance Parameters" : "Performance Parameters (" + stage + ")",
           "Average", "Min", "Max", "Median", "P75", "P90", "P99", "N"}};
  for (const auto& r : m.rows) {
    if (!r.stats) {  // the reason goes under the table (console_tables): a long one would widen the
                     // column
      t.push_back({console_label(m, r), "n/a", "-", "-", "-", "-", "-", "-", "-"});
      continue;
    }
    const auto& s = *r.stats;
    t.push_back({console_label(m, r), format_short(s.mean), format_short(s.min),
                 format_short(s.max), format_short(s.median), format_short(s.p75),
                 format_short(s.p90), format_short(s.p99), std::to_string(s.n)});
  }
  return t;
}

std::string common_value(const metrics::Common& c) {
  if (!c.known) return "n/a";
  switch (c.unit) {
    case Unit::Requests:
    case Unit::Tokens:
      return fmt::format("{}", static_cast<int64_t>(c.value));
    case Unit::None:
      return c.key == "max_concurrency" || c.key == "peak_concurrency"
                 ? fmt::format("{}", static_cast<int64_t>(c.value))
                 : format_round4(c.value);
    default:
      return format_value(c.value, c.unit);
  }
}

}  // namespace

std::string format_value(double v, Unit u) {
  const auto suffix = metrics::unit_suffix(u);
  return suffix.empty() ? format_round4(v) : format_round4(v) + " " + std::string(suffix);
}

std::string console_tables(const metrics::MetricSet& m, const std::string& stage) {
  std::string out = grid(console_performance_table(m, stage));
  Table c{{stage == "total" ? "Common Metric" : "Common Metric (" + stage + ")", "Value"}};
  for (const auto& x : m.common) c.push_back({x.name, common_value(x)});
  out += grid(c);
  std::vector<const metrics::Row*> rows;
  for (const auto& r : m.rows) rows.push_back(&r);
  out += not_applicable(rows);
  for (const auto& r : m.rows)
    if (!r.note.empty()) out += fmt::format("note: {}: {}\n", r.name, r.note);
  for (const auto& n : m.notes) out += fmt::format("note: {}\n", n);
  for (const auto& n : m.detail_notes) out += fmt::format("note: {}\n", n);
  return out;
}

std::string prefix_cache_line(const metrics::MetricSet& m) {
  if (!m.prefix_cache) return "";
  const metrics::PrefixCache& c = *m.prefix_cache;
  return fmt::format(
      "prefix cache: {:.0f} of {:.0f} prompt tokens ({:.1f}%) came from the server's cache, {:.1f} "
      "per request ({} of {} requests hit; the cached tokens its answers reported)",
      c.cached_tokens, c.prompt_tokens, 100 * c.share(),
      c.cached_tokens / static_cast<double>(c.requests), c.hit_requests, c.requests);
}

std::string summary_table(const metrics::MetricSet& m) {
  Table t{{"Latency", "Mean", "P50", "P90", "P99", "Max", "N"}};
  std::vector<const metrics::Row*>
      shown;  // rows that do not apply are named under the table, not drawn as dashes
  for (const char* name : {"TTFT", "TPOT", "ITL", "E2EL"}) {
    const metrics::Row* r = m.row(name);
    if (!r) continue;
    shown.push_back(r);
    if (!r->stats) continue;
    const auto& s = *r->stats;
    t.push_back({console_label(m, *r), format_short(s.mean), format_short(s.median),
                 format_short(s.p90), format_short(s.p99), format_short(s.max),
                 std::to_string(s.n)});
  }
  return (t.size() > 1 ? grid(t, false) : "") + not_applicable(shown);
}

std::string definitions_table(const std::vector<metrics::DefinitionColumn>& columns) {
  Table t{{"Definitions side by side"}};
  for (const auto& c : columns)
    t[0].push_back(std::string(metrics::definitions_name(c.definitions)));
  using Get = std::optional<metrics::Summary> metrics::DefinitionColumn::*;
  const std::pair<const char*, Get> rows[] = {{"TTFT", &metrics::DefinitionColumn::ttft},
                                              {"TPOT", &metrics::DefinitionColumn::tpot},
                                              {"ITL", &metrics::DefinitionColumn::itl},
                                              {"E2EL", &metrics::DefinitionColumn::e2el}};
  for (const auto& [name, member] : rows) {
    for (const char* stat : {"mean", "P99"}) {
      if (std::string(name) == "E2EL" && std::string(stat) == "P99") continue;
      std::vector<std::string> line{std::string(name) + " " + stat + " (ms)"};
      for (const auto& c : columns) {
        const auto& v = c.*member;
        line.push_back(!v ? "n/a" : format_round4(std::string(stat) == "mean" ? v->mean : v->p99));
      }
      t.push_back(std::move(line));
    }
  }
  std::vector<std::string> tput{"Output Token Throughput (token/s)"};
  for (const auto& c : columns) tput.push_back(format_round4(c.output_token_throughput));
  t.push_back(std::move(tput));
  return grid(t);
}

namespace {
// A server quantile is only known to a bucket: shown as its range, never as an exact number
// (interpolating inside a 100-300 ms bucket gave a P50 above the client's maximum).
std::string ms_or_na(const std::optional<record::HistogramDelta>& h, double q) {
  if (!h || h->count <= 0) return "n/a";
  if (q < 0) return format_round4(h->mean() * 1000);
  const auto b = h->quantile_bucket(q);
  if (!b) return "n/a";
  if (std::isinf(b->second)) return fmt::format("> {}", format_round4(b->first * 1000));
  return fmt::format("{}-{}", format_round4(b->first * 1000), format_round4(b->second * 1000));
}
}  // namespace

std::string server_tables(const record::ServerSummary& s,
                          const std::vector<record::CrossCheck>& checks) {
  Table t{{"Server-side", "Mean", "P50 (bucket)", "P90 (bucket)", "P99 (bucket)", "N"}};
  const std::pair<const char*, const std::optional<record::HistogramDelta>*> hs[] = {
      {"TTFT (ms)", &s.ttft},          {"ITL per step (ms)", &s.itl}, {"E2E (ms)", &s.e2e},
      {"Queue (ms)", &s.queue},        {"Prefill (ms)", &s.prefill},  {"Decode (ms)", &s.decode},
      {"Inference (ms)", &s.inference}};
  for (const auto& [name, h] : hs) {
    if (!*h && (h == &s.prefill || h == &s.decode || h == &s.inference))
      continue;  // newer vLLM only
    t.push_back({name, ms_or_na(*h, -1), ms_or_na(*h, 0.5), ms_or_na(*h, 0.9), ms_or_na(*h, 0.99),
                 *h ? fmt::format("{}", static_cast<int64_t>((*h)->count)) : "0"});
  }
  std::string out = grid(t);
  double peak_running = 0, peak_waiting = 0;
  for (const auto& [ts, r, w] : s.running_waiting) {
    peak_running = std::max(peak_running, r);
    peak_waiting = std::max(peak_waiting, w);
  }
  const double d = s.duration_s > 0 ? s.duration_s : 1;
  Table c{{"Server Metric", "Value"}};
  auto rate = [&](const std::optional<double>& n) {
    return n ? format_round4(*n / d) + " token/s" : std::string("not exposed");
  };
  c.push_back({"Source", s.url});  // here, not in a title: a long URL would widen every column
  c.push_back({"Dialect", s.dialect});
  c.push_back({"Generation Token Throughput", rate(s.generation_tokens)});
  c.push_back({"Prompt Token Throughput", rate(s.prompt_tokens)});
  c.push_back({"Peak Running / Waiting", fmt::format("{} / {}", peak_running, peak_waiting)});
  if (s.spec_acceptance_rate)
    c.push_back({"Spec Decode Acceptance Rate", format_round4(*s.spec_acceptance_rate)});
  if (s.spec_mean_acceptance_length)
    c.push_back(
        {"Spec Decode Mean Acceptance Length", format_round4(*s.spec_mean_acceptance_length)});
  if (!s.spec_acceptance_per_position.empty()) {
    std::string per;
    for (double v : s.spec_acceptance_per_position)
      per += (per.empty() ? "" : ", ") + format_round4(v);
    c.push_back({"Spec Decode Acceptance per Position", per});
  }
  if (!s.kv_usage.empty()) {
    double sum = 0, peak = 0;
    for (const auto& [t, v] : s.kv_usage) sum += v, peak = std::max(peak, v);
    c.push_back(
        {"KV Cache Usage (mean / max of scrapes)",
         fmt::format("{}% / {}%", format_round4(100 * sum / static_cast<double>(s.kv_usage.size())),
                     format_round4(100 * peak))});
  }
  if (s.prefix_cache_hit_rate)
    c.push_back({"Prefix Cache Hit Rate (tokens)", format_round4(*s.prefix_cache_hit_rate)});
  if (s.preemptions) c.push_back({"Preemptions", format_round4(*s.preemptions)});
  if (s.aborted) c.push_back({"Aborted requests", format_round4(*s.aborted)});
  for (const auto& [name, v] : s.kv_transfer)
    c.push_back({"KV transfer: " + name, format_round4(v)});
  out += grid(c);
  if (!checks.empty()) {
    Table x{{"Cross-check", "Client", "Server", "Agree"}};
    for (const auto& k : checks)
      x.push_back({k.what, format_round4(k.client), format_round4(k.server),
                   k.agree
                       ? "yes"
                       : fmt::format("NO (> {}% and > {})", k.tolerance * 100, k.abs_tolerance)});
    out += grid(x);
  }
  return out;
}

std::string server_json(const record::ServerSummary& s,
                        const std::vector<record::CrossCheck>& checks) {
  JsonWriter w;
  w.begin_object()
      .field("url", s.url)
      .field("duration_s", s.duration_s)
      .field("scrapes", s.scrapes);
  auto hist = [&](const char* key, const std::optional<record::HistogramDelta>& h) {
    w.key(key);
    if (!h || h->count <= 0) {
      w.null();
      return;
    }
    w.begin_object().field("mean", h->mean() * 1000);
    // Quantiles are bucket ranges [gt, le] (null le: past the last finite bound); "estimate" is
    // histogram_quantile's interpolation inside it, clamped to the range, and only that.
    for (auto [k, q] : {std::pair{"p50", 0.5}, {"p90", 0.9}, {"p99", 0.99}}) {
      const auto b = h->quantile_bucket(q);
      w.key(k).begin_object().field("gt", b ? b->first * 1000 : NAN);
      w.key("le").value(b && !std::isinf(b->second) ? std::optional<double>(b->second * 1000)
                                                    : std::nullopt);
      w.field("estimate", h->quantile(q).value_or(NAN) * 1000).end_object();
    }
    w.field("n", static_cast<int64_t>(h->count)).end_object();
  };
  hist("ttft_ms", s.ttft);
  hist("itl_per_step_ms", s.itl);
  hist("e2e_ms", s.e2e);
  hist("queue_ms", s.queue);
  hist("prefill_ms", s.prefill);
  hist("decode_ms", s.decode);
  hist("inference_ms", s.inference);
  w.field(
      "quantile_method",
      "bucket ranges of the histogram delta between the first and last scrape: a quantile lies in "
      "(gt, le]; 'estimate' is histogram_quantile's linear interpolation inside it, not a "
      "measurement");
  auto per_s = [&](const std::optional<double>& n) {
    return n && s.duration_s > 0 ? std::optional<double>(*n / s.duration_s) : std::nullopt;
  };
  w.field("dialect", s.dialect);
  w.key("generation_tokens").value(s.generation_tokens);
  w.key("prompt_tokens").value(s.prompt_tokens);
  w.key("generation_token_throughput").value(per_s(s.generation_tokens));
  w.key("prompt_token_throughput").value(per_s(s.prompt_tokens));
  w.key("spec_acceptance_rate").value(s.spec_acceptance_rate);
  w.key("spec_mean_acceptance_length").value(s.spec_mean_acceptance_length);
  w.key("spec_acceptance_per_position").begin_array();
  for (double v : s.spec_acceptance_per_position) w.value(v);
  w.end_array();
  w.key("prefix_cache_hit_rate").value(s.prefix_cache_hit_rate);
  w.key("preemptions").value(s.preemptions);
  w.key("aborted").value(s.aborted);
  w.key("kv_transfer").begin_object();
  for (const auto& [name, v] : s.kv_transfer) w.field(name, v);
  w.end_object();
  w.key("kv_cache_usage");
  if (s.kv_usage.empty()) {
    w.null();
  } else {  // a gauge, sampled once a scrape: its mean and max over the scrapes, and every sample
    double sum = 0, peak = 0;
    for (const auto& [t, v] : s.kv_usage) sum += v, peak = std::max(peak, v);
    w.begin_object().field("mean", sum / static_cast<double>(s.kv_usage.size())).field("max", peak);
    w.field("n", static_cast<int64_t>(s.kv_usage.size())).key("series").begin_array();
    for (const auto& [t, v] : s.kv_usage)
      w.begin_object().field("t_ms", static_cast<double>(t) / 1e6).field("usage", v).end_object();
    w.end_array().end_object();
  }
  w.key("running_waiting").begin_array();
  for (const auto& [t, r, q] : s.running_waiting)
    w.begin_object()
        .field("t_ms", static_cast<double>(t) / 1e6)
        .field("running", r)
        .field("waiting", q)
        .end_object();
  w.end_array();
  w.key("cross_check").begin_array();
  for (const auto& k : checks) {
    w.begin_object().field("what", k.what).field("client", k.client).field("server", k.server);
    w.field("tolerance", k.tolerance)
        .field("abs_tolerance", k.abs_tolerance)
        .field("agree", k.agree)
        .field("note", k.note)
        .end_object();
  }
  w.end_array().end_object();
  return w.take();
}

std::string performance_csv(const metrics::MetricSet& m, const std::string& stage) {
  std::string out;
  for (const auto& row : performance_table(m, stage)) {
    for (size_t i = 0; i < row.size(); ++i) {
      if (i) out += ',';
      out += row[i];  // no cell contains a comma or quote
    }
    out += '\n';
  }
  return out;
}

std::string common_json(const metrics::MetricSet& m, const std::string& stage) {
  JsonWriter w;
  w.begin_object();
  for (const auto& c : m.common) {
    w.key(c.name).begin_object().key(stage);
    if (!c.known) {
      w.null();
    } else if (c.unit == Unit::Requests || c.unit == Unit::Tokens || c.key == "max_concurrency" ||
               c.key == "peak_concurrency") {
      w.value(static_cast<int64_t>(c.value));
    } else if (c.unit == Unit::None) {
      w.value(round_to(c.value, 4));
    } else {
      w.value(format_value(c.value, c.unit));
    }
    w.end_object();
  }
  w.end_object();
  return w.take();
}

std::string telemetry_table(const TelemetryView& v) {
  if (v.devices.empty()) return "";
  Table t{{"Device (phase)", "Dialect", "Power W mean / P99", "Util % mean", "Memory MiB mean",
           "Temp °C max", "Energy J", "N"}};
  auto stat = [](const std::optional<metrics::Summary>& s, bool p99 = false, bool max = false) {
    if (!s) return std::string("n/a");
    return max   ? format_round4(s->max)
           : p99 ? format_round4(s->mean) + " / " + format_round4(s->p99)
                 : format_round4(s->mean);
  };
  for (const auto& d : v.devices) {
    const std::string energy = d.energy.known
                                   ? format_round4(d.energy.joules) + " (" + d.energy.method + ")"
                                   : "not known: " + d.energy.why;
    t.push_back({d.device, d.dialect, stat(d.series[0], true), stat(d.series[1]), stat(d.series[2]),
                 stat(d.series[4], false, true), energy,
                 d.series[0] ? std::to_string(d.series[0]->n) : std::string("0")});
  }
  return grid(t);
}

std::string waterfall_table(const metrics::Waterfall& w) {
  if (w.buckets.empty()) return "";
  Table t{{"E2EL (ms)", "Sched lag", "To server", "Queue", "Prefill", "Decode", "Server other",
           "Delivery", "E2EL", "N"}};
  for (const auto& b : w.buckets) {
    std::vector<std::string> row{b.name};
    for (double ms : b.mean_ms) row.push_back(format_short(ms));
    row.push_back(format_short(b.e2el_mean_ms));
    row.push_back(std::to_string(b.n));
    t.push_back(std::move(row));
  }
  return grid(t, false);
}

}  // namespace tokbench::report
