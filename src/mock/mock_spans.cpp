#include "mock/mock_spans.hpp"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <random>
#include <stdexcept>

#include "common/clock.hpp"
#include "otlp/exporter.hpp"
#include "otlp/span.hpp"

namespace tokbench::mock {

namespace {

// Random ids (W3C: not all zero), hex as OTLP's span holds them.
std::string random_hex(size_t digits) {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  std::string out;
  while (out.size() < digits) out += fmt::format("{:016x}", rng() | 1);
  return out.substr(0, digits);
}

int64_t unix_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

double seconds(int64_t ns) { return static_cast<double>(ns) / 1e9; }

}  // namespace

SpanExport::SpanExport(const std::string& endpoint, std::string service)
    : service_(std::move(service)), unix_minus_steady_ns_(unix_now_ns() - steady_now_ns()) {
  try {
    exporter_ = std::make_unique<otlp::Exporter>(endpoint, "vllm.tokbench-mock", 200);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(fmt::format("--otlp-traces-endpoint: {}", e.what()));
  }
}

SpanExport::~SpanExport() { stop(); }

void SpanExport::request_done(std::string_view traceparent, std::string_view id,
                              std::string_view model, const SpanFacts& f) {
  otlp::Span s;
  if (auto parent = otlp::parse_traceparent(traceparent)) {
    s.trace_id = parent->trace_id;
    s.parent_span_id = parent->span_id;
  } else {
    s.trace_id = random_hex(32);
  }
  s.span_id = random_hex(16);
  s.name = "llm_request";
  s.kind = otlp::SpanKind::Server;
  s.service = service_;
  s.start_unix_ns = static_cast<uint64_t>(f.arrival_ns + unix_minus_steady_ns_);
  s.end_unix_ns = static_cast<uint64_t>(f.end_ns + unix_minus_steady_ns_);
  auto text = [&](const char* k, std::string_view v) {
    s.attributes.push_back({k, std::string(v)});
  };
  auto count = [&](const char* k, int64_t v) { s.attributes.push_back({k, v}); };
  auto secs = [&](const char* k, int64_t ns) { s.attributes.push_back({k, seconds(ns)}); };
  text("gen_ai.request.id", id);
  text("gen_ai.response.model", model);
  count("gen_ai.request.max_tokens", f.max_tokens);
  count("gen_ai.usage.prompt_tokens", f.prompt_tokens);
  count("gen_ai.usage.completion_tokens", f.completion_tokens);
  secs("gen_ai.latency.time_in_queue", f.admitted_ns - f.arrival_ns);
  secs("gen_ai.latency.time_to_first_token", f.first_token_ns - f.arrival_ns);
  secs("gen_ai.latency.time_in_model_prefill", f.first_token_ns - f.admitted_ns);
  secs("gen_ai.latency.time_in_model_decode", f.last_token_ns - f.first_token_ns);
  secs("gen_ai.latency.time_in_model_inference", f.last_token_ns - f.admitted_ns);
  secs("gen_ai.latency.e2e", f.end_ns - f.arrival_ns);
  exporter_->add(std::move(s));
}

void SpanExport::stop() {
  if (exporter_) exporter_->stop();
}

int64_t SpanExport::exported() const { return exporter_ ? exporter_->stats().exported : 0; }

}  // namespace tokbench::mock
