#pragma once
// metrics/waterfall: where each request's time went, the client's stamps joined to the server's
// span of it (record/server_span, --otlp-receive) by trace id — its traceparent's. Seven phases
// (docs/METRICS.md, "Waterfall"): schedule lag (scheduled → sent), to the server (sent → the
// span's start), queue, prefill and decode (the span's own times), the rest of the server's span
// (its start to end less those three: the API server's parsing, tokenizing, detokenizing), and
// delivery (the span's end → the client's last byte). Sent, to-server and delivery cross the two
// clocks: the client's is put on the wall at the run's start (server_spans.jsonl's header), so
// on one host they are exact, across hosts as good as the clocks' sync (a negative value says
// the clocks disagree). E2EL = to the server + the span + delivery. The requests are ranked by
// E2EL and each phase's mean is given per bucket (P0–50, P50–90, P90–99, P99–100): what makes
// the slow ones slow. A request whose time outside the server (schedule lag, to the server,
// delivery) is over --client-share-budget % of its schedule lag + E2EL is named.
#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "record/record.hpp"
#include "record/server_span.hpp"

namespace tokbench::metrics {

inline constexpr std::array<const char*, 7> kWaterfallPhases{
    "schedule_lag", "to_server", "queue", "prefill", "decode", "server_other", "delivery"};

struct WaterfallRow {
  int64_t index = 0;
  std::string traffic_class, request_id;
  std::array<double, 7> ms{};  ///< kWaterfallPhases' order
  double e2el_ms = 0;
  double client_share = 0;  ///< (schedule lag + to server + delivery) / (schedule lag + E2EL)
};

struct WaterfallBucket {
  std::string name;  ///< "P0-50", "P50-90", "P90-99", "P99-100"
  int64_t n = 0;
  std::array<double, 7> mean_ms{};
  double e2el_mean_ms = 0;
};

struct Waterfall {
  int64_t measured = 0;            ///< measured successful requests
  int64_t untraced = 0;            ///< of them, sent without a traceparent
  int64_t unjoined = 0;            ///< with one, but no span of its trace came
  int64_t no_times = 0;            ///< joined, but the span lacks queue, prefill or decode
  std::vector<WaterfallRow> rows;  ///< the joined requests with times, in E2EL order
  std::vector<WaterfallBucket> buckets;
  double budget = 10;              ///< %
  std::vector<WaterfallRow> over;  ///< over the budget, the largest share first (at most 100)
  int64_t over_count = 0;
  record::ServerSpansHeader header;
};

/// Fed each record (those measured and successful are joined); finish() ranks them.
class WaterfallPass {
 public:
  WaterfallPass(record::ServerSpansHeader header,
                std::unordered_map<std::string, record::ServerSpan> by_trace);
  void add(const record::RequestRecord& r);
  Waterfall finish();

 private:
  std::unordered_map<std::string, record::ServerSpan> by_trace_;
  Waterfall w_;
};

}  // namespace tokbench::metrics
