#include "metrics/live_tally.hpp"

#include <algorithm>
#include <array>

#include "metrics/metrics.hpp"

namespace tokbench::metrics {

using record::kNone;
using record::Outcome;

namespace {

// OpenTelemetry semantic conventions, gen-ai-metrics.md, ExplicitBucketBoundaries advice.
constexpr std::array<double, 14> kDurationS = {0.01, 0.02, 0.04, 0.08,  0.16,  0.32,  0.64,
                                               1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92};
constexpr std::array<double, 16> kFirstTokenS = {0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1,
                                                 0.25,  0.5,   0.75, 1.0,  2.5,  5.0,  7.5,  10.0};
constexpr std::array<double, 13> kPerTokenS = {0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2,
                                               0.3,  0.4,   0.5,  0.75,  1.0, 2.5};
constexpr std::array<double, 14> kTokens = {
    1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864};
constexpr double kNsPerS = 1e9;

double seconds(int64_t ns) { return static_cast<double>(ns) / kNsPerS; }

}  // namespace

BucketHistogram::BucketHistogram(std::span<const double> edges)
    : bounds(edges.begin(), edges.end()), counts(edges.size() + 1, 0) {}

void BucketHistogram::add(double v) {
  const auto at = std::lower_bound(bounds.begin(), bounds.end(), v);  // first bound >= v
  ++counts[static_cast<size_t>(at - bounds.begin())];
  ++count;
  sum += v;
}

ClassTally::ClassTally()
    : e2el_s(kDurationS),
      ttft_s(kFirstTokenS),
      tpot_s(kPerTokenS),
      first_chunk_s(kFirstTokenS),
      chunk_gap_s(kPerTokenS),
      input_tokens(kTokens),
      output_tokens(kTokens) {}

std::string_view outcome_category(Outcome o) {
  switch (o) {
    case Outcome::Ok:
      return "ok";
    case Outcome::ClientCancelled:
    case Outcome::Cancelled:
      return "cancelled";
    case Outcome::Cut:
      return "cut";
    default:
      return "failed";
  }
}

void LiveTally::add(const record::RequestRecord& r) {
  if (r.warmup) return;
  std::lock_guard lock(mu_);
  ClassTally& c = classes_[r.traffic_class];
  const std::string_view category = outcome_category(r.outcome);
  if (category == "ok") ++c.ok;
  if (category == "failed") ++c.failed;
  if (category == "cancelled") ++c.cancelled;
  if (category == "cut") ++c.cut;
  if (!r.ok()) return;
  if (r.sent_ns != kNone && r.done_ns != kNone) c.e2el_s.add(seconds(r.done_ns - r.sent_ns));
  if (const int64_t in = input_tokens(r); in != kNone) c.input_tokens.add(static_cast<double>(in));
  const int64_t out = output_tokens(r);
  if (out != kNone) c.output_tokens.add(static_cast<double>(out));
  if (!r.stream) return;
  if (r.first_event_ns != kNone) c.first_chunk_s.add(seconds(r.first_event_ns - r.sent_ns));
  if (r.first_token_ns == kNone) return;
  c.ttft_s.add(seconds(r.first_token_ns - r.sent_ns));
  if (out > 1 && r.last_token_ns != kNone)
    c.tpot_s.add(seconds(r.last_token_ns - r.first_token_ns) / static_cast<double>(out - 1));
  int64_t prev = kNone;
  for (const auto& chunk : r.chunks) {
    if (!chunk.has_text()) continue;
    if (prev != kNone) c.chunk_gap_s.add(seconds(chunk.t_ns - prev));
    prev = chunk.t_ns;
  }
}

std::map<std::string, ClassTally> LiveTally::snapshot() const {
  std::lock_guard lock(mu_);
  return classes_;
}

}  // namespace tokbench::metrics
