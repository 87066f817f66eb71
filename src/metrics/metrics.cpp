#include "metrics/metrics.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <cmath>
#include <fmt/format.h>

#include "common/format.hpp"
#include "metrics/samples.hpp"
#include "metrics/slo.hpp"

namespace tokbench::metrics {

using record::ChunkKind;
using record::kNone;
using record::RequestRecord;

namespace {

constexpr double kNsPerMs = 1e6;
constexpr double kNsPerS = 1e9;

// Observed peak of requests in flight: +1 at send, -1 at done, ends before starts on ties. Sends
// and ends are two sorted columns walked side by side, so memory stays bounded.
class PeakInFlight {
 public:
  void add(const RequestRecord& r) {
    if (r.sent_ns == kNone || r.done_ns == kNone) return;
    sent_.push(static_cast<double>(r.sent_ns));
    done_.push(static_cast<double>(r.done_ns));
  }
  int64_t finish() {
    Samples::Reader sends(sent_), ends(done_);
    Samples::Entry s{}, e{};
    bool have_end = ends.next(e);
    int64_t cur = 0, peak = 0;
    while (sends.next(s)) {
      for (; have_end && e.v <= s.v; have_end = ends.next(e)) cur -= e.n;
      peak = std::max(peak, cur += s.n);
    }
    return peak;
  }

 private:
  Samples sent_, done_;
};

Row make_row(std::string name, Unit unit, Samples& values, std::string na_if_empty,
             PercentileMethod pct = PercentileMethod::Linear) {
  Row row{std::move(name), unit, std::nullopt, {}, {}};
  if (values.empty()) {
    row.na_reason = std::move(na_if_empty);
  } else {
    row.stats = values.summarize(pct);
  }
  return row;
}

Row na_row(std::string name, Unit unit, std::string reason) {
  return Row{std::move(name), unit, std::nullopt, std::move(reason), {}};
}

// Saturating: token counts come from the server, and a bogus one must not overflow (UB) the sum.
int64_t add_tokens(int64_t a, int64_t b) {
  int64_t out = 0;
  return __builtin_add_overflow(a, b, &out) ? INT64_MAX : out;
}

struct Totals {
  int64_t total = 0, success = 0;
  double duration_ns = 0, sum_e2el_ns = 0;
  int64_t input_tokens = 0, output_tokens = 0;
  int64_t input_known = 0;  ///< successful requests whose input tokens were known
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
      {"Peak Concurrency", "peak_concurrency", 0, Unit::None},  // observed; set once the peak is known
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
       r(per_s(static_cast<double>(add_tokens(t.input_tokens, t.output_tokens)))), Unit::TokensPerS},
  };
  if (facts.embeddings) {  // nothing is generated: no output token counts to show, not 0
    for (auto& c : m.common)
      if (c.key == "total_generated_tokens" || c.key == "output_token_throughput") c.known = false;
  }
  if (t.success > 0 && t.input_known == 0) {  // no request told its input tokens: unknown, not 0
    for (auto& c : m.common)
      if (c.key == "total_input_tokens" || c.key == "input_token_throughput" || c.key == "total_token_throughput")
        c.known = false;
  }
}

// One definition set, fed one measured record at a time.
class Accumulator {
 public:
  virtual ~Accumulator() = default;
  virtual void add(const RequestRecord& r) = 0;
  virtual MetricSet finish() = 0;
  /// Every column with the percentile method it will be summarized with (for precompute()).
  virtual void columns(std::vector<std::pair<Samples*, PercentileMethod>>& out) = 0;
};

void add_columns(std::vector<std::pair<Samples*, PercentileMethod>>& out, PercentileMethod m,
                 std::initializer_list<Samples*> cols) {
  for (Samples* s : cols) out.emplace_back(s, m);
}

// ---- tokbench's own definitions ---------------------------------------------------------------

class TokbenchAccumulator final : public Accumulator {
 public:
  explicit TokbenchAccumulator(const RunFacts& facts) : facts_(facts) {}

  void add(const RequestRecord& r) override {
    ++t_.total;
    if (!r.ok()) return;
    ++t_.success;
    first_sent_ = std::min(first_sent_, r.sent_ns);
    last_done_ = std::max(last_done_, r.done_ns);
    const double e2e = static_cast<double>(r.done_ns - r.sent_ns);
    t_.sum_e2el_ns += e2e;
    e2el_.push(e2e / kNsPerMs);
    if (r.scheduled_ns != kNone) send_lag_.push((r.sent_ns - r.scheduled_ns) / kNsPerMs);
    const bool intended = facts_.open_loop && r.scheduled_ns != kNone;
    if (intended) {
      e2el_intended_.push((r.done_ns - r.scheduled_ns) / kNsPerMs);
      held_back_ns_ += static_cast<double>(r.sent_ns - r.scheduled_ns);
    }
    add_phases(r);
    add_turn(r);

    const int64_t out = facts_.embeddings ? 0 : output_tokens(r);  // an embedding generates nothing to count
    if (!facts_.embeddings && r.token_source() == "chunks") ++m_.output_tokens_from_chunks;
    if (!facts_.embeddings && r.token_source() == "tokenizer") ++from_tokenizer_;
    if (r.token_mismatch()) ++mismatches_;
    if (r.expected_prompt_tokens != kNone && r.prompt_tokens != kNone && r.prompt_tokens != r.expected_prompt_tokens)
      ++prompt_off_;
    out_tok_.push(static_cast<double>(out));
    t_.output_tokens = add_tokens(t_.output_tokens, out);
    if (e2e > 0) out_tput_.push(static_cast<double>(out) / (e2e / kNsPerS));
    if (r.cached_tokens != kNone && r.prompt_tokens > 0) {  // the server's prefix-cache hits, from usage
      cached_tokens_ += static_cast<double>(r.cached_tokens);
      cached_of_ += static_cast<double>(r.prompt_tokens);
    }
    if (const int64_t in = input_tokens(r); in != kNone) {
      in_tok_.push(static_cast<double>(in));
      ++t_.input_known;
      t_.input_tokens = add_tokens(t_.input_tokens, in);
    } else {
      ++no_usage_prompt_;
    }

    if (!r.stream) return;
    if (r.first_event_ns != kNone) ttft_event_.push((r.first_event_ns - r.sent_ns) / kNsPerMs);
    if (r.first_token_ns == kNone) return;  // no generated text: TTFT undefined
    // Prefill ends with the request's first token, whichever choice carries it.
    const double ttft_ns = static_cast<double>(r.first_token_ns - r.sent_ns);
    if (input_tokens(r) != kNone && ttft_ns > 0)
      prefill_tput_.push(static_cast<double>(input_tokens(r)) / (ttft_ns / kNsPerS));
    bool estimated = false;
    if (std::any_of(r.chunks.begin(), r.chunks.end(), [](const auto& c) { return c.kind == ChunkKind::ToolCall; })) ++tool_calls_;
    if (r.choices > 1) {
      ++multi_choice_;
      choices_seen_ = std::max(choices_seen_, r.choices);
    }
    for_each_choice(r, [&](const RequestRecord& c, bool) { estimated |= add_token_stream(c, intended); });
    if (estimated) {
      ++m_.itl_estimated_requests;
      ++estimated_by_[r.token_source() == "usage" ? 0 : r.token_source() == "tokenizer" ? 1 : 2];
    }
  }

  // TTFT, TPOT, ITL and chunk gaps of one token stream: the request's, or one choice's when n > 1.
  // Returns true when its per-chunk token counts were estimated.
  bool add_token_stream(const RequestRecord& r, bool intended) {
    if (r.first_token_ns == kNone) return false;
    const int64_t out = output_tokens(r);
    ttft_.push(static_cast<double>(r.first_token_ns - r.sent_ns) / kNsPerMs);
    if (intended) ttft_intended_.push((r.first_token_ns - r.scheduled_ns) / kNsPerMs);
    if (out > 1 && r.last_token_ns != kNone)
      tpot_.push(static_cast<double>(r.last_token_ns - r.first_token_ns) / kNsPerMs / static_cast<double>(out - 1));
    const bool estimated = for_each_token_gap(r, [&](double g, int64_t n) { itl_.push(g / kNsPerMs, n); });
    int64_t prev = kNone, text_chunks = 0;
    for (const auto& c : r.chunks) {
      if (!c.has_text()) continue;
      ++text_chunks;
      if (prev != kNone) icl_.push((c.t_ns - prev) / kNsPerMs);
      prev = c.t_ns;
    }
    // Tokens per chunk after the first: under speculative decoding, the client's estimate of the
    // mean acceptance length (EvalScope's "decoded tokens per iteration").
    if (text_chunks > 1 && out > 1)
      tokens_per_chunk_.push(static_cast<double>(out - 1) / static_cast<double>(text_chunks - 1));
    return estimated;
  }

  MetricSet finish() override {
    MetricSet& m = m_;
    m.definitions = Definitions::Tokbench;
    if (t_.success > 0) t_.duration_ns = static_cast<double>(last_done_ - first_sent_);
    const char* kEmbeddings = "embeddings: nothing is generated";
    auto stream_row = [&](std::string name, Unit u, Samples& v, std::string empty_reason) {
      return facts_.embeddings ? na_row(std::move(name), u, kEmbeddings)
             : facts_.stream   ? make_row(std::move(name), u, v, std::move(empty_reason))
                               : na_row(std::move(name), u, "non-streaming");
    };
    auto output_row = [&](std::string name, Unit u, Samples& v) {
      return facts_.embeddings ? na_row(std::move(name), u, kEmbeddings) : make_row(std::move(name), u, v, "no successful request");
    };
    m.rows.push_back(make_row("E2EL", Unit::Ms, e2el_, "no successful request"));
    m.rows.push_back(stream_row("TTFT", Unit::Ms, ttft_, "no generated text"));
    m.rows.push_back(stream_row("TPOT", Unit::Ms, tpot_, "no request with more than 1 token"));
    m.rows.push_back(stream_row("ITL", Unit::Ms, itl_, "no request with more than 1 token"));
    m.rows.push_back(make_row("InputTokens", Unit::Tokens, in_tok_, "server sent no usage"));
    m.rows.push_back(output_row("OutputTokens", Unit::Tokens, out_tok_));
    m.rows.push_back(output_row("OutputTokenThroughput", Unit::TokensPerS, out_tput_));
    if (facts_.embeddings) {
      m.notes.push_back("embeddings: one input per request, so Request Throughput is inputs per second; E2EL is the "
                        "whole answer (the vectors), and nothing is generated (the output rows are n/a)");
    }
    m.rows.push_back(stream_row("PrefillTokenThroughput", Unit::TokensPerS, prefill_tput_, "no prompt token counts"));
    add_notes();
    m.extra_rows.push_back(stream_row("TTFT_FirstEvent", Unit::Ms, ttft_event_, "no events"));
    m.extra_rows.push_back(make_row("SendLag", Unit::Ms, send_lag_, "no schedule"));
    // Latency from the intended send time beside latency from the actual send (wrk2's corrected
    // latency): a request the client or a concurrency cap held back is late here, not hidden.
    const char* closed = "closed loop: a request goes when a slot frees, it has no intended send time";
    m.extra_rows.push_back(facts_.open_loop ? make_row("E2EL_FromIntended", Unit::Ms, e2el_intended_, "no schedule")
                                            : na_row("E2EL_FromIntended", Unit::Ms, closed));
    m.extra_rows.push_back(!facts_.open_loop ? na_row("TTFT_FromIntended", Unit::Ms, closed)
                                             : stream_row("TTFT_FromIntended", Unit::Ms, ttft_intended_, "no generated text"));
    if (facts_.open_loop && !e2el_intended_.empty()) {
      m.notes.push_back(fmt::format("E2EL_FromIntended and TTFT_FromIntended count from when the arrival schedule meant "
                                    "to send each request: {:.3f} ms later than from the send on average (waiting for a "
                                    "free slot, or a late client)",
                                    held_back_ns_ / kNsPerMs / static_cast<double>(e2el_intended_.size())));
    }
    m.extra_rows.push_back(make_row("HttpConnecting", Unit::Ms, connecting_, "no new connection (or no phase times)"));
    m.extra_rows.push_back(make_row("HttpTlsHandshaking", Unit::Ms, tls_, "no TLS handshake"));
    m.extra_rows.push_back(make_row("HttpWaiting", Unit::Ms, waiting_, "no phase times"));
    m.extra_rows.push_back(stream_row("TTFT_FromRequestStart", Unit::Ms, ttft_wire_, "no phase times"));
    if (with_phases_ > 0) {
      m.notes.push_back(fmt::format("{} of {} request(s) opened a new connection{}; TTFT_FromRequestStart is TTFT with "
                                    "connection set-up excluded (from the request's start on the wire)",
                                    new_connections_, with_phases_,
                                    connecting_.empty() ? "" : fmt::format(" (set-up mean {:.3f} ms)", connecting_.summarize().mean)));
    }
    m.extra_rows.push_back(make_row("SessionLatency", Unit::Ms, session_latency_, "no multi-turn session finished"));
    finish_turns(m);
    m.extra_rows.push_back(stream_row("ICL", Unit::Ms, icl_, "no request with 2 text chunks"));
    m.extra_rows.push_back(stream_row("TokensPerChunk", Unit::Tokens, tokens_per_chunk_, "no request with 2 text chunks"));
    add_common(m, t_, facts_, false);
    return std::move(m_);
  }

 private:
  void add_notes() {
    MetricSet& m = m_;
    if (m.itl_estimated_requests > 0) {
      // Name where the spread count came from: usage, or the local tokenizer when there was none.
      const char* over = estimated_by_[1] == 0 ? "usage.completion_tokens"
                         : estimated_by_[0] == 0 ? "the --tokenizer count of the generated text"
                                                 : "usage.completion_tokens (or the --tokenizer count where usage was missing)";
      m.rows[3].note = fmt::format(
          "per-chunk token counts unknown for {} request(s): their chunk gaps were spread evenly "
          "over {} (ask the server for stream_options.continuous_usage_stats)",
          m.itl_estimated_requests, over);
    }
    if (multi_choice_ > 0) {
      m.notes.push_back(fmt::format(
          "{} request(s) were answered with more than one choice (n > 1, up to {}): TTFT, TPOT, ITL, ICL and "
          "TokensPerChunk count one sample per choice, each choice's own token stream; E2EL, OutputTokens and the "
          "throughputs are per request (all choices); the other tools' columns merge the choices, as those tools do",
          multi_choice_, choices_seen_));
    }
    if (facts_.implied_cache_hit >= 0) {
      m.notes.push_back(fmt::format(
          "prefix cache: the trace's hash_ids put {:.1f}% of the prompt tokens in an unbounded cache of full blocks; the "
          "server reported {}", 100 * facts_.implied_cache_hit,
          cached_of_ > 0 ? fmt::format("{:.1f}% cached (usage.prompt_tokens_details.cached_tokens)", 100 * cached_tokens_ / cached_of_)
                         : std::string("no cached_tokens in usage (see its /metrics prefix-cache counters)")));
    }
    if (tool_calls_ > 0) {
      m.notes.push_back(fmt::format("{} request(s) were answered with tool calls: their first token is the first tool-call "
                                    "delta (the tool's name), and the call's argument text is their output",
                                    tool_calls_));
    }
    if (m.output_tokens_from_chunks > 0) {
      m.notes.push_back(fmt::format(
          "{} request(s) had no usage: their output tokens are counted as text chunks (pass --tokenizer to count them)",
          m.output_tokens_from_chunks));
    }
    if (from_tokenizer_ > 0)
      m.notes.push_back(fmt::format("{} request(s) had no usage: their tokens were counted with --tokenizer", from_tokenizer_));
    if (mismatches_ > 0) {
      m.notes.push_back(fmt::format("{} request(s): usage.completion_tokens differs from the local tokenizer's count of "
                                    "the generated text (see token_mismatch in the details)", mismatches_));
    }
    if (prompt_off_ > 0) {
      m.notes.push_back(fmt::format("{} request(s): usage.prompt_tokens differs from the input length the prompt was "
                                    "built to have", prompt_off_));
    }
    if (no_usage_prompt_ > 0 && t_.success > 0) {
      m.notes.push_back(fmt::format("{} request(s) had no usage.prompt_tokens: input tokens unknown for them",
                                    no_usage_prompt_));
    }
    m.token_mismatches = mismatches_;
  }

  void columns(std::vector<std::pair<Samples*, PercentileMethod>>& out) override {
    add_columns(out, PercentileMethod::Linear, {&e2el_, &ttft_, &tpot_, &itl_, &in_tok_, &out_tok_, &out_tput_, &prefill_tput_,
                                                &ttft_event_, &send_lag_, &e2el_intended_, &ttft_intended_, &icl_, &tokens_per_chunk_, &connecting_, &tls_,
                                                &waiting_, &ttft_wire_, &session_latency_});
  }

  // Multi-turn sessions: sums per turn index (bounded: --turns is at most 10,000), and each
  // finished conversation's latency, first turn handed out to last answer.
  struct TurnSums {
    int64_t n = 0, ttft_n = 0, in_n = 0, cached_n = 0;
    double ttft = 0, e2el = 0, in = 0, cached = 0;
  };
  void add_turn(const RequestRecord& r) {
    if (r.turn == kNone || r.turn < 0 || r.turn >= 10'000) return;
    if (turn_sums_.size() <= static_cast<size_t>(r.turn)) turn_sums_.resize(static_cast<size_t>(r.turn) + 1);
    TurnSums& t = turn_sums_[static_cast<size_t>(r.turn)];
    ++t.n;
    t.e2el += static_cast<double>(r.done_ns - r.sent_ns) / kNsPerMs;
    if (r.stream && r.first_token_ns != kNone) {
      t.ttft += static_cast<double>(r.first_token_ns - r.sent_ns) / kNsPerMs;
      ++t.ttft_n;
    }
    if (const int64_t in = input_tokens(r); in != kNone) {
      t.in += static_cast<double>(in);
      ++t.in_n;
    }
    if (r.cached_tokens != kNone) {
      t.cached += static_cast<double>(r.cached_tokens);
      ++t.cached_n;
    }
    if (r.last_turn && r.session_start_ns != kNone) session_latency_.push((r.done_ns - r.session_start_ns) / kNsPerMs);
  }
  void finish_turns(MetricSet& m) {
    auto mean = [](double sum, int64_t n) { return n > 0 ? std::optional<double>(sum / static_cast<double>(n)) : std::nullopt; };
    for (size_t i = 0; i < turn_sums_.size(); ++i) {
      const TurnSums& t = turn_sums_[i];
      m.turns.push_back({static_cast<int64_t>(i) + 1, t.n, mean(t.ttft, t.ttft_n), mean(t.e2el, t.n), mean(t.in, t.in_n),
                         mean(t.cached, t.cached_n)});
    }
    if (m.turns.empty()) return;
    std::string per;
    for (const auto& t : m.turns) {
      if (t.turn > 8) {
        per += fmt::format("; … ({} turns, all in result.json: turns)", m.turns.size());
        break;
      }
      auto ms = [](const std::optional<double>& v, const char* unit) { return v ? fmt::format("{:.1f}{}", *v, unit) : "n/a"; };
      per += fmt::format("{}turn {}: TTFT {}, input {}, cached {} (n={})", t.turn == 1 ? "" : "; ", t.turn,
                         ms(t.ttft_ms, " ms"), ms(t.input_tokens, ""), ms(t.cached_tokens, ""), t.requests);
    }
    m.notes.push_back("multi-turn means per turn (each turn's body carries the earlier turns and their real answers): " + per);
  }

  // The HTTP phases (k6's names, as AIPerf reports them): set-up only where a connection was
  // opened; waiting = first response byte after the request's start on the wire.
  void add_phases(const RequestRecord& r) {
    if (r.request_start_ns == kNone) return;
    ++with_phases_;
    if (r.connects > 0) {
      ++new_connections_;
      if (r.connect_done_ns != kNone) connecting_.push((r.connect_done_ns - r.sent_ns) / kNsPerMs);
      if (r.tls_done_ns != kNone && r.connect_done_ns != kNone) tls_.push((r.tls_done_ns - r.connect_done_ns) / kNsPerMs);
    }
    if (r.first_byte_ns != kNone) waiting_.push((r.first_byte_ns - r.request_start_ns) / kNsPerMs);
    if (r.stream && r.first_token_ns != kNone) ttft_wire_.push((r.first_token_ns - r.request_start_ns) / kNsPerMs);
  }

  RunFacts facts_;
  MetricSet m_;
  Totals t_;
  Samples e2el_, ttft_, tpot_, itl_, in_tok_, out_tok_, out_tput_, prefill_tput_;
  Samples ttft_event_, send_lag_, e2el_intended_, ttft_intended_, icl_, tokens_per_chunk_;
  double held_back_ns_ = 0;  // sum of send lags of the requests in e2el_intended_
  Samples connecting_, tls_, waiting_, ttft_wire_;
  int64_t with_phases_ = 0, new_connections_ = 0;
  int64_t first_sent_ = INT64_MAX, last_done_ = INT64_MIN;
  int64_t no_usage_prompt_ = 0, from_tokenizer_ = 0, mismatches_ = 0, prompt_off_ = 0;
  int64_t estimated_by_[3] = {0, 0, 0};  // ITL spread over: usage, the tokenizer, chunks
  int64_t multi_choice_ = 0, choices_seen_ = 0;  // n > 1: requests timed per choice, most choices seen
  int64_t tool_calls_ = 0;                         // requests answered with tool-call deltas
  double cached_tokens_ = 0, cached_of_ = 0;       // usage's cached prompt tokens, of the prompt tokens of those requests
  std::vector<TurnSums> turn_sums_;
  Samples session_latency_;
};

// ---- AISBench's definitions, as coded in its summarizer (reference/aisbench.md §3) -----------

Summary round_summary(Summary s, double scale) {
  for (double* v : {&s.mean, &s.min, &s.max, &s.median, &s.p75, &s.p90, &s.p99})
    *v = round_to(*v, 4) * scale;
  return s;
}

Row ais_row(std::string name, Unit unit, Samples& values, double scale, int64_t n_override, std::string na) {
  Row row{std::move(name), unit, std::nullopt, {}, {}};
  if (values.empty()) {
    row.na_reason = std::move(na);
    return row;
  }
  Summary s = round_summary(values.summarize(), scale);
  if (n_override >= 0) s.n = n_override;
  row.stats = s;
  return row;
}

class AisbenchAccumulator final : public Accumulator {
 public:
  AisbenchAccumulator(const RunFacts& facts, bool side_only) : facts_(facts), side_only_(side_only) {}

  void add(const RequestRecord& r) override {
    ++t_.total;
    if (!r.ok()) return;
    // Time points: t0 before the POST, then every SSE data event ([DONE] is not timed);
    // non-streaming: t0 and the end of the body.
    tp_.clear();
    tp_.push_back(r.sent_ns / kNsPerS);
    if (r.stream) {
      for (const auto& c : r.chunks) tp_.push_back(c.t_ns / kNsPerS);
    } else {
      tp_.push_back(r.done_ns / kNsPerS);
    }
    if (tp_.size() < 2) return;  // "chunk size is less than 2": counted as failed
    ++t_.success;
    min_start_ = std::min(min_start_, tp_.front());
    max_end_ = std::max(max_end_, tp_.back());
    const double latency = tp_.back() - tp_.front();
    t_.sum_e2el_ns += latency * kNsPerS;
    e2el_.push(latency);
    const int64_t out = output_tokens(r);
    const int64_t in = std::max<int64_t>(0, input_tokens(r));
    if (input_tokens(r) != kNone) ++t_.input_known;
    t_.output_tokens = add_tokens(t_.output_tokens, out);
    t_.input_tokens = add_tokens(t_.input_tokens, in);
    if (!side_only_) {
      out_tok_.push(static_cast<double>(out));
      in_tok_.push(static_cast<double>(in));
      out_tput_.push(latency > 0 ? static_cast<double>(out) / latency : 0.0);
    }
    if (!r.stream) return;
    const double first = tp_[1] - tp_[0];
    push_summed(ttft_, ttft_sum_, first);
    push_summed(tpot_, tpot_sum_, out > 1 ? (latency - first) / static_cast<double>(out - 1) : 0.0);
    if (!side_only_) push_summed(prefill_tput_, prefill_sum_, first > 0 ? static_cast<double>(in) / first : 0.0);
    bool any_nonzero = false;
    for (size_t i = 2; i < tp_.size(); ++i) {
      itl_.push(tp_[i] - tp_[i - 1]);
      any_nonzero |= tp_[i] - tp_[i - 1] != 0.0;
    }
    itl_n_ += any_nonzero ? 1 : 0;
    has_itl_ |= any_nonzero;
  }

  MetricSet finish() override {
    MetricSet m;
    m.definitions = Definitions::Aisbench;
    if (t_.success > 0) t_.duration_ns = (max_end_ - min_start_) * kNsPerS;
    const std::string dropped = facts_.stream ? "dropped (all zero)" : "non-streaming";
    m.rows.push_back(ais_row("E2EL", Unit::Ms, e2el_, 1000, -1, "no successful request"));
    m.rows.push_back(ttft_sum_ > 1e-12 ? ais_row("TTFT", Unit::Ms, ttft_, 1000, -1, "") : na_row("TTFT", Unit::Ms, dropped));
    m.rows.push_back(tpot_sum_ > 1e-12 ? ais_row("TPOT", Unit::Ms, tpot_, 1000, itl_n_, "") : na_row("TPOT", Unit::Ms, dropped));
    m.rows.push_back(has_itl_ ? ais_row("ITL", Unit::Ms, itl_, 1000, itl_n_, "") : na_row("ITL", Unit::Ms, dropped));
    m.rows.push_back(ais_row("InputTokens", Unit::Tokens, in_tok_, 1, -1, "no successful request"));
    m.rows.push_back(ais_row("OutputTokens", Unit::Tokens, out_tok_, 1, -1, "no successful request"));
    m.rows.push_back(ais_row("OutputTokenThroughput", Unit::TokensPerS, out_tput_, 1, -1, "no successful request"));
    m.rows.push_back(prefill_sum_ > 0 ? ais_row("PrefillTokenThroughput", Unit::TokensPerS, prefill_tput_, 1, -1, "")
                                      : na_row("PrefillTokenThroughput", Unit::TokensPerS, dropped));
    add_common(m, t_, facts_, true);
    return m;
  }

 private:
  // AISBench tests sum(values) in arrival order: kept as it goes, in that order.
  static void push_summed(Samples& s, double& sum, double v) {
    s.push(v);
    sum += v;
  }

  void columns(std::vector<std::pair<Samples*, PercentileMethod>>& out) override {
    add_columns(out, PercentileMethod::Linear, {&e2el_, &ttft_, &tpot_, &itl_, &in_tok_, &out_tok_, &out_tput_, &prefill_tput_});
  }

  RunFacts facts_;
  bool side_only_;  // only the side-by-side column is wanted: per-request token rows are skipped
  Totals t_;
  Samples e2el_, ttft_, tpot_, itl_, in_tok_, out_tok_, out_tput_, prefill_tput_;  // seconds
  double ttft_sum_ = 0, tpot_sum_ = 0, prefill_sum_ = 0;
  bool has_itl_ = false;
  double min_start_ = INFINITY, max_end_ = -INFINITY;
  int64_t itl_n_ = 0;
  std::vector<double> tp_;
};

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

}  // namespace

PeerTiming peer_timing(const RequestRecord& r, Definitions d) {
  const PeerRules rule = rules_for(d);
  auto with_choices = [](const record::ChunkEvent& c) { return c.kind != ChunkKind::Usage; };
  PeerTiming t;
  t.end_ns = r.done_ns;
  if (!r.stream) return t;
  const record::ChunkEvent* last_choice = nullptr;
  for (const auto& c : r.chunks) {
    const bool counts = rule.first == PeerRules::First::Text ? c.has_text() : with_choices(c);
    if (t.first_ns == kNone && counts) t.first_ns = c.t_ns;
    if (with_choices(c)) last_choice = &c;
  }
  if (rule.end == PeerRules::End::LastWithChoices && last_choice) t.end_ns = last_choice->t_ns;
  if (rule.end == PeerRules::End::LastEvent && r.last_event_ns != kNone) t.end_ns = r.last_event_ns;
  return t;
}

void for_each_peer_gap(const RequestRecord& r, Definitions d, const std::function<void(double gap_ns)>& fn) {
  const bool text_only = rules_for(d).itl_text_chunks_only;
  int64_t prev = kNone;
  for (const auto& c : r.chunks) {
    if (text_only ? !c.has_text() : c.kind == ChunkKind::Usage) continue;
    if (prev != kNone) fn(static_cast<double>(c.t_ns - prev));
    prev = c.t_ns;
  }
}

namespace {

class PeerAccumulator final : public Accumulator {
 public:
  PeerAccumulator(const RunFacts& facts, Definitions d, bool side_only)
      : facts_(facts), d_(d), rule_(rules_for(d)), side_only_(side_only) {}

  void add(const RequestRecord& r) override {
    ++t_.total;
    if (!r.ok()) return;
    const auto [first, end] = peer_timing(r, d_);
    ++t_.success;
    first_sent_ = std::min(first_sent_, r.sent_ns);
    last_end_ = std::max(last_end_, rule_.duration_to_done ? r.done_ns : end);
    const double e2e = static_cast<double>(end - r.sent_ns);
    t_.sum_e2el_ns += e2e;
    e2el_.push(e2e / kNsPerMs);
    const int64_t out = output_tokens(r);
    const int64_t in = r.expected_prompt_tokens != kNone && d_ == Definitions::Sglang ? r.expected_prompt_tokens : input_tokens(r);
    t_.output_tokens = add_tokens(t_.output_tokens, out);
    if (!side_only_) out_tok_.push(static_cast<double>(out));
    if (e2e > 0 && !side_only_) out_tput_.push(static_cast<double>(out) / (e2e / kNsPerS));
    if (in != kNone) {
      ++t_.input_known;
      t_.input_tokens = add_tokens(t_.input_tokens, in);
      if (!side_only_) in_tok_.push(static_cast<double>(in));
    }
    if (!r.stream || first == kNone) return;
    const double first_ns = static_cast<double>(first - r.sent_ns);
    ttft_.push(first_ns / kNsPerMs);
    if (in != kNone && first_ns > 0 && !side_only_) prefill_tput_.push(static_cast<double>(in) / (first_ns / kNsPerS));
    if (out > 1) {
      tpot_.push((e2e - first_ns) / kNsPerMs / static_cast<double>(out - 1));
    } else if (rule_.zero_tpot_for_short) {
      tpot_.push(0.0);
    }
    for_each_peer_gap(r, d_, [&](double gap_ns) { itl_.push(gap_ns / kNsPerMs); });
  }

  MetricSet finish() override {
    MetricSet m;
    m.definitions = d_;
    if (t_.success > 0) t_.duration_ns = static_cast<double>(last_end_ - first_sent_);
    auto row = [&](std::string name, Unit u, Samples& v, bool stream_only) {
      if (stream_only && !facts_.stream) return na_row(std::move(name), u, "non-streaming");
      return make_row(std::move(name), u, v, "no values", rule_.pct);
    };
    m.rows.push_back(row("E2EL", Unit::Ms, e2el_, false));
    m.rows.push_back(row("TTFT", Unit::Ms, ttft_, true));
    m.rows.push_back(row("TPOT", Unit::Ms, tpot_, true));
    m.rows.push_back(row("ITL", Unit::Ms, itl_, true));
    m.rows.push_back(row("InputTokens", Unit::Tokens, in_tok_, false));
    m.rows.push_back(row("OutputTokens", Unit::Tokens, out_tok_, false));
    m.rows.push_back(row("OutputTokenThroughput", Unit::TokensPerS, out_tput_, false));
    m.rows.push_back(row("PrefillTokenThroughput", Unit::TokensPerS, prefill_tput_, true));
    add_common(m, t_, facts_, false);
    return m;
  }

 private:
  void columns(std::vector<std::pair<Samples*, PercentileMethod>>& out) override {
    add_columns(out, rule_.pct, {&e2el_, &ttft_, &tpot_, &itl_, &in_tok_, &out_tok_, &out_tput_, &prefill_tput_});
  }

  RunFacts facts_;
  Definitions d_;
  PeerRules rule_;
  bool side_only_;  // only the side-by-side column is wanted: per-request token rows are skipped
  Totals t_;
  Samples e2el_, ttft_, tpot_, itl_, in_tok_, out_tok_, out_tput_, prefill_tput_;
  int64_t first_sent_ = INT64_MAX, last_end_ = INT64_MIN;
};

std::unique_ptr<Accumulator> make_accumulator(const RunFacts& facts, Definitions d, bool side_only) {
  switch (d) {
    case Definitions::Tokbench: return std::make_unique<TokbenchAccumulator>(facts);
    case Definitions::Aisbench: return std::make_unique<AisbenchAccumulator>(facts, side_only);
    default: return std::make_unique<PeerAccumulator>(facts, d, side_only);
  }
}

}  // namespace

struct MetricsPass::Impl {
  std::vector<std::unique_ptr<Accumulator>> sets;
  PeakInFlight peak;
  GoodputSpec goodput;
  int64_t judged = 0, good = 0;  ///< measured requests (failures included), and those meeting every SLO
};

MetricsPass::MetricsPass(const RunFacts& facts, const std::vector<Definitions>& sets,
                         const std::vector<Definitions>& side_only)
    : impl_(std::make_unique<Impl>()) {
  impl_->goodput = facts.goodput;
  for (auto d : sets)
    impl_->sets.push_back(make_accumulator(facts, d, std::find(side_only.begin(), side_only.end(), d) != side_only.end()));
}
MetricsPass::~MetricsPass() = default;
MetricsPass::MetricsPass(MetricsPass&&) noexcept = default;

void MetricsPass::add(const RequestRecord& r) {
  if (r.warmup || r.outcome == record::Outcome::Cut) return;  // cut at a duration's end: neither success nor failure
  if (!impl_->goodput.empty()) {
    ++impl_->judged;
    if (judge_slo(r, impl_->goodput).good) ++impl_->good;
  }
  impl_->peak.add(r);
  for (auto& a : impl_->sets) a->add(r);
}

std::vector<MetricSet> MetricsPass::finish() {
  // Merging the columns is most of the work over a long run: columns are independent (a file
  // each), so they are summarized on every core first; finish() then reads the kept results.
  std::vector<std::pair<Samples*, PercentileMethod>> cols;
  for (auto& a : impl_->sets) a->columns(cols);
  std::atomic<size_t> next{0};
  std::mutex mu;
  std::exception_ptr error;  // a spill that cannot be read back: rethrown here, on the caller's thread
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < cols.size();) {
      try {
        cols[i].first->precompute(cols[i].second);
      } catch (...) {
        std::lock_guard lock(mu);
        if (!error) error = std::current_exception();
      }
    }
  };
  const size_t threads = std::min<size_t>(std::max(1u, std::thread::hardware_concurrency()), 8);
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
  const int64_t peak = impl_->peak.finish();
  std::vector<MetricSet> out;
  for (auto& a : impl_->sets) {
    out.push_back(a->finish());
    out.back().observed_max_concurrency = peak;
    for (auto& c : out.back().common)
      if (c.key == "peak_concurrency") c.value = static_cast<double>(peak);
    if (!impl_->goodput.empty()) add_goodput(out.back());
  }
  return out;
}

// Goodput (vLLM's request_goodput, DistServe's): requests meeting every SLO, per second of this
// set's benchmark duration; the SLOs are judged under tokbench's definitions whatever the set.
void MetricsPass::add_goodput(MetricSet& m) const {
  const auto* dur = m.common_metric("benchmark_duration");
  const double dur_s = dur ? dur->value / 1000 : 0;
  const double good = static_cast<double>(impl_->good);
  m.common.push_back({"Request Goodput", "request_goodput", dur_s > 0 ? good / dur_s : 0.0, Unit::ReqPerS});
  m.common.push_back({"Good Requests", "good_requests", good, Unit::Requests});
  m.common.push_back({"SLO Attainment", "slo_attainment_percent",
                      impl_->judged > 0 ? 100.0 * good / static_cast<double>(impl_->judged) : 0.0, Unit::None});
  m.notes.push_back(fmt::format("goodput: a request is good when it succeeded and met every SLO of --goodput '{}' (ms, "
                                "tokbench's definitions; failed requests count against SLO Attainment)",
                                impl_->goodput.to_string()));
}

MetricSet compute(const std::vector<RequestRecord>& records, const RunFacts& facts, Definitions definitions) {
  MetricsPass pass(facts, {definitions});
  for (const auto& r : records) pass.add(r);
  return std::move(pass.finish().front());
}

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

std::optional<double> request_value(const RequestRecord& r, std::string_view metric) {
  if (r.warmup || !r.ok()) return std::nullopt;
  const double e2e = static_cast<double>(r.done_ns - r.sent_ns);
  const int64_t n = output_tokens(r);
  if (metric == "E2EL") return e2e / kNsPerMs;
  if (metric == "OutputTokenThroughput") {
    return e2e > 0 ? std::optional<double>(static_cast<double>(n) / (e2e / kNsPerS)) : std::nullopt;
  }
  if (!r.stream || r.first_token_ns == kNone) return std::nullopt;
  if (metric != "TTFT" && metric != "TPOT") return std::nullopt;
  // One value per request: with n > 1, the mean over its choices (each timed on its own stream).
  double sum = 0;
  int64_t k = 0;
  for_each_choice(r, [&](const RequestRecord& c, bool) {
    const int64_t out = output_tokens(c);
    if (c.first_token_ns == kNone) return;
    if (metric == "TTFT") {
      sum += static_cast<double>(c.first_token_ns - c.sent_ns) / kNsPerMs;
      ++k;
    } else if (out > 1 && c.last_token_ns != kNone) {
      sum += static_cast<double>(c.last_token_ns - c.first_token_ns) / kNsPerMs / static_cast<double>(out - 1);
      ++k;
    }
  });
  return k > 0 ? std::optional<double>(sum / static_cast<double>(k)) : std::nullopt;
}

DefinitionColumn definition_column(const MetricSet& m) {
  DefinitionColumn c{m.definitions, {}, {}, {}, {}, 0};
  auto take = [&](const char* name) { return m.row(name) ? m.row(name)->stats : std::nullopt; };
  c.ttft = take("TTFT");
  c.tpot = take("TPOT");
  c.itl = take("ITL");
  c.e2el = take("E2EL");
  c.output_token_throughput = m.common_metric("output_token_throughput")->value;
  return c;
}

std::vector<DefinitionColumn> definitions_side_by_side(const std::vector<RequestRecord>& records, const RunFacts& facts) {
  const std::vector<Definitions> all(std::begin(kAllDefinitions), std::end(kAllDefinitions));
  MetricsPass pass(facts, all, all);
  for (const auto& r : records) pass.add(r);
  std::vector<DefinitionColumn> out;
  for (const auto& m : pass.finish()) out.push_back(definition_column(m));
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

std::optional<double> statistic(const Summary& s, std::string_view stat) {
  if (stat == "mean") return s.mean;
  if (stat == "median" || stat == "p50") return s.median;
  if (stat == "p75") return s.p75;
  if (stat == "p90") return s.p90;
  if (stat == "p99") return s.p99;
  if (stat == "min") return s.min;
  if (stat == "max") return s.max;
  return std::nullopt;
}

std::optional<double> row_statistic(const MetricSet& m, std::string_view row, std::string_view stat) {
  const Row* r = m.row(row);
  if (!r || !r->stats || r->stats->n == 0) return std::nullopt;
  return statistic(*r->stats, stat);
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

}  // namespace tokbench::metrics
