#include "probe/otlp_export.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <random>
#include <stdexcept>

#include "metrics/live_tally.hpp"
#include "metrics/metrics.hpp"
#include "otlp/exporter.hpp"

namespace tokbench::probe {

using record::kNone;

namespace {

constexpr int kDefaultMetricIntervalMs = 10000;
constexpr size_t kMaxStatusMessage = 256;

uint64_t unix_now_ns() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}

// OTEL_METRIC_EXPORT_INTERVAL (ms), as an OpenTelemetry SDK reads it; else the default.
int metric_interval_ms() {
  const char* v = std::getenv("OTEL_METRIC_EXPORT_INTERVAL");
  if (!v || !*v) return kDefaultMetricIntervalMs;
  char* end = nullptr;
  const long ms = std::strtol(v, &end, 10);
  return (*end == '\0' && ms >= 100 && ms <= 3600000) ? static_cast<int>(ms)
                                                      : kDefaultMetricIntervalMs;
}

std::string service_name() {
  const char* v = std::getenv("OTEL_SERVICE_NAME");
  return v && *v ? v : "tokbench";
}

// The base of an OTLP/HTTP endpoint, as OTEL_EXPORTER_OTLP_ENDPOINT is read: signals go to
// <base>/v1/traces and <base>/v1/metrics. A URL already ending in one of those is taken as its
// base.
std::string endpoint_base(std::string url) {
  for (std::string_view tail : {"/v1/traces", "/v1/metrics"})
    if (url.ends_with(tail)) url.resize(url.size() - tail.size());
  while (url.ends_with('/')) url.pop_back();
  return url;
}

std::string random_hex(std::mt19937_64& rng, int bytes) {
  std::string out;
  while (static_cast<int>(out.size()) < 2 * bytes) out += fmt::format("{:016x}", rng());
  out.resize(static_cast<size_t>(2 * bytes));
  return out;
}

// The attributes every data point carries: the operation, the model, the run (and the rank).
std::vector<otlp::Attribute> common_attributes(const OtlpFacts& f) {
  std::vector<otlp::Attribute> a = {{"gen_ai.operation.name", gen_ai_operation(f.api)},
                                    {"gen_ai.request.model", f.model},
                                    {"tokbench.run_id", f.run_id}};
  if (f.rank >= 0) a.push_back({"tokbench.rank", f.rank});
  return a;
}

otlp::DataPoint histogram_point(const metrics::BucketHistogram& h,
                                std::vector<otlp::Attribute> attributes) {
  otlp::DataPoint p;
  p.attributes = std::move(attributes);
  p.count = h.count;
  p.sum = h.sum;
  p.bounds = h.bounds;
  p.bucket_counts = h.counts;
  return p;
}

otlp::DataPoint count_point(int64_t n, std::vector<otlp::Attribute> attributes) {
  otlp::DataPoint p;
  p.attributes = std::move(attributes);
  p.value = static_cast<double>(n);
  p.integer = true;
  return p;
}

// The point's metrics so far, from the tally: one data point per class (and outcome or token
// type), cumulative from `start`.
std::vector<otlp::Metric> collect(const metrics::LiveTally& tally, const OtlpFacts& facts,
                                  int64_t sent, uint64_t start) {
  using otlp::MetricKind;
  const auto base = common_attributes(facts);
  auto with = [&](const std::string& cls, std::vector<otlp::Attribute> more = {}) {
    auto a = base;
    if (!cls.empty()) a.push_back({"tokbench.class", cls});
    for (auto& m : more) a.push_back(std::move(m));
    return a;
  };
  std::vector<otlp::Metric> m = {
      {"tokbench.requests",
       "Measured requests finished, by outcome",
       "{request}",
       MetricKind::Sum,
       {},
       {}},
      {"tokbench.requests.sent", "Measured requests sent", "{request}", MetricKind::Sum, {}, {}},
      {"tokbench.requests.in_flight",
       "Requests sent and not yet finished",
       "{request}",
       MetricKind::Gauge,
       {},
       {}},
      {"gen_ai.client.operation.duration",
       "E2EL of successful requests",
       "s",
       MetricKind::Histogram,
       {},
       {}},
      {"gen_ai.client.token.usage",
       "Input and output tokens of successful requests",
       "{token}",
       MetricKind::Histogram,
       {},
       {}},
      {"gen_ai.client.operation.time_to_first_chunk",
       "Sent to the first streamed chunk",
       "s",
       MetricKind::Histogram,
       {},
       {}},
      {"gen_ai.client.operation.time_per_output_chunk",
       "Gaps between streamed text chunks",
       "s",
       MetricKind::Histogram,
       {},
       {}},
      {"tokbench.time_to_first_token",
       "TTFT: sent to the first generated text",
       "s",
       MetricKind::Histogram,
       {},
       {}},
      {"tokbench.time_per_output_token",
       "TPOT: (last - first token) / (output tokens - 1)",
       "s",
       MetricKind::Histogram,
       {},
       {}}};
  int64_t finished = 0;
  for (const auto& [cls, c] : tally.snapshot()) {
    finished += c.finished();
    for (auto [name, n] : {std::pair<const char*, int64_t>{"ok", c.ok},
                           {"failed", c.failed},
                           {"cancelled", c.cancelled},
                           {"cut", c.cut}})
      if (n > 0 || std::string_view(name) == "ok")
        m[0].points.push_back(count_point(n, with(cls, {{"tokbench.outcome", std::string(name)}})));
    m[3].points.push_back(histogram_point(c.e2el_s, with(cls)));
    m[4].points.push_back(
        histogram_point(c.input_tokens, with(cls, {{"gen_ai.token.type", std::string("input")}})));
    m[4].points.push_back(histogram_point(
        c.output_tokens, with(cls, {{"gen_ai.token.type", std::string("output")}})));
    m[5].points.push_back(histogram_point(c.first_chunk_s, with(cls)));
    m[6].points.push_back(histogram_point(c.chunk_gap_s, with(cls)));
    m[7].points.push_back(histogram_point(c.ttft_s, with(cls)));
    m[8].points.push_back(histogram_point(c.tpot_s, with(cls)));
  }
  m[1].points.push_back(count_point(sent, base));
  m[2].points.push_back(count_point(std::max<int64_t>(0, sent - finished), base));
  const uint64_t now = unix_now_ns();
  for (auto& metric : m)
    for (auto& p : metric.points) {
      p.start_unix_ns = metric.kind == MetricKind::Gauge ? 0 : start;
      p.time_unix_ns = now;
    }
  return m;
}

// One measured request as a CLIENT span (GenAI conventions), its phases as events.
otlp::Span request_span(const record::RequestRecord& r, const OtlpFacts& f, std::mt19937_64& rng) {
  otlp::Span s;
  if (auto tp = otlp::parse_traceparent(r.traceparent)) {
    s.trace_id = tp->trace_id, s.span_id = tp->span_id;
  } else {
    s.trace_id = random_hex(rng, 16), s.span_id = random_hex(rng, 8);
  }
  const std::string model = r.model.empty() ? f.model : r.model;
  const std::string operation = gen_ai_operation(f.api);
  s.name = operation + " " + model;
  s.kind = otlp::SpanKind::Client;
  s.service = service_name();
  auto wall = [&](int64_t t) { return static_cast<uint64_t>(f.origin_unix_ns + t); };
  const int64_t start = r.scheduled_ns != kNone ? std::min(r.scheduled_ns, r.sent_ns) : r.sent_ns;
  s.start_unix_ns = wall(start);
  s.end_unix_ns = wall(r.done_ns != kNone ? r.done_ns : start);
  for (auto [name, t] : {std::pair<const char*, int64_t>{"scheduled", r.scheduled_ns},
                         {"sent", r.sent_ns},
                         {"first_byte", r.first_byte_ns},
                         {"first_token", r.first_token_ns},
                         {"done", r.done_ns}})
    if (t != kNone) s.events.push_back({name, wall(t), {}});
  auto& a = s.attributes;
  a.push_back({"gen_ai.operation.name", operation});
  a.push_back({"gen_ai.request.model", model});
  if (r.requested_max_tokens != kNone)
    a.push_back({"gen_ai.request.max_tokens", r.requested_max_tokens});
  if (!r.request_id.empty()) a.push_back({"gen_ai.response.id", r.request_id});
  if (const int64_t in = metrics::input_tokens(r); in != kNone)
    a.push_back({"gen_ai.usage.input_tokens", in});
  if (const int64_t out = metrics::output_tokens(r); out != kNone)
    a.push_back({"gen_ai.usage.output_tokens", out});
  if (r.http_status > 0) a.push_back({"http.response.status_code", int64_t{r.http_status}});
  a.push_back({"tokbench.outcome", std::string(metrics::outcome_category(r.outcome))});
  a.push_back({"tokbench.request.index", r.index});
  a.push_back({"tokbench.stream", r.stream});
  if (r.attempts > 1) a.push_back({"tokbench.attempts", int64_t{r.attempts}});
  if (!r.client_request_id.empty())
    a.push_back({"tokbench.client_request_id", r.client_request_id});
  if (!r.traffic_class.empty()) a.push_back({"tokbench.class", r.traffic_class});
  if (!r.ok() && !r.apart()) {
    a.push_back({"error.type", std::string(record::outcome_name(r.outcome))});
    s.status = otlp::StatusCode::Error;
    s.status_message = r.error.substr(0, kMaxStatusMessage);
  }
  return s;
}

}  // namespace

std::string gen_ai_operation(std::string_view api) {
  if (api.empty() || api == "chat" || api == "messages" || api == "responses" || api == "ollama")
    return "chat";
  if (api == "completions" || api == "generate" || api == "tgi" || api == "mindie" ||
      api == "ollama-generate")
    return "text_completion";
  return std::string(api);
}

OtlpExport::OtlpExport(OtlpFacts facts, std::shared_ptr<const metrics::LiveTally> tally,
                       std::function<int64_t()> sent)
    : facts_(std::move(facts)),
      sent_(std::move(sent)),
      tally_(std::move(tally)),
      rng_(std::random_device{}()) {
  const std::string base = endpoint_base(facts_.endpoint);
  traces_url_ = base + "/v1/traces";
  try {
    exporter_ = std::make_unique<otlp::Exporter>(traces_url_, "tokbench");
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(
        fmt::format("--otlp-endpoint: {} (give the collector's OTLP/HTTP address, e.g. "
                    "http://127.0.0.1:4318; https is not spoken: put a local collector in front)",
                    e.what()));
  }
  start_unix_ns_ = unix_now_ns();
  const size_t path_at = base.find('/', std::string_view("http://").size());
  const std::string prefix = path_at == std::string::npos ? "" : base.substr(path_at);
  exporter_->start_metrics(
      prefix + "/v1/metrics",
      [this] { return collect(*tally_, facts_, sent_ ? sent_() : 0, start_unix_ns_); },
      metric_interval_ms(), service_name());
}

OtlpExport::~OtlpExport() { finish(); }

void OtlpExport::add(const record::RequestRecord& r) {
  if (r.warmup) return;
  exporter_->add(request_span(r, facts_, rng_));
}

OtlpExportStats OtlpExport::finish() {
  exporter_->stop();  // idempotent
  const otlp::ExporterStats e = exporter_->stats();
  return {e.exported, e.failed, e.dropped, e.metric_exports, e.metric_failures, e.last_error};
}

}  // namespace tokbench::probe
