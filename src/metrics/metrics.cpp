#include "metrics/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <numeric>

#include "common/format.hpp"

namespace tokbench::metrics {

using record::ChunkKind;
using record::kNone;
using record::RequestRecord;

namespace {

constexpr double kNsPerMs = 1e6;
constexpr double kNsPerS = 1e9;

// Observed peak of requests in flight: +1 at send, -1 at done, ends before starts on ties.
int64_t peak_in_flight(const std::vector<const RequestRecord*>& rs) {
  std::vector<std::pair<int64_t, int>> ev;
  for (const auto* r : rs) {
    if (r->sent_ns == kNone || r->done_ns == kNone) continue;
    ev.emplace_back(r->sent_ns, +1);
    ev.emplace_back(r->done_ns, -1);
  }
  std::sort(ev.begin(), ev.end());
  int64_t cur = 0, peak = 0;
  for (const auto& [t, d] : ev) peak = std::max(peak, cur += d);
  return peak;
}

Row make_row(std::string name, Unit unit, std::vector<double> values, std::string na_if_empty) {
  Row row{std::move(name), unit, std::nullopt, {}, {}};
  if (values.empty()) {
    row.na_reason = std::move(na_if_empty);
  } else {
    row.stats = summarize(std::move(values));
  }
  return row;
}

Row na_row(std::string name, Unit unit, std::string reason) {
  return Row{std::move(name), unit, std::nullopt, std::move(reason), {}};
}

struct Totals {
  int64_t total = 0, success = 0;
  double duration_ns = 0, sum_e2el_ns = 0;
  int64_t input_tokens = 0, output_tokens = 0;
};

void add_common(MetricSet& m, const Totals& t, const RunFacts& facts, bool round4) {
  const double dur_s = t.duration_ns / kNsPerS;
  auto per_s = [&](double x) { return dur_s > 0 ? x / dur_s : 0.0; };
  auto r = [&](double x) { return round4 ? round_to(x, 4) : x; };
  m.common = {
      {"Benchmark Duration", "benchmark_duration", r(dur_s * 1000), Unit::Ms},
      {"Total Requests", "total_requests", static_cast<double>(t.total), Unit::Requests},
      {"Failed Requests", "failed_requests", static_cast<double>(t.total - t.success), Unit::Requests},
      {"Success Requests", "success_requests", static_cast<double>(t.success), Unit::Requests},
      {"Concurrency", "concurrency", r(t.duration_ns > 0 ? t.sum_e2el_ns / t.duration_ns : 0.0),
       Unit::None},
      {"Max Concurrency", "max_concurrency", static_cast<double>(facts.max_concurrency), Unit::None},
      {"Request Throughput", "request_throughput", r(per_s(static_cast<double>(t.success))),
       Unit::ReqPerS},
      {"Total Input Tokens", "total_input_tokens", static_cast<double>(t.input_tokens), Unit::Tokens},
      {"Total Generated Tokens", "total_generated_tokens", static_cast<double>(t.output_tokens),
       Unit::Tokens},
      {"Input Token Throughput", "input_token_throughput", r(per_s(static_cast<double>(t.input_tokens))),
       Unit::TokensPerS},
      {"Output Token Throughput", "output_token_throughput",
       r(per_s(static_cast<double>(t.output_tokens))), Unit::TokensPerS},
      {"Total Token Throughput", "total_token_throughput",
       r(per_s(static_cast<double>(t.input_tokens + t.output_tokens))), Unit::TokensPerS},
  };
}

std::vector<const RequestRecord*> measured(const std::vector<RequestRecord>& records) {
  std::vector<const RequestRecord*> out;
  for (const auto& r : records)
    if (!r.warmup) out.push_back(&r);
  return out;
}

// ---- tokbench's own definitions ---------------------------------------------------------------

MetricSet compute_tokbench(const std::vector<const RequestRecord*>& rs, const RunFacts& facts) {
  MetricSet m;
  m.definitions = Definitions::Tokbench;
  std::vector<double> e2el, ttft, tpot, itl, in_tok, out_tok, out_tput, prefill_tput;
  std::vector<double> ttft_event, send_lag, icl, tokens_per_chunk;
  Totals t;
  t.total = static_cast<int64_t>(rs.size());
  int64_t first_sent = INT64_MAX, last_done = INT64_MIN;
  int64_t no_usage_prompt = 0, from_tokenizer = 0, mismatches = 0, prompt_off = 0;

  for (const auto* r : rs) {
    if (!r->ok()) continue;
    ++t.success;
    first_sent = std::min(first_sent, r->sent_ns);
    last_done = std::max(last_done, r->done_ns);
    const double e2e = static_cast<double>(r->done_ns - r->sent_ns);
    t.sum_e2el_ns += e2e;
    e2el.push_back(e2e / kNsPerMs);
    if (r->scheduled_ns != kNone) send_lag.push_back((r->sent_ns - r->scheduled_ns) / kNsPerMs);

    const int64_t out = output_tokens(*r);
    if (r->token_source() == "chunks") ++m.output_tokens_from_chunks;
    if (r->token_source() == "tokenizer") ++from_tokenizer;
    if (r->token_mismatch()) ++mismatches;
    if (r->expected_prompt_tokens != kNone && r->prompt_tokens != kNone && r->prompt_tokens != r->expected_prompt_tokens)
      ++prompt_off;
    out_tok.push_back(static_cast<double>(out));
    t.output_tokens += out;
    if (e2e > 0) out_tput.push_back(static_cast<double>(out) / (e2e / kNsPerS));
    if (const int64_t in = input_tokens(*r); in != kNone) {
      in_tok.push_back(static_cast<double>(in));
      t.input_tokens += in;
    } else {
      ++no_usage_prompt;
    }

    if (!r->stream) continue;
    if (r->first_event_ns != kNone) ttft_event.push_back((r->first_event_ns - r->sent_ns) / kNsPerMs);
    if (r->first_token_ns == kNone) continue;  // no generated text: TTFT undefined
    const double ttft_ns = static_cast<double>(r->first_token_ns - r->sent_ns);
    ttft.push_back(ttft_ns / kNsPerMs);
    if (input_tokens(*r) != kNone && ttft_ns > 0)
      prefill_tput.push_back(static_cast<double>(input_tokens(*r)) / (ttft_ns / kNsPerS));
    if (out > 1 && r->last_token_ns != kNone)
      tpot.push_back(static_cast<double>(r->last_token_ns - r->first_token_ns) / kNsPerMs /
                     static_cast<double>(out - 1));
    bool estimated = false;
    for (double g : per_token_gaps_ns(*r, &estimated)) itl.push_back(g / kNsPerMs);
    if (estimated) ++m.itl_estimated_requests;
    int64_t prev = kNone, text_chunks = 0;
    for (const auto& c : r->chunks) {
      if (!c.has_text()) continue;
      ++text_chunks;
      if (prev != kNone) icl.push_back((c.t_ns - prev) / kNsPerMs);
      prev = c.t_ns;
    }
    // Tokens per chunk after the first: under speculative decoding, the client's estimate of the
    // mean acceptance length (EvalScope's "decoded tokens per iteration").
    if (text_chunks > 1 && out > 1)
      tokens_per_chunk.push_back(static_cast<double>(out - 1) / static_cast<double>(text_chunks - 1));
  }
  if (t.success > 0) t.duration_ns = static_cast<double>(last_done - first_sent);

  const std::string no_stream = facts.stream ? "" : "non-streaming";
  auto stream_row = [&](std::string name, Unit u, std::vector<double> v, std::string empty_reason) {
    return facts.stream ? make_row(std::move(name), u, std::move(v), std::move(empty_reason))
                        : na_row(std::move(name), u, no_stream);
  };
  m.rows.push_back(make_row("E2EL", Unit::Ms, std::move(e2el), "no successful request"));
  m.rows.push_back(stream_row("TTFT", Unit::Ms, std::move(ttft), "no generated text"));
  m.rows.push_back(stream_row("TPOT", Unit::Ms, std::move(tpot), "no request with more than 1 token"));
  m.rows.push_back(stream_row("ITL", Unit::Ms, std::move(itl), "no request with more than 1 token"));
  m.rows.push_back(make_row("InputTokens", Unit::Tokens, std::move(in_tok), "server sent no usage"));
  m.rows.push_back(make_row("OutputTokens", Unit::Tokens, std::move(out_tok), "no successful request"));
  m.rows.push_back(
      make_row("OutputTokenThroughput", Unit::TokensPerS, std::move(out_tput), "no successful request"));
  m.rows.push_back(stream_row("PrefillTokenThroughput", Unit::TokensPerS, std::move(prefill_tput),
                              "no prompt token counts"));
  if (m.itl_estimated_requests > 0) {
    m.rows[3].note = fmt::format(
        "per-chunk token counts unknown for {} request(s): their chunk gaps were spread evenly "
        "over usage.completion_tokens (ask the server for stream_options.continuous_usage_stats)",
        m.itl_estimated_requests);
  }
  if (m.output_tokens_from_chunks > 0) {
    m.notes.push_back(fmt::format(
        "{} request(s) had no usage: their output tokens are counted as text chunks (pass --tokenizer to count them)",
        m.output_tokens_from_chunks));
  }
  if (from_tokenizer > 0)
    m.notes.push_back(fmt::format("{} request(s) had no usage: their tokens were counted with --tokenizer", from_tokenizer));
  if (mismatches > 0) {
    m.notes.push_back(fmt::format("{} request(s): usage.completion_tokens differs from the local tokenizer's count of "
                                  "the generated text (see token_mismatch in the details)", mismatches));
  }
  if (prompt_off > 0) {
    m.notes.push_back(fmt::format("{} request(s): usage.prompt_tokens differs from the input length the prompt was "
                                  "built to have", prompt_off));
  }
  if (no_usage_prompt > 0 && t.success > 0) {
    m.notes.push_back(fmt::format("{} request(s) had no usage.prompt_tokens: input tokens unknown for them",
                                  no_usage_prompt));
  }
  m.token_mismatches = mismatches;

  m.extra_rows.push_back(stream_row("TTFT_FirstEvent", Unit::Ms, std::move(ttft_event), "no events"));
  m.extra_rows.push_back(make_row("SendLag", Unit::Ms, std::move(send_lag), "no schedule"));
  m.extra_rows.push_back(stream_row("ICL", Unit::Ms, std::move(icl), "no request with 2 text chunks"));
  m.extra_rows.push_back(stream_row("TokensPerChunk", Unit::Tokens, std::move(tokens_per_chunk), "no request with 2 text chunks"));
  m.observed_max_concurrency = peak_in_flight(rs);
  add_common(m, t, facts, false);
  return m;
}

// ---- AISBench's definitions, as coded in its summarizer (reference/aisbench.md §3) -----------

Summary round_summary(Summary s, double scale) {
  for (double* v : {&s.mean, &s.min, &s.max, &s.median, &s.p75, &s.p90, &s.p99})
    *v = round_to(*v, 4) * scale;
  return s;
}

Row ais_row(std::string name, Unit unit, std::vector<double> values, double scale, int64_t n_override,
            std::string na) {
  Row row{std::move(name), unit, std::nullopt, {}, {}};
  if (values.empty()) {
    row.na_reason = std::move(na);
    return row;
  }
  Summary s = round_summary(summarize(std::move(values)), scale);
  if (n_override >= 0) s.n = n_override;
  row.stats = s;
  return row;
}

MetricSet compute_aisbench(const std::vector<const RequestRecord*>& rs, const RunFacts& facts) {
  MetricSet m;
  m.definitions = Definitions::Aisbench;
  std::vector<double> e2el, ttft, tpot, itl, in_tok, out_tok, out_tput, prefill_tput;  // seconds
  Totals t;
  t.total = static_cast<int64_t>(rs.size());
  double min_start = INFINITY, max_end = -INFINITY;
  int64_t itl_n = 0;
  std::vector<double> tp;

  for (const auto* r : rs) {
    if (!r->ok()) continue;
    // Time points: t0 before the POST, then every SSE data event ([DONE] is not timed);
    // non-streaming: t0 and the end of the body.
    tp.clear();
    tp.push_back(r->sent_ns / kNsPerS);
    if (r->stream) {
      for (const auto& c : r->chunks) tp.push_back(c.t_ns / kNsPerS);
    } else {
      tp.push_back(r->done_ns / kNsPerS);
    }
    if (tp.size() < 2) continue;  // "chunk size is less than 2": counted as failed
    ++t.success;
    min_start = std::min(min_start, tp.front());
    max_end = std::max(max_end, tp.back());
    const double latency = tp.back() - tp.front();
    t.sum_e2el_ns += latency * kNsPerS;
    e2el.push_back(latency);
    const int64_t out = output_tokens(*r);
    const int64_t in = std::max<int64_t>(0, input_tokens(*r));
    t.output_tokens += out;
    t.input_tokens += in;
    out_tok.push_back(static_cast<double>(out));
    in_tok.push_back(static_cast<double>(in));
    out_tput.push_back(latency > 0 ? static_cast<double>(out) / latency : 0.0);
    if (r->stream) {
      const double first = tp[1] - tp[0];
      ttft.push_back(first);
      tpot.push_back(out > 1 ? (latency - first) / static_cast<double>(out - 1) : 0.0);
      prefill_tput.push_back(first > 0 ? static_cast<double>(in) / first : 0.0);
      bool any_nonzero = false;
      for (size_t i = 2; i < tp.size(); ++i) {
        itl.push_back(tp[i] - tp[i - 1]);
        any_nonzero |= tp[i] - tp[i - 1] != 0.0;
      }
      itl_n += any_nonzero ? 1 : 0;
    }
  }
  if (t.success > 0) t.duration_ns = (max_end - min_start) * kNsPerS;

  const bool has_itl = std::any_of(itl.begin(), itl.end(), [](double g) { return g != 0.0; });
  const std::string dropped = facts.stream ? "dropped (all zero)" : "non-streaming";
  auto sum = [](const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); };
  m.rows.push_back(ais_row("E2EL", Unit::Ms, std::move(e2el), 1000, -1, "no successful request"));
  m.rows.push_back(sum(ttft) > 1e-12 ? ais_row("TTFT", Unit::Ms, std::move(ttft), 1000, -1, "")
                                     : na_row("TTFT", Unit::Ms, dropped));
  m.rows.push_back(sum(tpot) > 1e-12 ? ais_row("TPOT", Unit::Ms, std::move(tpot), 1000, itl_n, "")
                                     : na_row("TPOT", Unit::Ms, dropped));
  m.rows.push_back(has_itl ? ais_row("ITL", Unit::Ms, std::move(itl), 1000, itl_n, "")
                           : na_row("ITL", Unit::Ms, dropped));
  m.rows.push_back(ais_row("InputTokens", Unit::Tokens, std::move(in_tok), 1, -1, "no successful request"));
  m.rows.push_back(ais_row("OutputTokens", Unit::Tokens, std::move(out_tok), 1, -1, "no successful request"));
  m.rows.push_back(ais_row("OutputTokenThroughput", Unit::TokensPerS, std::move(out_tput), 1, -1,
                           "no successful request"));
  m.rows.push_back(sum(prefill_tput) > 0
                       ? ais_row("PrefillTokenThroughput", Unit::TokensPerS, std::move(prefill_tput), 1, -1, "")
                       : na_row("PrefillTokenThroughput", Unit::TokensPerS, dropped));
  m.observed_max_concurrency = peak_in_flight(rs);
  add_common(m, t, facts, true);
  return m;
}

// ---- EvalScope, vLLM bench, SGLang bench_serving (reference/evalscope_vllm_sglang.md §0) --------

struct PeerRules {
  enum class First { EventWithChoices, Text } first;
  enum class End { LastWithChoices, LastEvent, Done } end;
  bool itl_text_chunks_only;       // SGLang: gaps between content chunks; others: chunks with choices
  bool zero_tpot_for_short;        // EvalScope keeps TPOT 0 for outputs of <= 1 token
  bool duration_to_done;           // vLLM/SGLang: dispatch .. gather end; EvalScope: .. last completion
  PercentileMethod pct;
};

PeerRules rules_for(Definitions d) {
  using F = PeerRules::First;
  using E = PeerRules::End;
  switch (d) {
    case Definitions::Evalscope: return {F::EventWithChoices, E::LastEvent, false, true, false, PercentileMethod::NearestLower};
    case Definitions::Vllm: return {F::EventWithChoices, E::LastWithChoices, false, false, true, PercentileMethod::Linear};
    default: return {F::Text, E::Done, true, false, true, PercentileMethod::Linear};  // Sglang
  }
}

MetricSet compute_peer(const std::vector<const RequestRecord*>& rs, const RunFacts& facts, Definitions d) {
  const PeerRules rule = rules_for(d);
  MetricSet m;
  m.definitions = d;
  std::vector<double> e2el, ttft, tpot, itl, in_tok, out_tok, out_tput, prefill_tput;
  Totals t;
  t.total = static_cast<int64_t>(rs.size());
  int64_t first_sent = INT64_MAX, last_end = INT64_MIN;
  auto with_choices = [](const record::ChunkEvent& c) { return c.kind != ChunkKind::Usage; };
  for (const auto* r : rs) {
    if (!r->ok()) continue;
    int64_t first = kNone, end = r->done_ns;
    if (r->stream) {
      const record::ChunkEvent* last_choice = nullptr;
      for (const auto& c : r->chunks) {
        const bool counts = rule.first == PeerRules::First::Text ? c.has_text() : with_choices(c);
        if (first == kNone && counts) first = c.t_ns;
        if (with_choices(c)) last_choice = &c;
      }
      if (rule.end == PeerRules::End::LastWithChoices && last_choice) end = last_choice->t_ns;
      if (rule.end == PeerRules::End::LastEvent && r->last_event_ns != kNone) end = r->last_event_ns;
    }
    ++t.success;
    first_sent = std::min(first_sent, r->sent_ns);
    last_end = std::max(last_end, rule.duration_to_done ? r->done_ns : end);
    const double e2e = static_cast<double>(end - r->sent_ns);
    t.sum_e2el_ns += e2e;
    e2el.push_back(e2e / kNsPerMs);
    const int64_t out = output_tokens(*r);
    const int64_t in = r->expected_prompt_tokens != kNone && d == Definitions::Sglang ? r->expected_prompt_tokens : input_tokens(*r);
    t.output_tokens += out;
    out_tok.push_back(static_cast<double>(out));
    if (e2e > 0) out_tput.push_back(static_cast<double>(out) / (e2e / kNsPerS));
    if (in != kNone) {
      t.input_tokens += in;
      in_tok.push_back(static_cast<double>(in));
    }
    if (!r->stream || first == kNone) continue;
    const double first_ns = static_cast<double>(first - r->sent_ns);
    ttft.push_back(first_ns / kNsPerMs);
    if (in != kNone && first_ns > 0) prefill_tput.push_back(static_cast<double>(in) / (first_ns / kNsPerS));
    if (out > 1) {
      tpot.push_back((e2e - first_ns) / kNsPerMs / static_cast<double>(out - 1));
    } else if (rule.zero_tpot_for_short) {
      tpot.push_back(0.0);
    }
    int64_t prev = kNone;
    for (const auto& c : r->chunks) {
      if (rule.itl_text_chunks_only ? !c.has_text() : !with_choices(c)) continue;
      if (prev != kNone) itl.push_back((c.t_ns - prev) / kNsPerMs);
      prev = c.t_ns;
    }
  }
  if (t.success > 0) t.duration_ns = static_cast<double>(last_end - first_sent);
  auto row = [&](std::string name, Unit u, std::vector<double> v, bool stream_only) {
    Row out{std::move(name), u, std::nullopt, {}, {}};
    if (stream_only && !facts.stream) {
      out.na_reason = "non-streaming";
    } else if (v.empty()) {
      out.na_reason = "no values";
    } else {
      out.stats = summarize(std::move(v), rule.pct);
    }
    return out;
  };
  m.rows.push_back(row("E2EL", Unit::Ms, std::move(e2el), false));
  m.rows.push_back(row("TTFT", Unit::Ms, std::move(ttft), true));
  m.rows.push_back(row("TPOT", Unit::Ms, std::move(tpot), true));
  m.rows.push_back(row("ITL", Unit::Ms, std::move(itl), true));
  m.rows.push_back(row("InputTokens", Unit::Tokens, std::move(in_tok), false));
  m.rows.push_back(row("OutputTokens", Unit::Tokens, std::move(out_tok), false));
  m.rows.push_back(row("OutputTokenThroughput", Unit::TokensPerS, std::move(out_tput), false));
  m.rows.push_back(row("PrefillTokenThroughput", Unit::TokensPerS, std::move(prefill_tput), true));
  m.observed_max_concurrency = peak_in_flight(rs);
  add_common(m, t, facts, false);
  return m;
}

}  // namespace

std::string_view definitions_name(Definitions d) {
  switch (d) {
    case Definitions::Aisbench: return "aisbench";
    case Definitions::Evalscope: return "evalscope";
    case Definitions::Vllm: return "vllm";
    case Definitions::Sglang: return "sglang";
    default: return "tokbench";
  }
}

std::optional<Definitions> definitions_from_name(std::string_view name) {
  for (auto d : kAllDefinitions)
    if (definitions_name(d) == name) return d;
  return std::nullopt;
}

std::vector<double> request_values(const std::vector<RequestRecord>& records, std::string_view metric) {
  std::vector<double> out;
  for (const auto& r : records) {
    if (r.warmup || !r.ok()) continue;
    const double e2e = static_cast<double>(r.done_ns - r.sent_ns);
    const int64_t n = output_tokens(r);
    if (metric == "E2EL") {
      out.push_back(e2e / kNsPerMs);
    } else if (metric == "OutputTokenThroughput") {
      if (e2e > 0) out.push_back(static_cast<double>(n) / (e2e / kNsPerS));
    } else if (r.stream && r.first_token_ns != kNone) {
      if (metric == "TTFT") out.push_back(static_cast<double>(r.first_token_ns - r.sent_ns) / kNsPerMs);
      if (metric == "TPOT" && n > 1 && r.last_token_ns != kNone)
        out.push_back(static_cast<double>(r.last_token_ns - r.first_token_ns) / kNsPerMs / static_cast<double>(n - 1));
    }
  }
  return out;
}

std::vector<DefinitionColumn> definitions_side_by_side(const std::vector<RequestRecord>& records, const RunFacts& facts) {
  std::vector<DefinitionColumn> out;
  for (auto d : kAllDefinitions) {
    const MetricSet m = compute(records, facts, d);
    DefinitionColumn c{d, {}, {}, {}, {}, 0};
    auto take = [&](const char* name) { return m.row(name) ? m.row(name)->stats : std::nullopt; };
    c.ttft = take("TTFT");
    c.tpot = take("TPOT");
    c.itl = take("ITL");
    c.e2el = take("E2EL");
    c.output_token_throughput = m.common_metric("output_token_throughput")->value;
    out.push_back(c);
  }
  return out;
}

std::string_view unit_suffix(Unit u) {
  switch (u) {
    case Unit::Ms: return "ms";
    case Unit::TokensPerS: return "token/s";
    case Unit::ReqPerS: return "req/s";
    default: return "";
  }
}

const Row* MetricSet::row(std::string_view name) const {
  for (const auto& r : rows)
    if (r.name == name) return &r;
  for (const auto& r : extra_rows)
    if (r.name == name) return &r;
  return nullptr;
}

const Common* MetricSet::common_metric(std::string_view key) const {
  for (const auto& c : common)
    if (c.key == key) return &c;
  return nullptr;
}

int64_t output_tokens(const RequestRecord& r) {
  if (r.completion_tokens != kNone) return r.completion_tokens;
  if (r.completion_tokens_local != kNone) return r.completion_tokens_local;
  return std::count_if(r.chunks.begin(), r.chunks.end(), [](const auto& c) { return c.has_text(); });
}

int64_t input_tokens(const RequestRecord& r) {
  return r.prompt_tokens != kNone ? r.prompt_tokens : r.prompt_tokens_local;
}

std::vector<double> per_token_gaps_ns(const RequestRecord& r, bool* estimated) {
  *estimated = false;
  std::vector<const record::ChunkEvent*> text;
  for (const auto& c : r.chunks)
    if (c.has_text()) text.push_back(&c);
  std::vector<double> gaps;
  if (text.empty()) return gaps;
  const int64_t out = output_tokens(r);

  // Tokens per text chunk: from cumulative usage when every text chunk carries it; exactly 1
  // when usage says there are as many tokens as chunks; otherwise spread evenly (estimated).
  std::vector<int64_t> k(text.size(), 1);
  const bool cumulative =
      std::all_of(text.begin(), text.end(), [](const auto* c) { return c->cum_tokens >= 0; });
  if (cumulative) {
    int64_t prev = 0;
    for (size_t j = 0; j < text.size(); ++j) {
      k[j] = std::max<int64_t>(0, text[j]->cum_tokens - prev);
      prev = std::max<int64_t>(prev, text[j]->cum_tokens);
    }
  } else if (out != static_cast<int64_t>(text.size())) {
    *estimated = true;
    // The first chunk holds the first token; the rest share out-1 tokens as evenly as possible.
    const int64_t rest = std::max<int64_t>(0, out - 1);
    const auto m = static_cast<int64_t>(text.size()) - 1;
    for (int64_t j = 1; j <= m; ++j) k[j] = rest * j / m - rest * (j - 1) / m;
    if (m == 0) k[0] = std::max<int64_t>(1, out);
  }

  int64_t prev_t = kNone;
  for (size_t j = 0; j < text.size(); ++j) {
    if (k[j] <= 0) continue;  // text without a new token (detokenizer lag): time flows to the next
    if (prev_t == kNone) {
      gaps.insert(gaps.end(), static_cast<size_t>(k[j] - 1), 0.0);  // arrived with the first token
    } else {
      const double gap = static_cast<double>(text[j]->t_ns - prev_t) / static_cast<double>(k[j]);
      gaps.insert(gaps.end(), static_cast<size_t>(k[j]), gap);
    }
    prev_t = text[j]->t_ns;
  }
  return gaps;
}

MetricSet compute(const std::vector<RequestRecord>& records, const RunFacts& facts,
                  Definitions definitions) {
  const auto rs = measured(records);
  switch (definitions) {
    case Definitions::Tokbench: return compute_tokbench(rs, facts);
    case Definitions::Aisbench: return compute_aisbench(rs, facts);
    default: return compute_peer(rs, facts, definitions);
  }
}

std::vector<std::pair<std::string, std::string>> definition_texts(Definitions d) {
  if (d == Definitions::Evalscope) {
    return {
        {"set", "evalscope: EvalScope perf v1.10 benchmark_util.py (reference/evalscope_vllm_sglang.md section 1.4)"},
        {"TTFT", "first SSE event whose choices is non-empty (a role-only delta counts) - sent"},
        {"E2EL", "last data event, the usage-only chunk included - sent"},
        {"TPOT", "(E2EL - TTFT) / (output_tokens - 1); 0 for <= 1 token, zeros kept in the mean"},
        {"ITL", "gaps between consecutive events with choices (per chunk), pooled"},
        {"duration", "max(completion) - min(sent)"},
        {"percentiles", "sorted[int(n*p/100)] (lower nearest rank)"},
    };
  }
  if (d == Definitions::Vllm) {
    return {
        {"set", "vllm: vllm bench serve calculate_metrics (reference/evalscope_vllm_sglang.md section 2.3)"},
        {"TTFT", "first SSE event whose choices is non-empty (a role-only delta counts) - sent"},
        {"E2EL", "last event with choices (usage chunk and [DONE] excluded) - sent"},
        {"TPOT", "(E2EL - TTFT) / (output_tokens - 1), requests with more than 1 token only"},
        {"ITL", "gaps between consecutive events with choices (per chunk), pooled"},
        {"duration", "first dispatch .. end of the run"},
        {"percentiles", "numpy linear interpolation"},
    };
  }
  if (d == Definitions::Sglang) {
    return {
        {"set", "sglang: SGLang bench_serving calculate_metrics (reference/evalscope_vllm_sglang.md section 3.3)"},
        {"TTFT", "first event with non-empty content or reasoning - sent"},
        {"E2EL", "[DONE] - sent (latency refreshed on every line)"},
        {"TPOT", "(E2EL - TTFT) / (output_tokens - 1), requests with more than 1 token only"},
        {"ITL", "gaps between consecutive text chunks (per chunk), pooled"},
        {"InputTokens", "the dataset's prompt length when known, else usage.prompt_tokens"},
        {"duration", "first dispatch .. end of the run"},
        {"percentiles", "numpy linear interpolation"},
    };
  }
  if (d == Definitions::Aisbench) {
    return {
        {"set", "aisbench: AISBench's DefaultPerfMetricCalculator as coded (reference/aisbench.md section 3)"},
        {"time_points", "tp = [sent, every SSE data event including role, finish and usage chunks]; [DONE] not timed"},
        {"E2EL", "tp[-1] - tp[0]"},
        {"TTFT", "tp[1] - tp[0]: the first data event of any kind"},
        {"TPOT", "(E2EL - TTFT) / (output_tokens - 1); 0 for <= 1 token, and the zeros are kept"},
        {"ITL", "diff(tp[1:]) per chunk, zero gaps included; N = requests with any non-zero gap"},
        {"OutputTokenThroughput", "output_tokens / E2EL"},
        {"PrefillTokenThroughput", "input_tokens / TTFT (0 when TTFT is 0)"},
        {"Benchmark Duration", "max(tp[-1]) - min(tp[0]) over successful requests"},
        {"Concurrency", "sum(E2EL) / duration"},
        {"rounding", "per-request statistics rounded to 4 decimals in seconds (0.1 ms), then shown in ms; common metrics rounded to 4 decimals in their unit"},
        {"percentiles", "numpy linear interpolation"},
    };
  }
  return {
      {"set", "tokbench: the default definitions (docs/METRICS.md)"},
      {"E2EL", "done - sent; done is data: [DONE] (streaming) or the end of the body"},
      {"TTFT", "first_token - sent; first_token is the first chunk carrying generated text (role-only chunks do not count)"},
      {"TPOT", "(last_token - first_token) / (output_tokens - 1), over requests with more than 1 output token"},
      {"ITL", "per token: the gap before a chunk carrying k tokens counts as k equal gaps; extra tokens of the first chunk count 0; pooled"},
      {"InputTokens", "usage.prompt_tokens, else the --tokenizer count of the prompt"},
      {"OutputTokens", "usage.completion_tokens, else the --tokenizer count of the generated text, else the number of text chunks"},
      {"OutputTokenThroughput", "output_tokens / E2EL, per request"},
      {"PrefillTokenThroughput", "input_tokens / TTFT, per request"},
      {"Benchmark Duration", "last done - first sent over successful requests"},
      {"Concurrency", "sum(E2EL) / duration (mean requests in flight)"},
      {"Max Concurrency", "the configured cap (observed peak in observed_max_concurrency)"},
      {"percentiles", "numpy linear interpolation"},
  };
}

}  // namespace tokbench::metrics
