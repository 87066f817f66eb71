#include "metrics/metrics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/format.hpp"
#include "common/parallel.hpp"
#include "common/samples.hpp"
#include "metrics/accumulator.hpp"
#include "metrics/agents.hpp"
#include "metrics/reasoning.hpp"
#include "metrics/server_times.hpp"
#include "metrics/slo.hpp"

namespace tokbench::metrics {

using record::ChunkKind;
using record::kNone;
using record::RequestRecord;

using namespace detail;

namespace {

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

// ---- tokbench's own definitions ---------------------------------------------------------------

class TokbenchAccumulator final : public Accumulator {
 public:
  explicit TokbenchAccumulator(const RunFacts& facts) : facts_(facts) {}

  void add(const RequestRecord& r) override {
    ++t_.total;
    agents_.add(r);  // an agent task's turns, failed ones too (they end the task)
    if (!r.ok()) return;
    ++t_.success;
    t_.documents += r.documents;
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

    const int64_t out =
        facts_.one_shot ? 0 : output_tokens(r);  // a one-shot API generates nothing to count
    if (!facts_.one_shot && r.token_source() == "chunks") ++m_.output_tokens_from_chunks;
    if (!facts_.one_shot && r.token_source() == "tokenizer") ++from_tokenizer_;
    if (r.token_mismatch()) ++mismatches_;
    if (r.expected_prompt_tokens != kNone && r.prompt_tokens != kNone &&
        r.prompt_tokens != r.expected_prompt_tokens)
      ++prompt_off_;
    out_tok_.push(static_cast<double>(out));
    t_.output_tokens = add_tokens(t_.output_tokens, out);
    if (e2e > 0) out_tput_.push(static_cast<double>(out) / (e2e / kNsPerS));
    if (r.cached_tokens != kNone &&
        r.prompt_tokens > 0) {  // the server's prefix-cache hits, from usage
      cached_tokens_ += static_cast<double>(r.cached_tokens);
      cached_of_ += static_cast<double>(r.prompt_tokens);
      ++cached_requests_;
      if (r.cached_tokens > 0) ++cache_hit_requests_;
    }
    if (const int64_t in = input_tokens(r); in != kNone) {
      in_tok_.push(static_cast<double>(in));
      ++t_.input_known;
      t_.input_tokens = add_tokens(t_.input_tokens, in);
    } else {
      ++no_usage_prompt_;
    }

    server_times_.add(r);  // the server's own times of the answer, beside the client's
    reasoning_.add(r);     // the reasoning split, where the answer reasoned first

    if (!r.stream) return;
    if (r.first_event_ns != kNone) ttft_event_.push((r.first_event_ns - r.sent_ns) / kNsPerMs);
    if (r.first_token_ns == kNone) return;  // no generated text: TTFT undefined
    // Prefill ends with the request's first token, whichever choice carries it.
    const double ttft_ns = static_cast<double>(r.first_token_ns - r.sent_ns);
    if (input_tokens(r) != kNone && ttft_ns > 0)
      prefill_tput_.push(static_cast<double>(input_tokens(r)) / (ttft_ns / kNsPerS));
    bool estimated = false;
    if (std::any_of(r.chunks.begin(), r.chunks.end(),
                    [](const auto& c) { return c.kind == ChunkKind::ToolCall; }))
      ++tool_calls_;
    if (r.choices > 1) {
      ++multi_choice_;
      choices_seen_ = std::max(choices_seen_, r.choices);
    }
    for_each_choice(
        r, [&](const RequestRecord& c, bool) { estimated |= add_token_stream(c, intended); });
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
    // The client's own part of that TTFT, where the transport measured both ends of it.
    if (r.first_token_host_ns != kNone && r.request_sent_ns != kNone && r.request_start_ns != kNone)
      client_delay_.push(static_cast<double>((r.request_sent_ns - r.request_start_ns) +
                                             (r.first_token_ns - r.first_token_host_ns)) /
                         kNsPerMs);
    if (intended) ttft_intended_.push((r.first_token_ns - r.scheduled_ns) / kNsPerMs);
    if (out > 1 && r.last_token_ns != kNone)
      tpot_.push(static_cast<double>(r.last_token_ns - r.first_token_ns) / kNsPerMs /
                 static_cast<double>(out - 1));
    const bool estimated =
        for_each_token_gap(r, [&](double g, int64_t n) { itl_.push(g / kNsPerMs, n); });
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
    const char* kOneShot = "one-shot API: nothing is generated";
    auto stream_row = [&](std::string name, Unit u, Samples& v, std::string empty_reason) {
      return facts_.one_shot ? na_row(std::move(name), u, kOneShot)
             : facts_.stream ? make_row(std::move(name), u, v, std::move(empty_reason))
                             : na_row(std::move(name), u, "non-streaming");
    };
    auto output_row = [&](std::string name, Unit u, Samples& v) {
      return facts_.one_shot ? na_row(std::move(name), u, kOneShot)
                             : make_row(std::move(name), u, v, "no successful request");
    };
    m.rows.push_back(make_row("E2EL", Unit::Ms, e2el_, "no successful request"));
    m.rows.push_back(stream_row("TTFT", Unit::Ms, ttft_, "no generated text"));
    m.rows.push_back(stream_row("TPOT", Unit::Ms, tpot_, "no request with more than 1 token"));
    m.rows.push_back(stream_row("ITL", Unit::Ms, itl_, "no request with more than 1 token"));
    m.rows.push_back(make_row("InputTokens", Unit::Tokens, in_tok_, "server sent no usage"));
    m.rows.push_back(output_row("OutputTokens", Unit::Tokens, out_tok_));
    m.rows.push_back(output_row("OutputTokenThroughput", Unit::TokensPerS, out_tput_));
    if (facts_.one_shot && t_.documents > 0) {
      m.notes.push_back(
          "rerank/score: each request scores its documents against its query in one answer; E2EL "
          "is the whole answer (the scores), Document Throughput the documents scored per second, "
          "Input Token Throughput every (query, document) pair's tokens as the server counted "
          "them; nothing is generated (the output rows are n/a)");
    } else if (facts_.one_shot) {
      m.notes.push_back(
          "embeddings/classify/pooling: one input per request, so Request Throughput is inputs per "
          "second; E2EL is the whole answer (the vectors or labels), and nothing is generated (the "
          "output rows are n/a)");
    }
    m.rows.push_back(stream_row("PrefillTokenThroughput", Unit::TokensPerS, prefill_tput_,
                                "no prompt token counts"));
    if (!facts_.stream && !facts_.one_shot) {
      m.notes.push_back(
          "not streamed (--no-stream): the answer arrives whole, so there is no first token to "
          "time; TTFT, "
          "TPOT and ITL are n/a, not the request time (AISBench prints the request time as TTFT "
          "here); "
          "stream to measure them");
    }
    add_notes();
    m.extra_rows.push_back(stream_row("TTFT_FirstEvent", Unit::Ms, ttft_event_, "no events"));
    m.extra_rows.push_back(make_row("SendLag", Unit::Ms, send_lag_, "no schedule"));
    // Latency from the intended send time beside latency from the actual send (wrk2's corrected
    // latency): a request the client or a concurrency cap held back is late here, not hidden.
    const char* closed =
        "closed loop: a request goes when a slot frees, it has no intended send time";
    m.extra_rows.push_back(
        facts_.open_loop ? make_row("E2EL_FromIntended", Unit::Ms, e2el_intended_, "no schedule")
                         : na_row("E2EL_FromIntended", Unit::Ms, closed));
    m.extra_rows.push_back(!facts_.open_loop ? na_row("TTFT_FromIntended", Unit::Ms, closed)
                                             : stream_row("TTFT_FromIntended", Unit::Ms,
                                                          ttft_intended_, "no generated text"));
    if (facts_.open_loop && !e2el_intended_.empty()) {
      m.detail_notes.push_back(fmt::format(
          "E2EL_FromIntended and TTFT_FromIntended count from when the arrival schedule meant "
          "to send each request: {:.3f} ms later than from the send on average (waiting for a "
          "free slot, or a late client)",
          held_back_ns_ / kNsPerMs / static_cast<double>(e2el_intended_.size())));
    }
    m.extra_rows.push_back(
        make_row("HttpConnecting", Unit::Ms, connecting_, "no new connection (or no phase times)"));
    m.extra_rows.push_back(make_row("HttpTlsHandshaking", Unit::Ms, tls_, "no TLS handshake"));
    m.extra_rows.push_back(make_row("HttpWaiting", Unit::Ms, waiting_, "no phase times"));
    m.extra_rows.push_back(
        stream_row("TTFT_FromRequestStart", Unit::Ms, ttft_wire_, "no phase times"));
    m.extra_rows.push_back(stream_row("ClientDelay", Unit::Ms, client_delay_,
                                      "not measured (the socket transport measures it)"));
    if (with_phases_ > 0 && facts_.stream &&
        !facts_.one_shot) {  // the note is about TTFT: only where there is one
      std::string setup;
      if (!connecting_.empty())
        setup = fmt::format(" (TCP connect mean {:.3f} ms", connecting_.summarize().mean);
      if (!setup.empty() && !tls_.empty())
        setup += fmt::format(", then the TLS handshake {:.3f} ms", tls_.summarize().mean);
      if (!setup.empty()) setup += ")";
      m.detail_notes.push_back(fmt::format(
          "{} of {} request(s) opened a new connection{}; TTFT_FromRequestStart is TTFT with "
          "connection set-up ({}) excluded (from the request's start on the wire)",
          new_connections_, with_phases_, setup,
          tls_.empty() ? "TCP connect" : "TCP connect and TLS handshake"));
    }
    m.extra_rows.push_back(
        make_row("SessionLatency", Unit::Ms, session_latency_, "no multi-turn session finished"));
    finish_turns(m);
    if (cached_requests_ > 0)
      m.prefix_cache = PrefixCache{cached_requests_, cache_hit_requests_, cached_tokens_,
                                   cached_of_, !m.turns.empty() || facts_.implied_cache_hit >= 0};
    server_times_.finish(m);
    reasoning_.finish(m);
    agents_.finish(m);
    m.extra_rows.push_back(stream_row("ICL", Unit::Ms, icl_, "no request with 2 text chunks"));
    m.extra_rows.push_back(stream_row("TokensPerChunk", Unit::Tokens, tokens_per_chunk_,
                                      "no request with 2 text chunks"));
    add_common(m, t_, facts_, false);
    agents_.add_common(m);
    return std::move(m_);
  }

 private:
  void add_notes() {
    MetricSet& m = m_;
    if (m.itl_estimated_requests > 0) {
      // Name where the spread count came from: usage, or the local tokenizer when there was none.
      const char* over =
          estimated_by_[1] == 0 ? "usage.completion_tokens"
          : estimated_by_[0] == 0
              ? "the --tokenizer count of the generated text"
              : "usage.completion_tokens (or the --tokenizer count where usage was missing)";
      // --continuous-usage asked and not answered (issue 39, F6: it went unsaid).
      m.rows[3].note = fmt::format(
          "per-chunk token counts unknown for {} request(s): their chunk gaps were spread evenly "
          "over {} ({})",
          m.itl_estimated_requests, over,
          facts_.continuous_usage
              ? "--continuous-usage asked for stream_options.continuous_usage_stats, and the "
                "server did not send per-chunk usage: it ignores that option"
              : "ask the server for stream_options.continuous_usage_stats");
    }
    if (multi_choice_ > 0) {
      m.notes.push_back(
          fmt::format("{} request(s) were answered with more than one choice (n > 1, up to {}): "
                      "TTFT, TPOT, ITL, ICL and "
                      "TokensPerChunk count one sample per choice, each choice's own token stream; "
                      "E2EL, OutputTokens and the "
                      "throughputs are per request (all choices); the other tools' columns merge "
                      "the choices, as those tools do",
                      multi_choice_, choices_seen_));
    }
    if (facts_.implied_cache_hit >= 0) {
      m.notes.push_back(fmt::format(
          "prefix cache: the trace's hash_ids put {:.1f}% of the prompt tokens in an unbounded "
          "cache of full blocks; the "
          "server reported {}",
          100 * facts_.implied_cache_hit,
          cached_of_ > 0
              ? fmt::format("{:.1f}% cached (usage.prompt_tokens_details.cached_tokens)",
                            100 * cached_tokens_ / cached_of_)
              : std::string("no cached_tokens in usage (see its /metrics prefix-cache counters)")));
    }
    if (tool_calls_ > 0) {
      m.notes.push_back(fmt::format(
          "{} request(s) answered with tool calls: their first token is the call's first "
          "delta, their output its arguments",
          tool_calls_));
    }
    if (m.output_tokens_from_chunks > 0) {
      m.notes.push_back(
          fmt::format("{} request(s) had no usage: their output tokens are counted as text chunks "
                      "(pass --tokenizer to count them)",
                      m.output_tokens_from_chunks));
    }
    if (from_tokenizer_ > 0)
      m.notes.push_back(
          fmt::format("{} request(s) had no usage: their tokens were counted with --tokenizer",
                      from_tokenizer_));
    if (mismatches_ > 0) {
      m.notes.push_back(fmt::format(
          "{} request(s): usage.completion_tokens differs from the local tokenizer's count of "
          "the generated text (see token_mismatch in the details)",
          mismatches_));
    }
    if (prompt_off_ > 0) {
      m.notes.push_back(fmt::format(
          "{} request(s): usage.prompt_tokens differs from the input length the prompt was "
          "built to have",
          prompt_off_));
    }
    if (no_usage_prompt_ > 0 && t_.success > 0) {
      m.notes.push_back(
          fmt::format("{} request(s) had no usage.prompt_tokens: input tokens unknown for them "
                      "(--tokenizer counts them)",
                      no_usage_prompt_));
    }
    m.token_mismatches = mismatches_;
  }

  void columns(std::vector<std::pair<Samples*, PercentileMethod>>& out) override {
    add_columns(
        out, PercentileMethod::Linear,
        {&e2el_, &ttft_, &tpot_, &itl_, &in_tok_, &out_tok_, &out_tput_, &prefill_tput_,
         &ttft_event_, &send_lag_, &e2el_intended_, &ttft_intended_, &icl_, &tokens_per_chunk_,
         &connecting_, &tls_, &waiting_, &ttft_wire_, &session_latency_});
    server_times_.columns(out);
    reasoning_.columns(out);
    agents_.columns(out);
  }

  // Multi-turn sessions: sums per turn index (bounded: --turns is at most 10,000), and each
  // finished conversation's latency, first turn handed out to last answer.
  struct TurnSums {
    int64_t n = 0, ttft_n = 0, in_n = 0, cached_n = 0;
    double ttft = 0, e2el = 0, in = 0, cached = 0;
  };
  void add_turn(const RequestRecord& r) {
    if (r.turn == kNone || r.turn < 0 || r.turn >= 10'000) return;
    if (turn_sums_.size() <= static_cast<size_t>(r.turn))
      turn_sums_.resize(static_cast<size_t>(r.turn) + 1);
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
    if (r.last_turn && r.session_start_ns != kNone)
      session_latency_.push((r.done_ns - r.session_start_ns) / kNsPerMs);
  }
  void finish_turns(MetricSet& m) {
    auto mean = [](double sum, int64_t n) {
      return n > 0 ? std::optional<double>(sum / static_cast<double>(n)) : std::nullopt;
    };
    for (size_t i = 0; i < turn_sums_.size(); ++i) {
      const TurnSums& t = turn_sums_[i];
      m.turns.push_back({static_cast<int64_t>(i) + 1, t.n, mean(t.ttft, t.ttft_n),
                         mean(t.e2el, t.n), mean(t.in, t.in_n), mean(t.cached, t.cached_n)});
    }
    if (m.turns.empty()) return;
    std::string per;
    for (const auto& t : m.turns) {
      if (t.turn > 8) {
        per += fmt::format("; … ({} turns, all in result.json: turns)", m.turns.size());
        break;
      }
      auto ms = [](const std::optional<double>& v, const char* unit) {
        return v ? fmt::format("{:.1f}{}", *v, unit) : "n/a";
      };
      per += fmt::format("{}turn {}: TTFT {}, input {}, cached {} (n={})", t.turn == 1 ? "" : "; ",
                         t.turn, ms(t.ttft_ms, " ms"), ms(t.input_tokens, ""),
                         ms(t.cached_tokens, ""), t.requests);
    }
    m.notes.push_back(
        "multi-turn means per turn (each turn's body carries the earlier turns and their real "
        "answers): " +
        per);
  }

  // The HTTP phases (k6's names, as AIPerf reports them): set-up only where a connection was
  // opened; waiting = first response byte after the request's start on the wire.
  void add_phases(const RequestRecord& r) {
    if (r.request_start_ns == kNone) return;
    ++with_phases_;
    if (r.connects > 0) {
      ++new_connections_;
      if (r.connect_done_ns != kNone) connecting_.push((r.connect_done_ns - r.sent_ns) / kNsPerMs);
      if (r.tls_done_ns != kNone && r.connect_done_ns != kNone)
        tls_.push((r.tls_done_ns - r.connect_done_ns) / kNsPerMs);
    }
    if (r.first_byte_ns != kNone) waiting_.push((r.first_byte_ns - r.request_start_ns) / kNsPerMs);
    if (r.stream && r.first_token_ns != kNone)
      ttft_wire_.push((r.first_token_ns - r.request_start_ns) / kNsPerMs);
  }

  RunFacts facts_;
  MetricSet m_;
  Totals t_;
  Samples e2el_, ttft_, tpot_, itl_, in_tok_, out_tok_, out_tput_, prefill_tput_;
  Samples ttft_event_, send_lag_, e2el_intended_, ttft_intended_, icl_, tokens_per_chunk_;
  double held_back_ns_ = 0;  // sum of send lags of the requests in e2el_intended_
  Samples connecting_, tls_, waiting_, ttft_wire_;
  Samples client_delay_;  // the client's own part of TTFT: writing the request, reading the token
  ServerTimes server_times_;  // the server's own times (llama.cpp's timings, Ollama's durations)
  AgentTasks agents_{facts_.goodput};  // agent tasks: model, tool and client time per task
  ReasoningSplit reasoning_;           // reasoning before the answer: its own first token and pace
  int64_t with_phases_ = 0, new_connections_ = 0;
  int64_t first_sent_ = INT64_MAX, last_done_ = INT64_MIN;
  int64_t no_usage_prompt_ = 0, from_tokenizer_ = 0, mismatches_ = 0, prompt_off_ = 0;
  int64_t estimated_by_[3] = {0, 0, 0};  // ITL spread over: usage, the tokenizer, chunks
  int64_t multi_choice_ = 0,
          choices_seen_ = 0;  // n > 1: requests timed per choice, most choices seen
  int64_t tool_calls_ = 0;    // requests answered with tool-call deltas
  double cached_tokens_ = 0,
         cached_of_ = 0;  // usage's cached prompt tokens, of the prompt tokens of those requests
  int64_t cached_requests_ = 0, cache_hit_requests_ = 0;
  std::vector<TurnSums> turn_sums_;
  Samples session_latency_;
};

std::unique_ptr<Accumulator> make_accumulator(const RunFacts& facts, Definitions d,
                                              bool side_only) {
  switch (d) {
    case Definitions::Tokbench:
      return std::make_unique<TokbenchAccumulator>(facts);
    case Definitions::Aisbench:
      return make_aisbench_accumulator(facts, side_only);
    default:
      return make_peer_accumulator(facts, d, side_only);
  }
}

}  // namespace

struct MetricsPass::Impl {
  std::vector<std::unique_ptr<Accumulator>> sets;
  PeakInFlight peak;
  GoodputSpec goodput;
  int64_t judged = 0,
          good = 0;  ///< measured requests (failures included), and those meeting every SLO
  std::optional<QualityPass> quality;
  int64_t client_cancelled = 0;  ///< --cancel-rate's, counted apart
};

MetricsPass::MetricsPass(const RunFacts& facts, const std::vector<Definitions>& sets,
                         const std::vector<Definitions>& side_only)
    : impl_(std::make_unique<Impl>()) {
  impl_->goodput = facts.goodput;
  impl_->quality.emplace(facts.one_shot ? "" : facts.finish_reasons,
                         facts.cap_reason);  // (an older folder lacks the list)
  for (auto d : sets)
    impl_->sets.push_back(make_accumulator(
        facts, d, std::find(side_only.begin(), side_only.end(), d) != side_only.end()));
}
MetricsPass::~MetricsPass() = default;
MetricsPass::MetricsPass(MetricsPass&&) noexcept = default;

void MetricsPass::add(const RequestRecord& r) {
  if (!r.warmup && r.outcome == record::Outcome::ClientCancelled) ++impl_->client_cancelled;
  if (r.warmup || r.apart())
    return;  // cut at a duration's end, or cancelled on purpose: neither success nor failure
  if (!impl_->goodput.empty()) {
    ++impl_->judged;
    if (judge_slo(r, impl_->goodput).good) ++impl_->good;
  }
  impl_->peak.add(r);
  impl_->quality->add(r);
  for (auto& a : impl_->sets) a->add(r);
}

std::vector<MetricSet> MetricsPass::finish() {
  // Merging the columns is most of the work over a long run: columns are independent (a file
  // each), so they are summarized on every core first; finish() then reads the kept results.
  std::vector<std::pair<Samples*, PercentileMethod>> cols;
  for (auto& a : impl_->sets) a->columns(cols);
  // A spill that cannot be read back is rethrown here, on the caller's thread.
  parallel_for(cols.size(), [&](size_t i) { cols[i].first->precompute(cols[i].second); });
  const int64_t peak = impl_->peak.finish();
  std::vector<MetricSet> out;
  for (auto& a : impl_->sets) {
    out.push_back(a->finish());
    out.back().observed_max_concurrency = peak;
    out.back().quality = impl_->quality->finish();
    for (auto& c : out.back().common)
      if (c.key == "peak_concurrency") c.value = static_cast<double>(peak);
    if (impl_->client_cancelled > 0) {  // beside the successes, in no other figure
      auto& common = out.back().common;
      const auto at = std::find_if(common.begin(), common.end(),
                                   [](const Common& c) { return c.key == "success_requests"; });
      common.insert(at == common.end() ? at : at + 1,
                    {"Cancelled Requests", "cancelled_requests",
                     static_cast<double>(impl_->client_cancelled), Unit::Requests});
    }
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
  m.common.push_back(
      {"Request Goodput", "request_goodput", dur_s > 0 ? good / dur_s : 0.0, Unit::ReqPerS});
  m.common.push_back({"Good Requests", "good_requests", good, Unit::Requests});
  m.common.push_back({"SLO Attainment", "slo_attainment_percent",
                      impl_->judged > 0 ? 100.0 * good / static_cast<double>(impl_->judged) : 0.0,
                      Unit::None});
  m.notes.push_back(fmt::format(
      "goodput: a request is good when it succeeded and met every SLO of --goodput '{}' (ms, "
      "tokbench's definitions; failed requests count against SLO Attainment)",
      impl_->goodput.to_string()));
}

MetricSet compute(const std::vector<RequestRecord>& records, const RunFacts& facts,
                  Definitions definitions) {
  MetricsPass pass(facts, {definitions});
  for (const auto& r : records) pass.add(r);
  return std::move(pass.finish().front());
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
      sum += static_cast<double>(c.last_token_ns - c.first_token_ns) / kNsPerMs /
             static_cast<double>(out - 1);
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

std::vector<DefinitionColumn> definitions_side_by_side(const std::vector<RequestRecord>& records,
                                                       const RunFacts& facts) {
  const std::vector<Definitions> all(std::begin(kAllDefinitions), std::end(kAllDefinitions));
  MetricsPass pass(facts, all, all);
  for (const auto& r : records) pass.add(r);
  std::vector<DefinitionColumn> out;
  for (const auto& m : pass.finish()) out.push_back(definition_column(m));
  return out;
}

std::string_view unit_suffix(Unit u) {
  switch (u) {
    case Unit::Ms:
      return "ms";
    case Unit::TokensPerS:
      return "token/s";
    case Unit::ReqPerS:
      return "req/s";
    case Unit::DocsPerS:
      return "doc/s";
    default:
      return "";
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

std::optional<double> row_statistic(const MetricSet& m, std::string_view row,
                                    std::string_view stat) {
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
