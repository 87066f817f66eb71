// metrics/tokens: what one record says about its output tokens — how many (usage, the local
// tokenizer, or text chunks), and when each arrived or the gap before it (per-chunk counts from
// cumulative usage, else spread evenly and flagged as an estimate); with n > 1, each choice's
// stream apart. Shared by every definition set, the stable stage and the slices.
#include <algorithm>
#include <map>

#include "metrics/metrics.hpp"

namespace tokbench::metrics {

using record::kNone;
using record::RequestRecord;

int64_t output_tokens(const RequestRecord& r) {
  if (r.completion_tokens != kNone) return r.completion_tokens;
  if (r.completion_tokens_local != kNone) return r.completion_tokens_local;
  return std::count_if(r.chunks.begin(), r.chunks.end(),
                       [](const auto& c) { return c.has_text(); });
}

int64_t input_tokens(const RequestRecord& r) {
  return r.prompt_tokens != kNone ? r.prompt_tokens : r.prompt_tokens_local;
}

bool for_each_token_gap(const RequestRecord& r, const std::function<void(double, int64_t)>& fn) {
  int64_t texts = 0;
  bool cumulative = true;
  for (const auto& c : r.chunks) {
    if (!c.has_text()) continue;
    ++texts;
    cumulative &= c.cum_tokens >= 0;
  }
  if (texts == 0) return false;
  const int64_t out = output_tokens(r);
  // Tokens per text chunk: from cumulative usage when every text chunk carries it; exactly 1
  // when usage says there are as many tokens as chunks; otherwise spread evenly (estimated):
  // the first chunk holds the first token, the rest share out-1 tokens as evenly as possible.
  const bool estimated = !cumulative && out != texts;
  const int64_t rest = std::max<int64_t>(0, out - 1), m = texts - 1;
  int64_t j = 0, prev_cum = 0, prev_t = kNone;
  for (const auto& c : r.chunks) {
    if (!c.has_text()) continue;
    int64_t k = 1;
    if (cumulative) {
      k = std::max<int64_t>(0, c.cum_tokens - prev_cum);
      prev_cum = std::max<int64_t>(prev_cum, c.cum_tokens);
    } else if (estimated) {
      // In 128 bits: a server may claim any count (a usage bomb), and rest * j must not overflow.
      const auto share = [&](int64_t i) {
        return static_cast<int64_t>(static_cast<__int128>(rest) * i / m);
      };
      k = m == 0 ? std::max<int64_t>(1, out) : j == 0 ? 1 : share(j) - share(j - 1);
    }
    ++j;
    if (k <= 0) continue;  // text without a new token (detokenizer lag): time flows to the next
    if (prev_t == kNone) {
      fn(0.0, k - 1);  // arrived with the first token
    } else {
      fn(static_cast<double>(c.t_ns - prev_t) / static_cast<double>(k), k);
    }
    prev_t = c.t_ns;
  }
  return estimated;
}

std::vector<double> per_token_gaps_ns(const RequestRecord& r, bool* estimated) {
  std::vector<double> gaps;
  *estimated = for_each_token_gap(
      r, [&](double g, int64_t n) { gaps.insert(gaps.end(), static_cast<size_t>(n), g); });
  return gaps;
}

bool for_each_token_arrival(const RequestRecord& r,
                            const std::function<void(int64_t t_ns, double tokens)>& fn) {
  const int64_t out = output_tokens(r);
  int64_t text = 0;
  bool cumulative = false;
  for (const auto& c : r.chunks) {
    text += c.has_text();
    cumulative |= c.has_text() && c.cum_tokens >= 0;
  }
  if (!r.stream || text == 0) {
    fn(r.done_ns, static_cast<double>(out));
    return false;
  }
  const double spread = static_cast<double>(out) / static_cast<double>(text);
  int64_t prev_cum = 0;
  for (const auto& c : r.chunks) {
    if (!c.has_text()) continue;
    double n = spread;
    if (c.cum_tokens >= 0) {
      n = static_cast<double>(c.cum_tokens - prev_cum);
      prev_cum = c.cum_tokens;
    }
    fn(c.t_ns, n);
  }
  return !cumulative && out != text;
}

void for_each_choice(const RequestRecord& r,
                     const std::function<void(const RequestRecord&, bool)>& fn) {
  if (r.choices <= 1 || !r.stream) {
    fn(r, false);
    return;
  }
  // Text chunks per choice index, in index order (std::map: a server may number choices sparsely).
  std::map<int16_t, int64_t> texts;
  int64_t all_texts = 0;
  for (const auto& c : r.chunks) {
    if (c.kind == record::ChunkKind::Usage) continue;
    texts[c.choice] += c.has_text();
    all_texts += c.has_text();
  }
  // Usage counts every choice together. One token per text chunk when the counts agree (vLLM
  // without speculative decoding); otherwise each choice gets its share of the total in proportion
  // to its text chunks, and the split is an estimate.
  const int64_t out = output_tokens(r);
  const bool split = out != all_texts;
  int64_t given = 0, seen = 0;
  for (const auto& [index, n] : texts) {
    RequestRecord one;
    one.index = r.index;
    one.stream = true;
    one.scheduled_ns = r.scheduled_ns;
    one.sent_ns = r.sent_ns;
    one.request_start_ns = r.request_start_ns;
    one.done_ns = r.done_ns;
    one.prompt_tokens = r.prompt_tokens;
    one.prompt_tokens_local = r.prompt_tokens_local;
    seen += n;
    // Cumulative shares, in 128 bits (a server may claim any count): they add up to `out` exactly.
    const int64_t upto =
        all_texts == 0 ? 0 : static_cast<int64_t>(static_cast<__int128>(out) * seen / all_texts);
    one.completion_tokens = split ? upto - given : n;
    given = upto;
    for (const auto& c : r.chunks) {
      if (c.choice != index || c.kind == record::ChunkKind::Usage) continue;
      record::ChunkEvent e = c;
      e.cum_tokens = -1;  // usage counts all choices: no per-choice cumulative count
      one.chunks.push_back(e);
      if (one.first_event_ns == kNone) one.first_event_ns = c.t_ns;
      one.last_event_ns = c.t_ns;
      if (!c.has_text()) continue;
      if (one.first_token_ns == kNone) one.first_token_ns = c.t_ns;
      one.last_token_ns = c.t_ns;
    }
    fn(one, split);
  }
}

}  // namespace tokbench::metrics
