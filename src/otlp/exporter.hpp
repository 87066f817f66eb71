#pragma once
// otlp/exporter: sends spans to an OTLP/HTTP endpoint (http/protobuf, POST <url>) in batches from
// its own thread, as an SDK's BatchSpanProcessor does: add() only queues (never a network call on
// the caller's path), a batch goes out every `interval_ms` or at `batch` spans, the queue is
// bounded (spans past it are counted, not held), and stop() sends what is left.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "otlp/span.hpp"

namespace tokbench::otlp {

struct ExporterStats {
  int64_t exported = 0;  ///< spans the endpoint took (HTTP 2xx)
  int64_t failed = 0;    ///< spans in batches it refused or never got
  int64_t dropped = 0;   ///< spans past the queue's bound
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

  void add(Span span);
  /// Sends what is queued and stops the thread (idempotent).
  void stop();
  ExporterStats stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tokbench::otlp
