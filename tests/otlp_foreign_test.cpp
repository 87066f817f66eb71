// otlp/ against a schema it did not write: OpenTelemetry JS's OTLP message classes (protobufjs code
// generated from the OTLP .proto files; tests/otlp_js, pinned by its lock file) read the trace and
// metric bodies tokbench writes, and write bodies — with the fields an SDK or collector adds and
// tokbench skips (trace state, links, flags, dropped counts, exemplars, min/max, arrays) — that
// tokbench reads. Both ways, every field tokbench keeps must equal what the foreign side holds.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "otlp/metric.hpp"
#include "otlp/protobuf.hpp"
#include "runfolder/files.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

namespace tokbench::otlp {
namespace {

namespace fs = std::filesystem;
using simdjson::dom::element;

class OtlpForeign : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::fresh_test_dir("tokbench_otlp_foreign"); }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  // `node otlp.js MODE KIND BODY JSON`; the JSON it wrote, parsed.
  element foreign(const std::string& mode, const std::string& kind, const fs::path& body) {
    const std::string script = std::string(TOKBENCH_SOURCE_DIR) + "/tests/otlp_js/otlp.js";
    const fs::path json = dir_ / (kind + "-" + mode + ".json");
    const auto r = testing::run_cmd({TOKBENCH_NODE, script, mode, kind, body.string(), json});
    EXPECT_EQ(r.code, 0) << r.output << "\n(npm ci --prefix tests/otlp_js installs its classes)";
    return parser_.load(json.string()).value();
  }
  fs::path dir_;
  simdjson::dom::parser parser_;
};

uint64_t u64(element e) { return std::stoull(std::string(std::string_view(e))); }
std::string text(element e, const char* key) {
  std::string_view v;
  return e[key].get(v) ? std::string() : std::string(v);
}
int64_t integer(element e, const char* key) {
  int64_t v = 0;
  return e[key].get(v) ? 0 : v;
}

// The elements of the array `e[key]` (none when absent), held by value: a range-for over
// `get_array().value()` walks an array whose result object is already gone (AddressSanitizer:
// stack-use-after-scope).
std::vector<element> array_of(element e, const char* key) {
  std::vector<element> out;
  simdjson::dom::array a;
  if (!e[key].get(a))
    for (element x : a) out.push_back(x);
  return out;
}

// The attributes tokbench keeps of an OTLP KeyValue list (scalars; arrays, lists and bytes are
// left out), in order.
std::vector<Attribute> scalars(element list) {
  std::vector<Attribute> out;
  simdjson::dom::array a;
  if (list.get(a)) return out;
  for (element kv : a) {
    const std::string key = text(kv, "key");
    element v = kv["value"];
    std::string_view s;
    bool b = false;
    double d = 0;
    if (!v["stringValue"].get(s))
      out.push_back({key, std::string(s)});
    else if (!v["intValue"].get(s))
      out.push_back({key, static_cast<int64_t>(std::stoll(std::string(s)))});
    else if (!v["boolValue"].get(b))
      out.push_back({key, b});
    else if (!v["doubleValue"].get(d))
      out.push_back({key, d});
  }
  return out;
}

std::string shown(const std::vector<Attribute>& attributes) {
  std::string s;
  for (const auto& a : attributes)
    s +=
        a.key + "=" + std::visit([](const auto& v) { return fmt::format("{}", v); }, a.value) + " ";
  return s;
}

std::string service_of(element resource) {
  for (const auto& a : scalars(resource["attributes"]))
    if (a.key == "service.name") return std::get<std::string>(a.value);
  return "";
}

// The items of an export (spans, metrics) in order, each with its resource's service.name: the
// `items` of every scope `scopes` of every resource `groups`.
std::vector<std::pair<std::string, element>> items_of(element theirs, const char* groups,
                                                      const char* scopes, const char* items) {
  std::vector<std::pair<std::string, element>> out;
  for (element group : array_of(theirs, groups))
    for (element scope : array_of(group, scopes))
      for (element item : array_of(scope, items))
        out.emplace_back(service_of(group["resource"]), item);
  return out;
}

// Every span tokbench holds equals the foreign message's, in order, field by field.
void expect_same_spans(const std::vector<Span>& ours, element theirs) {
  size_t i = 0;
  for (const auto& [service, s] : items_of(theirs, "resourceSpans", "scopeSpans", "spans")) {
    ASSERT_LT(i, ours.size());
    const Span& o = ours[i++];
    SCOPED_TRACE(o.name);
    EXPECT_EQ(o.trace_id, text(s, "traceId"));
    EXPECT_EQ(o.span_id, text(s, "spanId"));
    EXPECT_EQ(o.parent_span_id, text(s, "parentSpanId"));
    EXPECT_EQ(o.name, text(s, "name"));
    EXPECT_EQ(static_cast<int>(o.kind), integer(s, "kind"));
    EXPECT_EQ(o.start_unix_ns, u64(s["startTimeUnixNano"]));
    EXPECT_EQ(o.end_unix_ns, u64(s["endTimeUnixNano"]));
    EXPECT_EQ(o.service, service);
    EXPECT_EQ(shown(o.attributes), shown(scalars(s["attributes"])));
    size_t e = 0;
    for (element ev : array_of(s, "events")) {
      ASSERT_LT(e, o.events.size());
      EXPECT_EQ(o.events[e].name, text(ev, "name"));
      EXPECT_EQ(o.events[e].time_unix_ns, u64(ev["timeUnixNano"]));
      EXPECT_EQ(shown(o.events[e].attributes), shown(scalars(ev["attributes"])));
      ++e;
    }
    EXPECT_EQ(e, o.events.size());
    element status;
    const bool has_status = !s["status"].get(status);
    EXPECT_EQ(static_cast<int>(o.status), has_status ? integer(status, "code") : 0);
    EXPECT_EQ(o.status_message, has_status ? text(status, "message") : "");
  }
  EXPECT_EQ(i, ours.size());
}

// Every metric tokbench holds equals the foreign message's: kind, names, each point's
// attributes, times and values (a histogram's count, sum, bounds and bucket counts).
void expect_same_metrics(const std::vector<Metric>& ours, element theirs) {
  size_t i = 0;
  for (const auto& [service, m] : items_of(theirs, "resourceMetrics", "scopeMetrics", "metrics")) {
    ASSERT_LT(i, ours.size());
    const Metric& o = ours[i++];
    SCOPED_TRACE(o.name);
    EXPECT_EQ(o.name, text(m, "name"));
    EXPECT_EQ(o.description, text(m, "description"));
    EXPECT_EQ(o.unit, text(m, "unit"));
    EXPECT_EQ(o.service, service);
    element data;
    MetricKind kind = MetricKind::Sum;
    if (!m["sum"].get(data)) {
      EXPECT_EQ(integer(data, "aggregationTemporality"), 2);  // cumulative
      EXPECT_TRUE(data["isMonotonic"].get_bool().value());
    } else if (!m["gauge"].get(data)) {
      kind = MetricKind::Gauge;
    } else {
      ASSERT_FALSE(m["histogram"].get(data)) << "a kind otlp/metric does not hold";
      kind = MetricKind::Histogram;
      EXPECT_EQ(integer(data, "aggregationTemporality"), 2);
    }
    EXPECT_EQ(o.kind, kind);
    size_t p = 0;
    for (element dp : array_of(data, "dataPoints")) {
      ASSERT_LT(p, o.points.size());
      const DataPoint& q = o.points[p++];
      EXPECT_EQ(shown(q.attributes), shown(scalars(dp["attributes"])));
      EXPECT_EQ(q.start_unix_ns, u64(dp["startTimeUnixNano"]));
      EXPECT_EQ(q.time_unix_ns, u64(dp["timeUnixNano"]));
      if (kind == MetricKind::Histogram) {
        EXPECT_EQ(q.count, u64(dp["count"]));
        EXPECT_DOUBLE_EQ(q.sum, dp["sum"].get_double().value());
        std::vector<double> bounds;
        for (element b : array_of(dp, "explicitBounds")) bounds.push_back(b.get_double().value());
        std::vector<uint64_t> counts;
        for (element c : array_of(dp, "bucketCounts")) counts.push_back(u64(c));
        EXPECT_EQ(q.bounds, bounds);
        EXPECT_EQ(q.bucket_counts, counts);
      } else {
        std::string_view as_int;
        const bool is_int = !dp["asInt"].get(as_int);
        EXPECT_EQ(q.integer, is_int);
        EXPECT_DOUBLE_EQ(
            q.value, is_int ? std::stod(std::string(as_int)) : dp["asDouble"].get_double().value());
      }
    }
    EXPECT_EQ(p, o.points.size());
  }
  EXPECT_EQ(i, ours.size());
}

// tokbench's own spans (as --otlp-endpoint and the simulator send them): every attribute kind,
// events with attributes, an error status, a parent, two services.
std::vector<Span> our_spans() {
  Span client;
  client.trace_id = "4bf92f3577b34da6a3ce929d0e0e4736";
  client.span_id = "00f067aa0ba902b7";
  client.name = "chat tokbench-mock";
  client.kind = SpanKind::Client;
  client.start_unix_ns = 1733560000123456789ull;
  client.end_unix_ns = 1733560001987654321ull;
  client.attributes = {{"gen_ai.request.model", std::string("tokbench-mock")},
                       {"gen_ai.usage.output_tokens", int64_t{-9007199254740993}},
                       {"tokbench.share", 0.125},
                       {"tokbench.warmup", false}};
  client.events = {{"sent", 1733560000123456999ull, {}},
                   {"first_token", 1733560000200000000ull, {{"tokbench.tokens", int64_t{3}}}}};
  client.status = StatusCode::Error;
  client.status_message = "HTTP 503";
  client.service = "tokbench";
  Span server = client;
  server.span_id = "b7ad6b7169203331";
  server.parent_span_id = client.span_id;
  server.name = "llm_request";
  server.kind = SpanKind::Server;
  server.events.clear();
  server.status = StatusCode::Unset;
  server.status_message.clear();
  server.service = "vllm";
  return {client, server};
}

std::vector<Metric> our_metrics() {
  DataPoint base;
  base.attributes = {{"tokbench.outcome", std::string("ok")}, {"model", std::string("m")}};
  base.start_unix_ns = 1733560000000000000ull;
  base.time_unix_ns = 1733560010000000000ull;
  Metric requests{"tokbench.requests", "finished requests", "{request}", MetricKind::Sum, {}, ""};
  DataPoint n = base;
  n.value = 42;
  n.integer = true;
  requests.points = {n};
  Metric in_flight{
      "tokbench.in_flight", "requests in flight", "{request}", MetricKind::Gauge, {}, ""};
  DataPoint g = base;
  g.value = 7.5;
  in_flight.points = {g};
  Metric duration{"gen_ai.client.operation.duration", "E2EL", "s", MetricKind::Histogram, {}, ""};
  DataPoint h = base;
  h.count = 9;
  h.sum = 12.25;
  h.bounds = {0.01, 0.02, 0.04, 0.08};
  h.bucket_counts = {0, 1, 3, 5, 0};
  duration.points = {h};
  return {requests, in_flight, duration};
}

TEST_F(OtlpForeign, OurTraceBodiesReadAsOtlpByItsOwnClasses) {
  std::vector<Span> spans = our_spans();
  const fs::path body = dir_ / "ours.traces";
  runfolder::write_file(body, encode_traces(spans, "tokbench"));
  const element theirs = foreign("decode", "traces", body);
  // encode_traces groups by service (std::map): the foreign message's order is tokbench then vllm.
  expect_same_spans(spans, theirs);
  EXPECT_EQ(std::string_view(theirs["resourceSpans"].at(0)["scopeSpans"].at(0)["scope"]["name"]),
            "tokbench");
}

TEST_F(OtlpForeign, OurMetricBodiesReadAsOtlpByItsOwnClasses) {
  std::vector<Metric> metrics = our_metrics();
  const fs::path body = dir_ / "ours.metrics";
  runfolder::write_file(body, encode_metrics(metrics, "tokbench", "tokbench-run"));
  const element theirs = foreign("decode", "metrics", body);
  for (auto& m : metrics) m.service = "tokbench-run";
  expect_same_metrics(metrics, theirs);
}

TEST_F(OtlpForeign, ForeignTraceBodiesReadFieldForField) {
  const fs::path body = dir_ / "foreign.traces";
  const element theirs = foreign("encode", "traces", body);
  std::vector<Span> spans;
  size_t dropped = 0;
  std::string why;
  ASSERT_TRUE(decode_traces(runfolder::read_file(body), spans, 100, &dropped, &why)) << why;
  EXPECT_EQ(dropped, 0u);
  ASSERT_EQ(spans.size(), 3u);
  expect_same_spans(spans, theirs);
  EXPECT_EQ(spans[0].attributes.size(), 5u);  // the array and the key-value list left out
}

TEST_F(OtlpForeign, ForeignMetricBodiesReadFieldForField) {
  const fs::path body = dir_ / "foreign.metrics";
  const element theirs = foreign("encode", "metrics", body);
  std::vector<Metric> metrics;
  size_t dropped = 0;
  std::string why;
  ASSERT_TRUE(decode_metrics(runfolder::read_file(body), metrics, 100, &dropped, &why)) << why;
  EXPECT_EQ(dropped, 0u);
  ASSERT_EQ(metrics.size(), 3u);
  expect_same_metrics(metrics, theirs);
}

}  // namespace
}  // namespace tokbench::otlp
