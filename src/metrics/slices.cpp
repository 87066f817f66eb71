#include "metrics/slices.hpp"

#include <fmt/format.h>

#include <cmath>

#include "metrics/metrics.hpp"

namespace tokbench::metrics {

SliceAccumulator::SliceAccumulator(double slice_s, int64_t t0_ns, int64_t span_ns) : t0_ns_(t0_ns) {
  width_ns_ = std::max<int64_t>(1, static_cast<int64_t>(slice_s * 1e9));
  const int64_t wanted = span_ns / width_ns_ + 1;
  if (wanted > kMaxSlices) {
    const int64_t factor = (wanted + kMaxSlices - 1) / kMaxSlices;
    width_ns_ *= factor;
    note_ = fmt::format(
        "--slice-s {} would make {} slices; widened {}x to {} s so that at most {} are kept",
        slice_s, wanted, factor, static_cast<double>(width_ns_) / 1e9, kMaxSlices);
  }
}

SliceAccumulator::Slice& SliceAccumulator::at(int64_t t_ns) {
  const int64_t k = std::max<int64_t>(0, (t_ns - t0_ns_) / width_ns_);
  return slices_[std::min(k, kMaxSlices - 1)];
}

void SliceAccumulator::add(const record::RequestRecord& r) {
  if (r.warmup || r.apart() || r.sent_ns == record::kNone) return;
  Slice& sent = at(r.sent_ns);
  ++sent.sent;
  if (!r.ok()) {
    ++sent.failed;
    return;
  }
  if (auto v = request_value(r, "TTFT")) sent.ttft.push(*v);
  if (auto v = request_value(r, "TPOT")) sent.tpot.push(*v);
  if (auto v = request_value(r, "E2EL")) sent.e2el.push(*v);
  ++at(r.done_ns).completed;
  for_each_token_arrival(r, [&](int64_t t_ns, double n) { at(t_ns).tokens += n; });
}

std::vector<SliceStats> SliceAccumulator::finish() {
  std::vector<SliceStats> out;
  if (slices_.empty()) return out;
  const int64_t last = slices_.rbegin()->first;
  for (int64_t k = 0; k <= last; ++k) {  // empty slices are shown as such: a stall is a finding
    SliceStats s;
    s.start_s = static_cast<double>(k * width_ns_) / 1e9;
    s.end_s = static_cast<double>((k + 1) * width_ns_) / 1e9;
    if (auto it = slices_.find(k); it != slices_.end()) {
      Slice& x = it->second;
      s.sent = x.sent;
      s.failed = x.failed;
      s.completed = x.completed;
      s.output_tokens = x.tokens;
      s.ttft = x.ttft.summarize();
      s.tpot = x.tpot.summarize();
      s.e2el = x.e2el.summarize();
    }
    out.push_back(s);
  }
  return out;
}

}  // namespace tokbench::metrics
