#pragma once
// probe/otlp_export: --otlp-endpoint — tokbench's own telemetry to an OpenTelemetry collector
// over OTLP/HTTP (http/protobuf; otlp/exporter). Per measured request one CLIENT span, as the
// GenAI semantic conventions name it ("chat <model>", gen_ai.* attributes), whose ids are the
// traceparent the request carried (so the server's span is its child), with its phases as events
// (scheduled, sent, first_byte, first_token, done) and an error status when it failed; and the
// point's metrics (metrics/live_tally, fed by the caller: requests by outcome, sent, in flight, and
// the GenAI and tokbench latency and token histograms), cumulative from the point's start, every
// OTEL_METRIC_EXPORT_INTERVAL ms (default 10000) and once at its end. Spans are made on the
// recorder's thread and queued; the network is the exporter's thread's: a slow or absent collector
// costs the client's workers nothing (spans past the queue's bound are counted, not held).
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <string_view>

#include "record/record.hpp"

namespace tokbench::otlp {
class Exporter;
}
namespace tokbench::metrics {
class LiveTally;
}

namespace tokbench::probe {

struct OtlpFacts {
  std::string endpoint;  ///< --otlp-endpoint: http://host:port[/prefix]
  std::string api;       ///< the API's name (client/api: "chat", "completions", ...)
  std::string model;     ///< the run's model
  std::string run_id;
  int64_t rank = -1;           ///< mpirun: this rank (an attribute of its metrics), else -1
  int64_t origin_unix_ns = 0;  ///< the run's time 0 on this host's wall clock
};

/// What the export did, for the log and the warning.
struct OtlpExportStats {
  int64_t spans = 0, spans_failed = 0, spans_dropped = 0;
  int64_t metric_exports = 0, metric_failures = 0;
  std::string last_error;
};

class OtlpExport {
 public:
  /// `tally`: the point's counts (fed by the caller); `sent`: measured requests sent so far (for
  /// sent and in flight). Throws std::invalid_argument naming the flag when the endpoint is not an
  /// http:// URL.
  OtlpExport(OtlpFacts facts, std::shared_ptr<const metrics::LiveTally> tally,
             std::function<int64_t()> sent);
  ~OtlpExport();
  /// A finished record's span (measured ones only are exported). The recorder's thread.
  void add(const record::RequestRecord& r);
  /// Sends what is queued and the final metrics; stops.
  OtlpExportStats finish();
  /// Where traces go (the endpoint + /v1/traces), for the console line.
  const std::string& traces_url() const { return traces_url_; }

 private:
  OtlpFacts facts_;
  std::function<int64_t()> sent_;
  std::string traces_url_;
  std::shared_ptr<const metrics::LiveTally> tally_;
  std::unique_ptr<otlp::Exporter> exporter_;
  uint64_t start_unix_ns_ = 0;
  std::mt19937_64 rng_;  ///< span ids of requests sent without a traceparent
};

/// GenAI semantic conventions' gen_ai.operation.name of a tokbench API name ("chat",
/// "text_completion", "embeddings"; others as they are).
std::string gen_ai_operation(std::string_view api);

}  // namespace tokbench::probe
