// otlp/: OTLP's http/protobuf trace export written and read back field for field (every attribute
// kind, resources by service, unknown fields skipped, a truncated body refused with its reason);
// the exporter and the receiver over loopback (batched, bounded, a JSON body refused naming the
// protocol to set); and the simulator's --otlp-traces-endpoint (issue 46, item 5): one vLLM-shaped
// `llm_request` span per request, parented to the traceparent tokbench sent, whose queue, prefill
// and decode times are the simulator's own instants (its --trace file).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <simdjson.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <map>
#include <thread>

#include "net/http_get.hpp"
#include "otlp/exporter.hpp"
#include "otlp/metric.hpp"
#include "otlp/protobuf.hpp"
#include "otlp/receiver.hpp"
#include "support/ports.hpp"
#include "support/run_test.hpp"
#include "support/sim_process.hpp"

namespace tokbench::otlp {
namespace {

Span sample(int i, std::string service) {
  Span s;
  s.trace_id = fmt::format("{:032x}", 0xabc000 + i);
  s.span_id = fmt::format("{:016x}", 0x1000 + i);
  if (i % 2) s.parent_span_id = "00f067aa0ba902b7";
  s.name = "llm_request";
  s.kind = SpanKind::Server;
  s.start_unix_ns = 1765000000000000000ull + static_cast<uint64_t>(i);
  s.end_unix_ns = s.start_unix_ns + 123456789;
  s.attributes = {{"gen_ai.request.id", std::string("chatcmpl-") + std::to_string(i)},
                  {"gen_ai.usage.prompt_tokens", int64_t{-7} + i},
                  {"gen_ai.latency.time_in_queue", 0.25 * i},
                  {"flag", i % 2 == 0}};
  s.service = std::move(service);
  return s;
}

void expect_same(const Span& a, const Span& b) {
  EXPECT_EQ(a.trace_id, b.trace_id);
  EXPECT_EQ(a.span_id, b.span_id);
  EXPECT_EQ(a.parent_span_id, b.parent_span_id);
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.start_unix_ns, b.start_unix_ns);
  EXPECT_EQ(a.end_unix_ns, b.end_unix_ns);
  EXPECT_EQ(a.service, b.service);
  ASSERT_EQ(a.attributes.size(), b.attributes.size());
  for (size_t k = 0; k < a.attributes.size(); ++k) {
    EXPECT_EQ(a.attributes[k].key, b.attributes[k].key);
    EXPECT_EQ(a.attributes[k].value, b.attributes[k].value) << a.attributes[k].key;
  }
}

TEST(Otlp, TracesRoundTripFieldForField) {
  std::vector<Span> spans;
  for (int i = 0; i < 6; ++i) spans.push_back(sample(i, i < 3 ? "vllm" : "router"));
  const std::string body = encode_traces(spans, "tokbench");
  std::vector<Span> back;
  size_t dropped = 0;
  std::string why;
  ASSERT_TRUE(decode_traces(body, back, 100, &dropped, &why)) << why;
  ASSERT_EQ(back.size(), 6u);
  std::map<std::string, const Span*> by_id;
  for (const auto& s : back) by_id[s.span_id] = &s;
  for (const auto& s : spans) {
    ASSERT_TRUE(by_id.count(s.span_id));
    expect_same(s, *by_id[s.span_id]);
  }
  EXPECT_EQ(*back[0].number("gen_ai.usage.prompt_tokens"),
            -7 + std::stoi(back[0].span_id, 0, 16) - 0x1000);
  EXPECT_EQ(back[0].text("gen_ai.request.id").value().rfind("chatcmpl-", 0), 0u);
  EXPECT_FALSE(back[0].number("gen_ai.request.id"));  // a string is not a number
  // Past the cap: counted, never held.
  back.clear();
  ASSERT_TRUE(decode_traces(body, back, 4, &dropped, &why));
  EXPECT_EQ(back.size(), 4u);
  EXPECT_EQ(dropped, 2u);
}

// Protobuf's rule: a reader skips the fields it does not know (flags, a newer field) of every
// wire type; a body cut short, or with a group, is refused with its reason.
TEST(Otlp, UnknownFieldsAreSkippedAndABrokenBodyIsNamed) {
  Span s = sample(1, "vllm");
  const std::string plain = encode_traces({s}, "x");
  // The same export with fields appended inside the span: an event (11, read), flags (16,
  // fixed32), a varint (99) and a fixed64 (98) (all three unknown). The span is the innermost
  // message, last in each enclosing one, so appending to the body's end and growing each length
  // would be fiddly; instead re-encode by hand around the known span bytes.
  auto varint = [](std::string& o, uint64_t v) {
    while (v >= 0x80) o.push_back(static_cast<char>((v & 0x7F) | 0x80)), v >>= 7;
    o.push_back(static_cast<char>(v));
  };
  auto len_field = [&](std::string& o, int field, const std::string& b) {
    varint(o, static_cast<uint64_t>(field) << 3 | 2);
    varint(o, b.size());
    o += b;
  };
  std::vector<Span> one;
  size_t dropped = 0;
  std::string why;
  // The span message alone: the export of one span, its three wrappers peeled off.
  auto inner = [&](const std::string& body) {
    std::string_view v = body;
    for (int level = 0; level < 3; ++level) {  // request → resource spans → scope spans → span
      size_t at = 0;
      for (;;) {
        const int tag = static_cast<unsigned char>(v[at]);
        at += 1;
        uint64_t n = 0;
        for (int shift = 0;; shift += 7) {
          const auto c = static_cast<unsigned char>(v[at++]);
          n |= static_cast<uint64_t>(c & 0x7F) << shift;
          if (!(c & 0x80)) break;
        }
        const bool want = level == 0 ? tag == (1 << 3 | 2) : tag == (2 << 3 | 2);
        if (want) {
          v = v.substr(at, n);
          break;
        }
        at += n;
      }
    }
    return std::string(v);
  };
  std::string span = inner(plain);
  len_field(span, 11, "\x09\x01\x02\x03\x04\x05\x06\x07\x08\x12\x05ready");  // Event
  span += "\x85\x01";                                                        // 16 fixed32
  span += std::string("\x01\x00\x00\x00", 4);
  varint(span, 99 << 3 | 0), varint(span, 300);
  varint(span, 98 << 3 | 1), span += std::string(8, '\x07');
  std::string scope, resource, request;
  len_field(scope, 1, "\x0a\x04vllm");
  len_field(scope, 2, span);
  len_field(resource, 2, scope);
  varint(resource, 3 << 3 | 2), varint(resource, 0);  // schema_url ""
  len_field(request, 1, resource);
  ASSERT_TRUE(decode_traces(request, one, 10, &dropped, &why)) << why;
  ASSERT_EQ(one.size(), 1u);
  s.service = "";  // this hand-made resource names none
  expect_same(s, one[0]);
  ASSERT_EQ(one[0].events.size(), 1u);
  EXPECT_EQ(one[0].events[0].name, "ready");
  EXPECT_EQ(one[0].events[0].time_unix_ns, 0x0807060504030201ull);
  // Cut short: refused, the reason named.
  one.clear();
  why.clear();
  EXPECT_FALSE(decode_traces(request.substr(0, request.size() - 5), one, 10, &dropped, &why));
  EXPECT_NE(why.find("past the end"), std::string::npos) << why;
  why.clear();
  EXPECT_FALSE(decode_traces("\x0b", one, 10, &dropped, &why));  // field 1, a group
  EXPECT_NE(why.find("groups"), std::string::npos) << why;
}

// A span's events (each with attributes) and its status come back as written; a span with more
// events than kMaxEventsPerSpan keeps the first ones.
TEST(Otlp, EventsAndStatusRoundTrip) {
  Span s = sample(2, "tokbench");
  s.kind = SpanKind::Client;
  for (int e = 0; e < 5; ++e)
    s.events.push_back({fmt::format("phase{}", e),
                        s.start_unix_ns + 1000u * static_cast<unsigned>(e),
                        {{"n", int64_t{e}}}});
  s.status = StatusCode::Error;
  s.status_message = "HTTP 500: overloaded";
  std::vector<Span> back;
  size_t dropped = 0;
  std::string why;
  ASSERT_TRUE(decode_traces(encode_traces({s}, "x"), back, 10, &dropped, &why)) << why;
  ASSERT_EQ(back.size(), 1u);
  expect_same(s, back[0]);
  ASSERT_EQ(back[0].events.size(), 5u);
  for (int e = 0; e < 5; ++e) {
    EXPECT_EQ(back[0].events[e].name, s.events[e].name);
    EXPECT_EQ(back[0].events[e].time_unix_ns, s.events[e].time_unix_ns);
    ASSERT_EQ(back[0].events[e].attributes.size(), 1u);
    EXPECT_EQ(back[0].events[e].attributes[0].value, Value{int64_t{e}});
  }
  EXPECT_EQ(back[0].status, StatusCode::Error);
  EXPECT_EQ(back[0].status_message, "HTTP 500: overloaded");
  // An unset status is not written, and reads back unset.
  s.status = StatusCode::Unset;
  s.status_message.clear();
  for (int e = 5; e < 200; ++e) s.events.push_back({"more", 1, {}});
  back.clear();
  ASSERT_TRUE(decode_traces(encode_traces({s}, "x"), back, 10, &dropped, &why)) << why;
  EXPECT_EQ(back[0].status, StatusCode::Unset);
  EXPECT_EQ(back[0].events.size(), kMaxEventsPerSpan);
}

// A sender does not size a span: past kMaxAttributes its attributes are skipped, and a key or text
// value past kMaxAttributeBytes is cut, never inside a UTF-8 sequence.
TEST(Otlp, AttributesAreCappedInCountAndLength) {
  Span s = sample(1, "vllm");
  s.attributes.clear();
  for (int a = 0; a < 300; ++a) s.attributes.push_back({fmt::format("k{}", a), int64_t{a}});
  std::string euro;  // "€" is 3 bytes: kMaxAttributeBytes - 1 lands inside one
  for (size_t i = 0; i < kMaxAttributeBytes; i += 3) euro += "\u20ac";
  s.events = {{"e", 1, {{std::string(kMaxAttributeBytes + 10, 'k'), euro}}}};
  std::vector<Span> back;
  size_t dropped = 0;
  std::string why;
  ASSERT_TRUE(decode_traces(encode_traces({s}, "x"), back, 10, &dropped, &why)) << why;
  ASSERT_EQ(back.size(), 1u);
  ASSERT_EQ(back[0].attributes.size(), kMaxAttributes);
  EXPECT_EQ(back[0].attributes.back().key, fmt::format("k{}", kMaxAttributes - 1));
  const Attribute& cut = back[0].events.at(0).attributes.at(0);
  EXPECT_EQ(cut.key.size(), kMaxAttributeBytes);
  const std::string& text = std::get<std::string>(cut.value);
  EXPECT_EQ(text.size(), kMaxAttributeBytes / 3 * 3);  // whole characters only
  EXPECT_EQ(text, euro.substr(0, text.size()));
}

Metric histogram(std::string name, std::vector<double> bounds, std::vector<uint64_t> counts) {
  Metric m{std::move(name), "a histogram", "s", MetricKind::Histogram, {}, ""};
  DataPoint p;
  p.attributes = {{"tokbench.class", std::string("short")}};
  p.start_unix_ns = 1765000000000000000ull;
  p.time_unix_ns = p.start_unix_ns + 5'000'000'000ull;
  p.bounds = std::move(bounds);
  p.bucket_counts = std::move(counts);
  for (uint64_t c : p.bucket_counts) p.count += c;
  p.sum = 12.5;
  m.points.push_back(p);
  return m;
}

// Metrics as sent (a Sum of ints, a Gauge, a Histogram with packed counts and bounds) come back
// field for field; a point past the cap is counted, not held; a histogram's packed field of a
// length that is no multiple of 8 is refused with its reason.
TEST(Otlp, MetricsRoundTripFieldForField) {
  Metric sum{"tokbench.requests", "finished", "{request}", MetricKind::Sum, {}, ""};
  for (auto [outcome, n] : {std::pair<const char*, int>{"ok", 41}, {"failed", 2}}) {
    DataPoint p;
    p.attributes = {{"tokbench.outcome", std::string(outcome)}};
    p.start_unix_ns = 10, p.time_unix_ns = 20, p.value = n, p.integer = true;
    sum.points.push_back(p);
  }
  Metric gauge{"tokbench.requests.in_flight", "", "{request}", MetricKind::Gauge, {}, ""};
  DataPoint g;
  g.time_unix_ns = 20, g.value = 2.5;
  gauge.points.push_back(g);
  const std::vector<Metric> sent = {
      sum, gauge, histogram("gen_ai.client.operation.duration", {0.01, 0.02, 0.04}, {1, 0, 7, 3})};
  const std::string body = encode_metrics(sent, "tokbench", "tokbench");
  std::vector<Metric> back;
  size_t dropped = 0;
  std::string why;
  ASSERT_TRUE(decode_metrics(body, back, 100, &dropped, &why)) << why;
  ASSERT_EQ(back.size(), 3u);
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(back[k].name, sent[k].name);
    EXPECT_EQ(back[k].unit, sent[k].unit);
    EXPECT_EQ(back[k].kind, sent[k].kind);
    EXPECT_EQ(back[k].service, "tokbench");
    ASSERT_EQ(back[k].points.size(), sent[k].points.size());
  }
  EXPECT_EQ(back[0].points[0].text("tokbench.outcome"), "ok");
  EXPECT_TRUE(back[0].points[0].integer);
  EXPECT_EQ(back[0].points[0].value, 41);
  EXPECT_EQ(back[0].points[1].value, 2);
  EXPECT_EQ(back[0].points[1].start_unix_ns, 10u);
  EXPECT_EQ(back[0].points[1].time_unix_ns, 20u);
  EXPECT_FALSE(back[1].points[0].integer);
  EXPECT_EQ(back[1].points[0].value, 2.5);
  const DataPoint& h = back[2].points[0];
  EXPECT_EQ(h.text("tokbench.class"), "short");
  EXPECT_EQ(h.bounds, (std::vector<double>{0.01, 0.02, 0.04}));
  EXPECT_EQ(h.bucket_counts, (std::vector<uint64_t>{1, 0, 7, 3}));
  EXPECT_EQ(h.count, 11u);
  EXPECT_EQ(h.sum, 12.5);
  EXPECT_EQ(h.time_unix_ns, h.start_unix_ns + 5'000'000'000ull);
  back.clear();
  ASSERT_TRUE(decode_metrics(body, back, 2, &dropped, &why)) << why;
  EXPECT_EQ(dropped, 2u);  // the gauge's point and the histogram's
  // A packed bucket_counts of 7 bytes: refused, the reason named.
  std::string broken = body;
  const std::string packed_counts = std::string("\x32\x20", 2);  // field 6, 32 bytes
  const size_t at = broken.find(packed_counts);
  ASSERT_NE(at, std::string::npos);
  broken[at + 1] = '\x07';
  back.clear();
  why.clear();
  EXPECT_FALSE(decode_metrics(broken, back, 100, &dropped, &why));
  EXPECT_FALSE(why.empty());
  // A histogram of more bounds than kMaxBounds: refused before they are held.
  std::vector<double> many(kMaxBounds + 1);
  for (size_t k = 0; k < many.size(); ++k) many[k] = static_cast<double>(k);
  back.clear();
  why.clear();
  EXPECT_FALSE(decode_metrics(
      encode_metrics({histogram("h", many, std::vector<uint64_t>(many.size() + 1))}, "x", "y"),
      back, 100, &dropped, &why));
  EXPECT_NE(why.find("bounds"), std::string::npos) << why;
}

// The exporter's metrics go to the same host's /v1/metrics every interval and once more at stop()
// (the final counts, after the last spans); the receiver keeps them as a collector would.
TEST(Otlp, ExporterSendsMetricsOnItsIntervalAndAtStop) {
  Receiver receiver;
  const uint16_t port = receiver.start("127.0.0.1", 0);
  std::atomic<int> calls{0};
  {
    Exporter exporter(fmt::format("http://127.0.0.1:{}/v1/traces", port), "test", 50, 100);
    exporter.start_metrics(
        "/v1/metrics",
        [&] {
          const int n = ++calls;
          return std::vector<Metric>{histogram("h", {1, 2}, {uint64_t(n), 0, 0})};
        },
        100, "svc");
    exporter.add(sample(1, "svc"));
    std::this_thread::sleep_for(std::chrono::milliseconds(450));
    exporter.stop();
    EXPECT_EQ(exporter.stats().metric_failures, 0) << exporter.stats().last_error;
    EXPECT_EQ(exporter.stats().metric_exports, calls.load());
  }
  EXPECT_GE(calls.load(), 2);  // at least one on the interval, and the last at stop()
  const std::vector<Metric> got = receiver.take_metrics();
  ASSERT_EQ(static_cast<int>(got.size()), calls.load());
  EXPECT_EQ(got.back().points[0].bucket_counts[0], static_cast<uint64_t>(calls.load()));
  EXPECT_EQ(got.back().service, "svc");
  EXPECT_EQ(receiver.stats().metric_exports, calls.load());
  EXPECT_EQ(receiver.take().size(), 1u);
}

// A collector that takes the connection and never answers: the exporter's wait is bounded (its
// timer cuts the read), the spans are counted as failed with why, and stop() returns.
TEST(Otlp, ACollectorThatNeverAnswersCannotHoldTheExporter) {
  uint16_t port = 0;
  const int fd = testing::bound_loopback_socket(port);
  ASSERT_EQ(::listen(fd, 8), 0);  // the kernel completes the handshake; nobody reads
  const auto t0 = std::chrono::steady_clock::now();
  Exporter exporter(fmt::format("http://127.0.0.1:{}/v1/traces", port), "x", 50, 4);
  for (int i = 0; i < 10; ++i) exporter.add(sample(i, "vllm"));
  exporter.stop();
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ::close(fd);
  EXPECT_LT(took, 30.0);  // one timeout (5 s) per batch tried, never a hang
  EXPECT_EQ(exporter.stats().exported, 0);
  EXPECT_EQ(exporter.stats().failed, 10);
  EXPECT_NE(exporter.stats().last_error.find("no answer"), std::string::npos)
      << exporter.stats().last_error;
}

TEST(Otlp, TraceParentIsReadAsW3cWritesIt) {
  const auto p = parse_traceparent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->trace_id, "0af7651916cd43dd8448eb211c80319c");
  EXPECT_EQ(p->span_id, "b7ad6b7169203331");
  EXPECT_FALSE(parse_traceparent("00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01"));
  EXPECT_FALSE(parse_traceparent("00-00000000000000000000000000000000-b7ad6b7169203331-01"));
  EXPECT_FALSE(parse_traceparent("00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01"));
  EXPECT_FALSE(parse_traceparent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b716920333-01"));
  EXPECT_FALSE(parse_traceparent(""));
}

// The exporter batches from its own thread; the receiver keeps every span; stop() sends the rest.
TEST(Otlp, ExporterToReceiverOverLoopback) {
  Receiver receiver;
  const uint16_t port = receiver.start("127.0.0.1", 0);
  const std::string url = fmt::format("http://127.0.0.1:{}/v1/traces", port);
  {
    Exporter exporter(url, "test", 50, 100);
    for (int i = 0; i < 1234; ++i) exporter.add(sample(i, "vllm"));
    exporter.stop();
    EXPECT_EQ(exporter.stats().exported, 1234);
    EXPECT_EQ(exporter.stats().failed, 0) << exporter.stats().last_error;
  }
  const std::vector<Span> got = receiver.take();
  ASSERT_EQ(got.size(), 1234u);
  for (size_t i = 0; i < got.size(); i += 111)
    expect_same(sample(static_cast<int>(i), "vllm"), got[i]);
  EXPECT_GE(receiver.stats().exports, 13);  // batches of at most 100
  EXPECT_TRUE(receiver.take().empty());     // handed over once
  // OTLP's JSON encoding is not read: refused, naming the protocol to set.
  const auto r = net::http_post(url, "{}", {}, "", 5000);
  ASSERT_TRUE(r.reached) << r.error;
  EXPECT_EQ(r.status, 415);
  EXPECT_NE(receiver.stats().last_error.find("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf"),
            std::string::npos);
  EXPECT_THROW(Exporter("https://127.0.0.1:1/v1/traces", "x"), std::invalid_argument);
  EXPECT_THROW(receiver.start("not-an-address", 0), std::runtime_error);
}

// The simulator as vLLM exports: one llm_request span per request, a child of the request's
// traceparent, its queue, prefill and decode the simulator's own instants (--trace).
class SimSpans : public testing::RunTest {};

TEST_F(SimSpans, EachRequestsSpanIsItsTraceparentsChildWithTheTrueTimes) {
  Receiver receiver;
  const uint16_t port = receiver.start("127.0.0.1", 0);
  const auto trace = dir_ / "sim_trace.jsonl";
  testing::Sim sim({"--ttft-ms", "20", "--tpot-ms", "2", "--max-num-seqs", "2", "--trace",
                    trace.string(), "--otlp-traces-endpoint",
                    fmt::format("http://127.0.0.1:{}/v1/traces", port)});
  const runner::RunOutcome out =
      run(testing::RunSettings().url(sim.url()).concurrency(4).prompts(16).max_tokens(12).build());
  const auto recs = records(out);
  std::map<std::string, Span> by_trace;
  for (int waited = 0; by_trace.size() < recs.size() && waited < 100; ++waited) {
    for (auto& s : receiver.take()) by_trace[s.trace_id] = std::move(s);
    if (by_trace.size() < recs.size()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  // The truth: each request's instants from the simulator's trace.
  struct Truth {
    int64_t arrival, admitted, first, last;
  };
  std::map<std::string, Truth> truth;
  simdjson::dom::parser p;
  std::ifstream in(trace);
  for (std::string line; std::getline(in, line);) {
    auto d = p.parse(line);
    truth[std::string(d["id"].get_string().value())] =
        Truth{d["arrival_ns"].get_int64(), d["admitted_ns"].get_int64(),
              d["first_token_ns"].get_int64(), d["last_token_ns"].get_int64()};
  }
  ASSERT_EQ(by_trace.size(), recs.size());  // warm-up included: every request has its span
  double queued = 0;
  for (const auto& r : recs) {
    const auto parent = parse_traceparent(r.traceparent);
    ASSERT_TRUE(parent) << r.traceparent;
    ASSERT_TRUE(by_trace.count(parent->trace_id));
    const Span& s = by_trace[parent->trace_id];
    EXPECT_EQ(s.parent_span_id, parent->span_id);
    EXPECT_EQ(s.name, "llm_request");
    EXPECT_EQ(s.kind, SpanKind::Server);
    EXPECT_EQ(s.text("gen_ai.request.id"), r.request_id);
    EXPECT_EQ(s.number("gen_ai.usage.completion_tokens"), static_cast<double>(r.completion_tokens));
    ASSERT_TRUE(truth.count(r.request_id));
    const Truth& t = truth[r.request_id];
    auto near = [](std::optional<double> got, int64_t ns) {
      const double want = static_cast<double>(ns) / 1e9;
      return got && std::abs(*got - want) <= 0.01 * want + 1e-9;
    };
    EXPECT_TRUE(near(s.number("gen_ai.latency.time_in_queue"), t.admitted - t.arrival));
    EXPECT_TRUE(near(s.number("gen_ai.latency.time_in_model_prefill"), t.first - t.admitted));
    EXPECT_TRUE(near(s.number("gen_ai.latency.time_in_model_decode"), t.last - t.first));
    EXPECT_GT(*s.number("gen_ai.latency.time_in_model_prefill"), 0.015);  // --ttft-ms 20
    EXPECT_GE(s.end_unix_ns - s.start_unix_ns,
              static_cast<uint64_t>(t.last - t.arrival));  // it ends after its last token
    queued += *s.number("gen_ai.latency.time_in_queue");
  }
  EXPECT_GT(queued, 0.05);  // 4 at once on 2 places: half of them waited
}

}  // namespace
}  // namespace tokbench::otlp
