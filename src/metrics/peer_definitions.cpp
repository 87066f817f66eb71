// metrics/peer_definitions: the same records under the other tools' definitions, as each codes
// them — AISBench's summarizer, and EvalScope perf, vllm bench serve and SGLang bench_serving
// (docs/METRICS.md, "Other tools' definitions"). Shares its rows and totals with tokbench's own
// definitions through metrics/accumulator.hpp.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "metrics/accumulator.hpp"

namespace tokbench::metrics {

using record::ChunkKind;
using record::kNone;
using record::RequestRecord;
using namespace detail;

namespace {

// ---- AISBench's definitions, as coded in its summarizer (reference/aisbench.md §3) -----------

Summary round_summary(Summary s, double scale) {
  for (double* v : {&s.mean, &s.min, &s.max, &s.median, &s.p75, &s.p90, &s.p99})
    *v = round_to(*v, 4) * scale;
  return s;
}

Row ais_row(std::string name, Unit unit, Samples& values, double scale, int64_t n_override,
            std::string na) {
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
  AisbenchAccumulator(const RunFacts& facts, bool side_only)
      : facts_(facts), side_only_(side_only) {}

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
    if (!side_only_)
      push_summed(prefill_tput_, prefill_sum_, first > 0 ? static_cast<double>(in) / first : 0.0);
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
    m.rows.push_back(ttft_sum_ > 1e-12 ? ais_row("TTFT", Unit::Ms, ttft_, 1000, -1, "")
                                       : na_row("TTFT", Unit::Ms, dropped));
    m.rows.push_back(tpot_sum_ > 1e-12 ? ais_row("TPOT", Unit::Ms, tpot_, 1000, itl_n_, "")
                                       : na_row("TPOT", Unit::Ms, dropped));
    m.rows.push_back(has_itl_ ? ais_row("ITL", Unit::Ms, itl_, 1000, itl_n_, "")
                              : na_row("ITL", Unit::Ms, dropped));
    m.rows.push_back(ais_row("InputTokens", Unit::Tokens, in_tok_, 1, -1, "no successful request"));
    m.rows.push_back(
        ais_row("OutputTokens", Unit::Tokens, out_tok_, 1, -1, "no successful request"));
    m.rows.push_back(ais_row("OutputTokenThroughput", Unit::TokensPerS, out_tput_, 1, -1,
                             "no successful request"));
    m.rows.push_back(
        prefill_sum_ > 0
            ? ais_row("PrefillTokenThroughput", Unit::TokensPerS, prefill_tput_, 1, -1, "")
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
    add_columns(out, PercentileMethod::Linear,
                {&e2el_, &ttft_, &tpot_, &itl_, &in_tok_, &out_tok_, &out_tput_, &prefill_tput_});
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
  bool itl_text_chunks_only;  // SGLang: gaps between content chunks; others: chunks with choices
  bool zero_tpot_for_short;   // EvalScope keeps TPOT 0 for outputs of <= 1 token
  bool duration_to_done;      // vLLM/SGLang: dispatch .. gather end; EvalScope: .. last completion
  PercentileMethod pct;
};

PeerRules rules_for(Definitions d) {
  using F = PeerRules::First;
  using E = PeerRules::End;
  switch (d) {
    case Definitions::Evalscope:
      return {F::EventWithChoices,           E::LastEvent, false, true, false,
              PercentileMethod::NearestLower};
    case Definitions::Vllm:
      return {F::EventWithChoices,     E::LastWithChoices, false, false, true,
              PercentileMethod::Linear};
    default:
      return {F::Text, E::Done, true, false, true, PercentileMethod::Linear};  // Sglang
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

void for_each_peer_gap(const RequestRecord& r, Definitions d,
                       const std::function<void(double gap_ns)>& fn, bool per_token_counts) {
  const bool text_only = rules_for(d).itl_text_chunks_only;
  // bench_serving's native /generate backend: a gap is split evenly over the chunk's new tokens
  // (meta_info.completion_tokens deltas): [gap / k] * k.
  const bool split = per_token_counts && d == Definitions::Sglang;
  int64_t prev = kNone, prev_cum = 0;
  for (const auto& c : r.chunks) {
    if (text_only ? !c.has_text() : c.kind == ChunkKind::Usage) continue;
    const int64_t k =
        split && c.cum_tokens >= 0 ? std::max<int64_t>(1, c.cum_tokens - prev_cum) : 1;
    if (c.cum_tokens >= 0) prev_cum = c.cum_tokens;
    if (prev != kNone) {
      for (int64_t i = 0; i < k; ++i)
        fn(static_cast<double>(c.t_ns - prev) / static_cast<double>(k));
    }
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
    const int64_t in = r.expected_prompt_tokens != kNone && d_ == Definitions::Sglang
                           ? r.expected_prompt_tokens
                           : input_tokens(r);
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
    if (in != kNone && first_ns > 0 && !side_only_)
      prefill_tput_.push(static_cast<double>(in) / (first_ns / kNsPerS));
    if (out > 1) {
      tpot_.push((e2e - first_ns) / kNsPerMs / static_cast<double>(out - 1));
    } else if (rule_.zero_tpot_for_short) {
      tpot_.push(0.0);
    }
    for_each_peer_gap(
        r, d_, [&](double gap_ns) { itl_.push(gap_ns / kNsPerMs); }, facts_.per_token_counts);
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
    add_columns(out, rule_.pct,
                {&e2el_, &ttft_, &tpot_, &itl_, &in_tok_, &out_tok_, &out_tput_, &prefill_tput_});
  }

  RunFacts facts_;
  Definitions d_;
  PeerRules rule_;
  bool side_only_;  // only the side-by-side column is wanted: per-request token rows are skipped
  Totals t_;
  Samples e2el_, ttft_, tpot_, itl_, in_tok_, out_tok_, out_tput_, prefill_tput_;
  int64_t first_sent_ = INT64_MAX, last_end_ = INT64_MIN;
};

}  // namespace

namespace detail {
std::unique_ptr<Accumulator> make_aisbench_accumulator(const RunFacts& facts, bool side_only) {
  return std::make_unique<AisbenchAccumulator>(facts, side_only);
}
std::unique_ptr<Accumulator> make_peer_accumulator(const RunFacts& facts, Definitions d,
                                                   bool side_only) {
  return std::make_unique<PeerAccumulator>(facts, d, side_only);
}
}  // namespace detail

}  // namespace tokbench::metrics
