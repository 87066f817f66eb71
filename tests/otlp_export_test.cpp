// probe/otlp_export (--otlp-endpoint, issue 46 item 2): a loopback OTLP collector stand-in
// (otlp::Receiver) gets one CLIENT span per measured request — its ids the traceparent the request
// carried, its phases as events at the record's own instants, its tokens and outcome as GenAI
// attributes, a failure's status an error — and the point's metrics, whose last export equals the
// run's records: requests by outcome, sent, none in flight, and histograms whose counts and sums
// are the records' E2EL, TTFT and tokens. A collector that is not there costs the run nothing but
// a warning; a URL that is not http:// is refused naming the fix.
#include "probe/otlp_export.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <map>

#include "metrics/metrics.hpp"
#include "otlp/receiver.hpp"
#include "runner/runner.hpp"
#include "settings/run_config.hpp"
#include "support/ports.hpp"
#include "support/run_test.hpp"
#include "support/sim_process.hpp"

namespace tokbench {
namespace {

using record::kNone;

// The last export's data points of metric `name`.
const otlp::Metric* last_metric(const std::vector<otlp::Metric>& all, std::string_view name) {
  const otlp::Metric* found = nullptr;
  for (const auto& m : all)
    if (m.name == name) found = &m;
  return found;
}

class OtlpExportTest : public testing::RunTest {
 protected:
  runner::RunOutcome run_to(const testing::Sim& sim, const std::string& endpoint, int prompts) {
    return run(testing::RunSettings()
                   .url(sim.url())
                   .concurrency(4)
                   .prompts(prompts)
                   .max_tokens(8)
                   .with([&](runner::RunConfig& r) { r.observe.otlp_endpoint = endpoint; })
                   .build());
  }
};

TEST_F(OtlpExportTest, EveryRequestIsASpanAndTheLastMetricsAreTheRecords) {
  otlp::Receiver collector;
  const uint16_t port = collector.start("127.0.0.1", 0);
  testing::Sim sim({"--ttft-ms", "10", "--tpot-ms", "2", "--fail-every", "7"});
  const runner::RunOutcome out = run_to(sim, fmt::format("http://127.0.0.1:{}", port), 21);
  std::vector<record::RequestRecord> measured;
  for (auto& r : records(out))
    if (!r.warmup) measured.push_back(r);
  ASSERT_EQ(measured.size(), 21u);

  // Spans: one per measured request, found by the trace id its traceparent carried.
  const std::vector<otlp::Span> spans = collector.take();
  ASSERT_EQ(spans.size(), measured.size());
  std::map<std::string, const otlp::Span*> by_trace;
  for (const auto& s : spans) by_trace[s.trace_id] = &s;
  int failures = 0;
  for (const auto& r : measured) {
    ASSERT_FALSE(r.traceparent.empty());
    const auto tp = otlp::parse_traceparent(r.traceparent);
    ASSERT_TRUE(tp);
    ASSERT_TRUE(by_trace.count(tp->trace_id)) << r.traceparent;
    const otlp::Span& s = *by_trace[tp->trace_id];
    EXPECT_EQ(s.span_id, tp->span_id);  // the server's span is this one's child
    EXPECT_EQ(s.kind, otlp::SpanKind::Client);
    EXPECT_EQ(s.name, "chat tokbench-mock");
    EXPECT_EQ(s.service, "tokbench");
    EXPECT_EQ(s.text("gen_ai.operation.name"), "chat");
    EXPECT_EQ(*s.number("tokbench.request.index"), r.index);
    // The phases as events, in order, at the record's own instants (one clock offset for all).
    std::vector<std::string> names;
    std::map<std::string, uint64_t> at;
    for (const auto& e : s.events) names.push_back(e.name), at[e.name] = e.time_unix_ns;
    ASSERT_GE(names.size(), 3u);
    EXPECT_EQ(names.front(), r.scheduled_ns != kNone ? "scheduled" : "sent");
    EXPECT_EQ(names.back(), "done");
    EXPECT_EQ(static_cast<int64_t>(at["done"] - at["sent"]), r.done_ns - r.sent_ns);
    EXPECT_EQ(s.end_unix_ns, at["done"]);
    if (r.ok()) {
      EXPECT_EQ(static_cast<int64_t>(at["first_token"] - at["sent"]), r.first_token_ns - r.sent_ns);
      EXPECT_EQ(*s.number("gen_ai.usage.output_tokens"), metrics::output_tokens(r));
      EXPECT_EQ(*s.number("gen_ai.usage.input_tokens"), metrics::input_tokens(r));
      EXPECT_EQ(s.text("gen_ai.response.id"), r.request_id);
      EXPECT_EQ(s.status, otlp::StatusCode::Unset);
      EXPECT_EQ(s.text("tokbench.outcome"), "ok");
    } else {
      ++failures;
      EXPECT_EQ(s.status, otlp::StatusCode::Error);
      EXPECT_EQ(s.text("error.type"), std::string(record::outcome_name(r.outcome)));
      EXPECT_EQ(*s.number("http.response.status_code"), 500);
      EXPECT_EQ(s.text("tokbench.outcome"), "failed");
    }
  }
  EXPECT_EQ(failures, 3);  // every 7th of 21

  // Metrics: the last export (at the point's end) is the records, whole.
  const std::vector<otlp::Metric> got = collector.take_metrics();
  ASSERT_FALSE(got.empty()) << "no metric export came";
  const otlp::Metric* requests = last_metric(got, "tokbench.requests");
  ASSERT_TRUE(requests);
  std::map<std::string, double> by_outcome;
  for (const auto& p : requests->points) by_outcome[p.text("tokbench.outcome")] += p.value;
  EXPECT_EQ(by_outcome["ok"], 18);
  EXPECT_EQ(by_outcome["failed"], 3);
  EXPECT_EQ(last_metric(got, "tokbench.requests.sent")->points.at(0).value, 21);
  EXPECT_EQ(last_metric(got, "tokbench.requests.in_flight")->points.at(0).value, 0);
  double e2el_s = 0, ttft_s = 0;
  int64_t out_tokens = 0;
  for (const auto& r : measured)
    if (r.ok()) {
      e2el_s += static_cast<double>(r.done_ns - r.sent_ns) / 1e9;
      ttft_s += static_cast<double>(r.first_token_ns - r.sent_ns) / 1e9;
      out_tokens += metrics::output_tokens(r);
    }
  const auto& duration = last_metric(got, "gen_ai.client.operation.duration")->points.at(0);
  EXPECT_EQ(duration.count, 18u);
  EXPECT_NEAR(duration.sum, e2el_s, 1e-9 * 18);
  uint64_t in_buckets = 0;
  for (uint64_t c : duration.bucket_counts) in_buckets += c;
  EXPECT_EQ(in_buckets, 18u);
  EXPECT_EQ(duration.bounds.size() + 1, duration.bucket_counts.size());
  EXPECT_EQ(duration.text("gen_ai.request.model"), "tokbench-mock");
  const auto& ttft = last_metric(got, "tokbench.time_to_first_token")->points.at(0);
  EXPECT_EQ(ttft.count, 18u);
  EXPECT_NEAR(ttft.sum, ttft_s, 1e-9 * 18);
  const otlp::Metric* usage = last_metric(got, "gen_ai.client.token.usage");
  ASSERT_EQ(usage->points.size(), 2u);
  for (const auto& p : usage->points) {
    if (p.text("gen_ai.token.type") == "output") {
      EXPECT_EQ(p.sum, out_tokens);
    }
  }
  // Cumulative from the point's start, up to the export.
  EXPECT_GT(duration.time_unix_ns, duration.start_unix_ns);
  EXPECT_GT(duration.start_unix_ns, 0u);
  EXPECT_EQ(collector.stats().refused, 0) << collector.stats().last_error;
}

// A collector that is not there: the run's records and verdict are whole, and it says so.
TEST_F(OtlpExportTest, AnAbsentCollectorCostsTheRunNothingButAWarning) {
  const uint16_t port = testing::unused_loopback_port();  // a loopback port that refuses
  testing::Sim sim({"--ttft-ms", "5", "--tpot-ms", "1"});
  const runner::RunOutcome out = run_to(sim, fmt::format("http://127.0.0.1:{}/", port), 8);
  EXPECT_TRUE(testing::IsValidUnlessBusy(out));
  int64_t measured = 0;
  for (const auto& r : records(out)) measured += r.warmup ? 0 : 1;
  EXPECT_EQ(measured, 8);
  // The log says what was not taken (the console's warning says the same; in-process runs
  // send the console to /dev/null).
  std::ifstream in(out.run_dir / "logs" / "run.log");
  const std::string log((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(log.find("OTLP export: 0 span(s) taken, 8 failed"), std::string::npos) << log;
}

TEST_F(OtlpExportTest, ANonHttpEndpointIsRefusedNamingTheFix) {
  for (const char* bad : {"https://collector:4318", "collector:4318", "http://"}) {
    runner::RunConfig c;
    c.observe.otlp_endpoint = bad;
    std::vector<std::string> errors;
    c.validate_observe(errors);
    ASSERT_FALSE(errors.empty()) << bad;
    EXPECT_NE(errors.front().find("--otlp-endpoint"), std::string::npos) << errors.front();
    EXPECT_NE(errors.front().find("http://127.0.0.1:4318"), std::string::npos) << errors.front();
  }
  EXPECT_EQ(probe::gen_ai_operation("completions"), "text_completion");
  EXPECT_EQ(probe::gen_ai_operation("messages"), "chat");
  EXPECT_EQ(probe::gen_ai_operation("embeddings"), "embeddings");
}

}  // namespace
}  // namespace tokbench
