#pragma once
// mock/mock_spans: the simulator's --otlp-traces-endpoint — one `llm_request` span per finished
// completion, shaped as vLLM's output processor makes it (vllm/tracing.py SpanAttributes): a
// SERVER span from the request's arrival to the iteration of its last token (before the bytes go
// out), parented to the traceparent the request carried (else a trace of its own), with the
// request's id, model, token counts and its true latencies in seconds — time in queue (admitted −
// arrival), prefill (first token − admitted), decode (last token − first token), inference, time
// to first token and e2e. Sent over OTLP/HTTP (http/protobuf) in batches off the serving threads
// (otlp/exporter), so the waterfall tokbench joins from them has a known answer: the same
// instants the --trace file holds.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace tokbench::otlp {
class Exporter;
}

namespace tokbench::mock {

/// One finished request's instants (steady_clock ns, as the trace file writes them) and counts.
struct SpanFacts {
  int64_t arrival_ns = 0, admitted_ns = 0, first_token_ns = 0, last_token_ns = 0, end_ns = 0;
  int64_t prompt_tokens = 0, completion_tokens = 0, max_tokens = 0;
};

class SpanExport {
 public:
  /// Throws std::invalid_argument naming the flag when `endpoint` is not an http:// URL.
  SpanExport(const std::string& endpoint, std::string service);
  ~SpanExport();
  /// Queues the span of the request `id` (never waits on the network).
  void request_done(std::string_view traceparent, std::string_view id, std::string_view model,
                    const SpanFacts& f);
  /// Sends what is queued (bounded by the exporter's timeouts) and stops.
  void stop();
  int64_t exported() const;

 private:
  std::unique_ptr<otlp::Exporter> exporter_;
  std::string service_;
  int64_t unix_minus_steady_ns_;  ///< a steady instant + this = its wall-clock time
};

}  // namespace tokbench::mock
