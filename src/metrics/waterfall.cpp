#include "metrics/waterfall.hpp"

#include <algorithm>
#include <cmath>

namespace tokbench::metrics {

WaterfallPass::WaterfallPass(record::ServerSpansHeader header,
                             std::unordered_map<std::string, record::ServerSpan> by_trace)
    : by_trace_(std::move(by_trace)) {
  w_.budget = header.client_share_budget;
  w_.header = std::move(header);
}

void WaterfallPass::add(const record::RequestRecord& r) {
  if (r.warmup || !r.ok() || r.sent_ns == record::kNone || r.done_ns == record::kNone) return;
  ++w_.measured;
  // "00-<32 hex trace id>-<16 hex span id>-01"
  if (r.traceparent.size() < 35) {
    ++w_.untraced;
    return;
  }
  const auto it = by_trace_.find(r.traceparent.substr(3, 32));
  if (it == by_trace_.end()) {
    ++w_.unjoined;
    return;
  }
  const record::ServerSpan& s = it->second;
  if (s.queue_s < 0 || s.prefill_s < 0 || s.decode_s < 0) {
    ++w_.no_times;
    return;
  }
  WaterfallRow row;
  row.index = r.index;
  row.traffic_class = r.traffic_class;
  row.request_id = r.request_id;
  // In whole ns (the span's seconds rounded to them), so the phases add up without a remainder.
  const int64_t origin = w_.header.origin_unix_ns;
  auto ns = [](double seconds) { return std::llround(seconds * 1e9); };
  const int64_t queue = ns(s.queue_s), prefill = ns(s.prefill_s), decode = ns(s.decode_s);
  const int64_t phases[7] = {r.scheduled_ns != record::kNone ? r.sent_ns - r.scheduled_ns : 0,
                             s.start_unix_ns - (origin + r.sent_ns),
                             queue,
                             prefill,
                             decode,
                             (s.end_unix_ns - s.start_unix_ns) - queue - prefill - decode,
                             (origin + r.done_ns) - s.end_unix_ns};
  for (size_t k = 0; k < row.ms.size(); ++k) row.ms[k] = static_cast<double>(phases[k]) / 1e6;
  row.e2el_ms = static_cast<double>(r.done_ns - r.sent_ns) / 1e6;
  const double outside = row.ms[0] + row.ms[1] + row.ms[6];
  const double whole = row.ms[0] + row.e2el_ms;
  row.client_share = whole > 0 ? outside / whole : 0;
  w_.rows.push_back(std::move(row));
}

Waterfall WaterfallPass::finish() {
  auto& rows = w_.rows;
  std::sort(rows.begin(), rows.end(),
            [](const WaterfallRow& a, const WaterfallRow& b) { return a.e2el_ms < b.e2el_ms; });
  // Bucket by rank: the request at position i of n is at percentile 100·(i+1)/n.
  const std::array<std::pair<const char*, double>, 4> edges{
      {{"P0-50", 50}, {"P50-90", 90}, {"P90-99", 99}, {"P99-100", 100}}};
  const size_t n = rows.size();
  size_t at = 0;
  for (const auto& [name, upto] : edges) {
    WaterfallBucket b;
    b.name = name;
    for (; at < n && 100.0 * static_cast<double>(at + 1) / static_cast<double>(n) <= upto + 1e-9;
         ++at) {
      ++b.n;
      for (size_t k = 0; k < b.mean_ms.size(); ++k) b.mean_ms[k] += rows[at].ms[k];
      b.e2el_mean_ms += rows[at].e2el_ms;
    }
    if (b.n == 0) continue;
    for (auto& m : b.mean_ms) m /= static_cast<double>(b.n);
    b.e2el_mean_ms /= static_cast<double>(b.n);
    w_.buckets.push_back(std::move(b));
  }
  for (const auto& r : rows)
    if (100 * r.client_share > w_.budget) {
      ++w_.over_count;
      w_.over.push_back(r);
    }
  std::sort(w_.over.begin(), w_.over.end(), [](const WaterfallRow& a, const WaterfallRow& b) {
    return a.client_share > b.client_share;
  });
  if (w_.over.size() > 100) w_.over.resize(100);
  return std::move(w_);
}

}  // namespace tokbench::metrics
