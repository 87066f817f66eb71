#pragma once
// otlp/receiver: an OTLP/HTTP receiver (POST /v1/traces, http/protobuf) on its own thread,
// for a server's exporter to send its spans to during a run (vLLM: --otlp-traces-endpoint
// http://<this host>:<port>/v1/traces with OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf).
// It answers each export at once (an empty ExportTraceServiceResponse) and keeps the spans, at
// most `max_spans` (the rest counted, never held): nothing from the network sizes its memory.
// It also takes POST /v1/metrics (a collector stand-in for tokbench's own --otlp-endpoint export
// in tests), holding at most `max_spans` data points.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "otlp/metric.hpp"
#include "otlp/span.hpp"

namespace tokbench::otlp {

struct ReceiverStats {
  int64_t exports = 0;         ///< POST /v1/traces bodies taken
  int64_t metric_exports = 0;  ///< POST /v1/metrics bodies taken
  int64_t refused = 0;         ///< bodies refused (not protobuf, over the size cap, malformed)
  size_t dropped = 0;          ///< spans (or data points) past max_spans, not kept
  std::string last_error;      ///< why the last refused body was refused
};

class Receiver {
 public:
  /// The most spans held (a run's requests, each one span, with room for a server's others).
  static constexpr size_t kDefaultMaxSpans = size_t{1} << 20;
  /// The largest export body read (a batch of 512 spans is ~0.5 MB).
  static constexpr size_t kMaxBodyBytes = size_t{32} << 20;

  explicit Receiver(size_t max_spans = kDefaultMaxSpans);
  ~Receiver();
  Receiver(const Receiver&) = delete;
  Receiver& operator=(const Receiver&) = delete;

  /// Listens on host:port (0 = any free port) and serves until stop(); returns the port. Throws
  /// std::runtime_error naming the port and the fix when it cannot listen.
  uint16_t start(const std::string& host, uint16_t port);
  void stop();
  /// The spans received so far (handed over: the next call returns only newer ones).
  std::vector<Span> take();
  /// The metrics received so far, one entry per metric per export (handed over likewise).
  std::vector<Metric> take_metrics();
  ReceiverStats stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tokbench::otlp
