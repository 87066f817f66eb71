#pragma once
// otlp/exporter: sends spans to an OTLP/HTTP endpoint (http/protobuf, POST <url>) in batches from
// its own thread, as an SDK's BatchSpanProcessor does: add() only queues (never a network call on
// the caller's path), a batch goes out every `interval_ms` or at `batch` spans, the queue is
// bounded (spans past it are counted, not held), and stop() sends what is left. With
// start_metrics() it also sends metrics from that thread: every interval, and once more at stop()
// after the last spans (the final counts).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "otlp/metric.hpp"
#include "otlp/span.hpp"

namespace tokbench::otlp {

struct ExporterStats {
  int64_t exported = 0;         ///< spans the endpoint took (HTTP 2xx)
  int64_t failed = 0;           ///< spans in batches it refused or never got
  int64_t dropped = 0;          ///< spans past the queue's bound
  int64_t metric_exports = 0;   ///< metric exports the endpoint took
  int64_t metric_failures = 0;  ///< metric exports it refused or never got
  std::string last_error;
};

class Exporter {
 public:
  static constexpr size_t kMaxQueued = size_t{1} << 16;
  /// `url`: http://host:port/path (https is not spoken here). Throws std::invalid_argument naming
  /// the URL when it is not one.
  Exporter(const std::string& url, std::string scope, int interval_ms = 500, size_t batch = 512);
  ~Exporter();
  Exporter(const Exporter&) = delete;
  Exporter& operator=(const Exporter&) = delete;

  /// Sends `collect()`'s metrics (called on the exporter's thread) to `path` on the same host
  /// every `interval_ms` and at stop(), as resource `service`. Call before the first add().
  void start_metrics(std::string path, std::function<std::vector<Metric>()> collect,
                     int interval_ms, std::string service);
  void add(Span span);
  /// Sends what is queued and stops the thread (idempotent).
  void stop();
  ExporterStats stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tokbench::otlp
