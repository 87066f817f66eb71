#include "probe/server_spans.hpp"

#include <fmt/format.h>

#include <chrono>
#include <fstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "common/clock.hpp"
#include "common/listen_address.hpp"
#include "otlp/receiver.hpp"

namespace tokbench::probe {

namespace {

// vLLM's span attributes (vllm/tracing.py SpanAttributes), in seconds.
record::ServerSpan server_span(const otlp::Span& s) {
  record::ServerSpan out;
  out.trace_id = s.trace_id;
  out.span_id = s.span_id;
  out.parent_span_id = s.parent_span_id;
  out.name = s.name;
  out.request_id = s.text("gen_ai.request.id").value_or("");
  out.start_unix_ns = static_cast<int64_t>(s.start_unix_ns);
  out.end_unix_ns = static_cast<int64_t>(s.end_unix_ns);
  out.queue_s = s.number("gen_ai.latency.time_in_queue").value_or(-1);
  out.prefill_s = s.number("gen_ai.latency.time_in_model_prefill").value_or(-1);
  out.decode_s = s.number("gen_ai.latency.time_in_model_decode").value_or(-1);
  return out;
}

}  // namespace

// Held across takes at most as many as the receiver holds at once: the rest are counted.
void SpanSink::keep(std::vector<otlp::Span>& spans, std::vector<otlp::Span>& more) {
  for (auto& s : more) {
    if (spans.size() >= otlp::Receiver::kDefaultMaxSpans) {
      ++dropped_;
      continue;
    }
    spans.push_back(std::move(s));
  }
}

SpanSink::SpanSink(const std::string& listen) : receiver_(std::make_unique<otlp::Receiver>()) {
  std::string why;
  const auto at = parse_listen_address(listen, &why);
  if (!at)
    throw std::runtime_error(fmt::format("--otlp-receive: bad value '{}' ({})", listen, why));
  const uint16_t port = receiver_->start(at->host, at->port);
  const bool v6 = at->host.find(':') != std::string::npos;
  where_ = v6 ? fmt::format("[{}]:{}", at->host, port) : fmt::format("{}:{}", at->host, port);
}

SpanSink::~SpanSink() { receiver_->stop(); }

record::ServerSpansHeader SpanSink::finish(int64_t expected, double wait_s, int64_t origin_unix_ns,
                                           double client_share_budget,
                                           const std::filesystem::path& file) {
  std::vector<otlp::Span> spans;
  const int64_t deadline = steady_now_ns() + static_cast<int64_t>(wait_s * 1e9);
  int64_t last_new = steady_now_ns();
  for (;;) {
    auto more = receiver_->take();
    if (!more.empty()) last_new = steady_now_ns();
    keep(spans, more);
    const int64_t now = steady_now_ns();
    const bool all_in = static_cast<int64_t>(spans.size()) >= expected &&
                        now - last_new >= 1'000'000'000;  // and a second with none (other ranks')
    if (all_in || now >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  receiver_->stop();
  auto last = receiver_->take();
  keep(spans, last);
  const otlp::ReceiverStats stats = receiver_->stats();
  record::ServerSpansHeader h;
  h.origin_unix_ns = origin_unix_ns;
  h.client_share_budget = client_share_budget;
  h.listen = where_;
  h.exports = stats.exports;
  h.refused = stats.refused;
  h.dropped = static_cast<int64_t>(stats.dropped) + dropped_;
  h.spans = static_cast<int64_t>(spans.size());
  h.last_error = stats.last_error;
  const std::filesystem::path tmp = file.string() + ".tmp";
  {
    std::ofstream out(tmp);
    out << record::to_json_line(h) << '\n';
    for (const auto& s : spans) out << record::to_json_line(server_span(s)) << '\n';
  }
  std::filesystem::rename(tmp, file);
  return h;
}

}  // namespace tokbench::probe
