#pragma once
// probe/server_spans: --otlp-receive during a load point — an OTLP receiver (otlp/receiver) the
// server's exporter sends its spans to while the point runs; after the measured phase it waits
// (bounded) for the spans still due and writes them, read as record::ServerSpan (vLLM's
// `llm_request` attribute names), to the point's server_spans.jsonl, which metrics/waterfall joins
// to the records by trace id.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "record/server_span.hpp"

namespace tokbench::otlp {
class Receiver;
struct Span;
}  // namespace tokbench::otlp

namespace tokbench::probe {

class SpanSink {
 public:
  /// Listens where `listen` says ("PORT" or "HOST:PORT"). Throws std::runtime_error naming the
  /// flag and the fix when it cannot.
  explicit SpanSink(const std::string& listen);
  ~SpanSink();
  /// host:port it listens on (the port the kernel gave for port 0).
  const std::string& where() const { return where_; }
  /// Waits until `expected` spans are in and none came for a second, or `wait_s` passed; then
  /// writes the header and every span to `file` (a temporary renamed into place) and stops.
  record::ServerSpansHeader finish(int64_t expected, double wait_s, int64_t origin_unix_ns,
                                   double client_share_budget, const std::filesystem::path& file);

 private:
  void keep(std::vector<otlp::Span>& spans, std::vector<otlp::Span>& more);
  std::unique_ptr<otlp::Receiver> receiver_;
  std::string where_;
  int64_t dropped_ = 0;  ///< spans past the cap, not held
};

}  // namespace tokbench::probe
