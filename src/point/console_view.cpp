// point/console_view: what a finished point prints. By default one screen: the latency table,
// a line each for the throughput, the stable stage, the server's view and the peers' definitions,
// then the verdict with its reasons, warnings (the request body's audit included) and notes
// together at the end, where a reader looks. --verbose adds every full table; the files always
// hold everything.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/abbreviate.hpp"
#include "common/format.hpp"
#include "point/outputs.hpp"
#include "report/quality_view.hpp"
#include "report/tables.hpp"

namespace tokbench::runner {

namespace {

std::optional<double> known(const metrics::MetricSet& m, std::string_view key) {
  const metrics::Common* c = m.common_metric(key);
  return c && c->known ? std::optional<double>(c->value) : std::nullopt;
}

std::string tokens_per_s(const metrics::MetricSet& m, std::string_view key) {
  const auto v = known(m, key);
  return v ? report::format_short(*v) + " token/s" : std::string("n/a");
}

// "20 of 20 requests succeeded in 5.93 s: 3.371 req/s, output 723.7 token/s, total 803.7 token/s;
// in flight 3.70 on average, 4 at most"
bool generates(const metrics::MetricSet& m) {  // embeddings generate nothing
  const metrics::Row* r = m.row("OutputTokens");
  return r && r->stats;
}

std::string throughput_line(const metrics::MetricSet& m) {
  const double total = known(m, "total_requests").value_or(0),
               ok = known(m, "success_requests").value_or(0);
  // Benchmark Duration spans the successful requests only (AISBench's rule): when most failed,
  // the rates over it overstate what the run made, so the span is named beside them.
  const double cancelled = known(m, "cancelled_requests").value_or(0);
  std::string out = fmt::format(
      "requests: {:.0f} of {:.0f} succeeded{} in {} s{}: {} req/s", ok, total,
      cancelled > 0 ? fmt::format(" ({:.0f} more cancelled by the client)", cancelled) : "",
      report::format_short(known(m, "benchmark_duration").value_or(0) / 1000),
      ok > 0 && ok < total ? " (the successful ones' span; failed ones excluded)" : "",
      report::format_short(known(m, "request_throughput").value_or(0)));
  if (generates(m)) {
    out += fmt::format(", output {}{}", tokens_per_s(m, "output_token_throughput"),
                       m.output_tokens_from_chunks > 0 ? " (tokens counted as text chunks)" : "");
  }
  out += fmt::format(", total {}", tokens_per_s(m, "total_token_throughput"));
  if (const auto c = known(m, "concurrency"))
    out += fmt::format("; in flight {} on average, {:.0f} at most", report::format_short(*c),
                       known(m, "peak_concurrency").value_or(0));
  return out;
}

std::string stable_line(const Written& w) {
  if (!w.stable) return w.stable_text.empty() ? "" : "stable stage: " + w.stable_text;
  const metrics::MetricSet& s = *w.stable;
  std::string out =
      fmt::format("stable stage: {:.0f} requests over {} s at {:.0f} in flight: {} req/s",
                  known(s, "total_requests").value_or(0),
                  report::format_short(known(s, "benchmark_duration").value_or(0) / 1000),
                  known(s, "max_concurrency").value_or(0),
                  report::format_short(known(s, "request_throughput").value_or(0)));
  if (generates(s)) out += ", output " + tokens_per_s(s, "output_token_throughput");
  for (const char* name : {"TTFT", "TPOT"}) {
    const auto p99 = metrics::row_statistic(s, name, "p99");
    if (p99) out += fmt::format(", {} P99 {} ms", name, report::format_short(*p99));
  }
  return out;
}

// The KV cache's peak over the scrapes, as a fact only when a scrape fell while requests ran: a
// short run between two idle scrapes read "up to 0.000%" of a cache that was in use.
std::string kv_cache_clause(const record::ServerSummary& s) {
  if (s.kv_usage.empty()) return "";
  double peak = 0;
  for (const auto& [t, v] : s.kv_usage) peak = std::max(peak, v);
  const bool saw_load = std::any_of(s.running_waiting.begin(), s.running_waiting.end(),
                                    [](const auto& x) { return std::get<1>(x) > 0; });
  if (saw_load || peak > 0)
    return fmt::format("; KV cache up to {}% (over {} scrape(s))", report::format_short(100 * peak),
                       s.kv_usage.size());
  return fmt::format(
      "; KV cache not seen under load (none of its {} scrape(s) fell while requests ran: lower "
      "--scrape-interval-ms or run longer)",
      s.kv_usage.size());
}

// Without streaming the client has no first token; the server's own TTFT histogram is the only
// TTFT there is, so it belongs on the one screen: its mean is exact (sum / count), its P99 only
// known to the bucket.
std::string server_ttft_clause(const Written& w) {
  const metrics::Row* client = w.metrics.row("TTFT");
  if ((client && client->stats) || !w.server->ttft || w.server->ttft->count <= 0) return "";
  const record::HistogramDelta& h = *w.server->ttft;
  std::string out =
      fmt::format("; its TTFT (the only one without streaming) mean {} ms over {:.0f}",
                  report::format_short(1000 * h.mean()), h.count);
  if (const auto b = h.quantile_bucket(0.99))
    out += std::isinf(b->second)
               ? fmt::format(", P99 above {} ms (its last bucket)",
                             report::format_short(1000 * b->first))
               : fmt::format(", P99 in its {:g}–{:g} ms bucket", 1000 * b->first, 1000 * b->second);
  return out;
}

std::string server_line(const Written& w) {
  if (!w.server) return "";
  std::string agreed, disagreed;
  for (const auto& c : w.checks) {
    if (c.agree) {
      agreed += (agreed.empty() ? "" : ", ") + c.what;
    } else {
      disagreed += fmt::format("{}{} client {} vs server {}", disagreed.empty() ? "" : "; ", c.what,
                               report::format_short(c.client), report::format_short(c.server));
    }
  }
  std::string out = fmt::format("server ({} /metrics): ", w.server->dialect);
  if (w.checks.empty()) return out + "nothing to cross-check (see server.json)";
  if (!disagreed.empty())
    out += "DISAGREES on " + disagreed + (agreed.empty() ? "" : "; agrees on " + agreed);
  else
    out += "agrees with the client on " + agreed;
  // Speculative decoding explains a TPOT: its acceptance belongs on the one screen.
  if (w.server->spec_mean_acceptance_length)
    out += fmt::format("; speculative decoding: mean acceptance length {}",
                       report::format_short(*w.server->spec_mean_acceptance_length));
  if (w.server->spec_acceptance_rate)
    out +=
        fmt::format(", acceptance rate {}", report::format_short(*w.server->spec_acceptance_rate));
  if (!w.server->spec_acceptance_per_position.empty()) {
    std::string per;
    for (double v : w.server->spec_acceptance_per_position)
      per += (per.empty() ? "" : ", ") + report::format_short(v);
    out += " (per position " + per + ")";
  }
  out += server_ttft_clause(w);
  out += kv_cache_clause(*w.server);
  if (w.server->preemptions && *w.server->preemptions > 0)
    out += fmt::format("; {} preemption(s)", *w.server->preemptions);
  return out;
}

// Which engine answered and how that is known (result.json's engine), where the server line does
// not already say it: not for the built-in simulator, nor when the /metrics names alone told it.
std::string engine_line(const Written& w) {
  const runfolder::RunInfo& i = w.info;
  if (i.engine.empty() || i.engine == "tokbench-mock") return "";
  if (w.server && i.engine_how == "its /metrics names are " + i.engine + "'s") return "";
  // Its "how" grows a clause per piece of evidence: kept within 120 columns.
  return "engine: " + wrap_lines(fmt::format("{} ({})", i.engine, i.engine_how), 8, 120, 3);
}

// The other tools' definitions against the run's own, on the means: silent agreement in a word,
// a difference named with its size (the seed incident is a definition gap as much as a body).
std::string definitions_line(const Written& w) {
  if (w.side_by_side.empty()) return "";
  const metrics::DefinitionColumn* own = nullptr;
  for (const auto& c : w.side_by_side)
    if (c.definitions == w.metrics.definitions) own = &c;
  if (!own) return "";
  using Get = std::optional<metrics::Summary> metrics::DefinitionColumn::*;
  const std::pair<const char*, Get> rows[] = {{"TTFT", &metrics::DefinitionColumn::ttft},
                                              {"TPOT", &metrics::DefinitionColumn::tpot},
                                              {"ITL", &metrics::DefinitionColumn::itl},
                                              {"E2EL", &metrics::DefinitionColumn::e2el}};
  constexpr double kApart = 0.02;
  std::string peers, apart;
  for (const auto& c : w.side_by_side) {
    if (&c == own) continue;
    peers += (peers.empty() ? "" : ", ") + std::string(metrics::definitions_name(c.definitions));
    for (const auto& [name, member] : rows) {
      const auto& a = own->*member;
      const auto& b = c.*member;
      if (!a || !b || a->mean == 0) continue;
      const double rel = b->mean / a->mean - 1;
      if (std::fabs(rel) > kApart)
        apart += fmt::format("{}{} {} mean {} ms ({:+.1f}%)", apart.empty() ? "" : "; ",
                             metrics::definitions_name(c.definitions), name,
                             report::format_short(b->mean), rel * 100);
    }
  }
  const std::string_view mine = metrics::definitions_name(own->definitions);
  if (apart.empty())
    return fmt::format(
        "definitions: {} agree with {} within 2% on the TTFT, TPOT, ITL and E2EL means", peers,
        mine);
  return fmt::format("definitions: against {}'s: {}", mine, apart);
}

void print_verdict(const Written& w, std::FILE* console) {
  // Reasons carry what servers and exporters said: printed with their control bytes escaped.
  fmt::print(console, "verdict: {}\n", metrics::verdict_status(w.verdict));
  for (const auto& r : w.verdict.reasons) fmt::print(console, "  - {}\n", printable(r));
  for (const auto& r : w.verdict.warnings) fmt::print(console, "  warning: {}\n", printable(r));
  // The request body's warnings too: the seed's hidden min_tokens belongs beside the figures it
  // doubled.
  for (const auto& [level, text] : w.info.audit)
    if (level == "warning") fmt::print(console, "  warning: request body: {}\n", printable(text));
  for (const auto& r : w.verdict.notes) fmt::print(console, "  note: {}\n", printable(r));
  for (const auto& r : w.verdict.slo_missed) fmt::print(console, "  SLO missed: {}\n", r);
}

void print_summary(const Written& w, std::FILE* console) {
  const metrics::MetricSet& m = w.metrics;
  fmt::print(console, "\n{}", report::summary_table(m));
  for (const char* name : {"TTFT", "TPOT", "ITL", "E2EL"}) {
    const metrics::Row* r = m.row(name);
    if (r && !r->note.empty()) fmt::print(console, "note: {}: {}\n", name, r->note);
  }
  for (const auto& n : m.notes) fmt::print(console, "note: {}\n", n);
  fmt::print(console, "{}\n", throughput_line(m));
  // Its own line: beside the requests line's figures it would pass 120 columns.
  if (const auto docs = known(m, "document_throughput"))
    fmt::print(console, "documents: {} doc/s ranked\n", report::format_short(*docs));
  if (const std::string cache = report::prefix_cache_line(m); !cache.empty())
    fmt::print(console, "{}\n", cache);
  // With no successful request a stable stage, the server's agreement and the peers' definitions
  // mean nothing: the verdict's reason (statuses, what the server said) is what follows.
  if (known(m, "success_requests").value_or(0) <= 0) return;
  for (const std::string& line :
       {stable_line(w), engine_line(w), server_line(w), definitions_line(w)})
    if (!line.empty()) fmt::print(console, "{}\n", line);
}

}  // namespace

void print_outputs(const Written& w, std::FILE* console, bool verbose) {
  if (verbose) {
    fmt::print(console, "\n{}", report::console_tables(w.metrics));
    if (const std::string cache = report::prefix_cache_line(w.metrics); !cache.empty())
      fmt::print(console, "{}\n", cache);
    if (w.stable) fmt::print(console, "{}", report::console_tables(*w.stable, "stable"));
    if (!w.stable_text.empty() && !w.stable) fmt::print(console, "{}\n", w.stable_text);
    if (!w.side_by_side.empty())
      fmt::print(console, "{}", report::definitions_table(w.side_by_side));
    if (w.server) fmt::print(console, "{}", report::server_tables(*w.server, w.checks));
    fmt::print(console, "{}", w.telemetry_table);
  } else {
    print_summary(w, console);
  }
  if (report::outputs_read(w.metrics.quality))  // what came back, in either view
    for (const auto& line : report::quality_lines(w.metrics.quality))
      fmt::print(console, "{}\n", line);
  for (const auto& line : w.telemetry_lines) fmt::print(console, "{}\n", line);
  fmt::print(console, "{}", w.waterfall);
  for (const auto& line : w.class_lines) fmt::print(console, "{}\n", printable(line));
  print_verdict(w, console);
  std::fflush(console);
}

}  // namespace tokbench::runner
