// metrics/stable_stage: the window found from exact send/end events (AISBench's rule), the exact
// time-average in flight, "no stable stage" said plainly, and the stage's throughputs: output
// tokens by their chunk's arrival inside the window, requests by Little's law — neither inflated
// by the wave of requests AISBench counts at the window's edge, nor by failed requests' places.
#include "metrics/stable_stage.hpp"

#include <gtest/gtest.h>

#include "support/records.hpp"

namespace tokbench::metrics {
namespace {

using record::ChunkKind;
using testing::stream_record;

// A closed loop of `clients` clients, each sending `waves` requests of 100.5 ms, the next 0.5 ms
// after the last ends (one token every 10 ms, 10 tokens), the clients 1 ms apart.
std::vector<record::RequestRecord> closed_loop(int clients, int waves) {
  std::vector<record::RequestRecord> out;
  for (int c = 0; c < clients; ++c) {
    for (int k = 0; k < waves; ++k) {
      const double t0 = c + 101.0 * k;
      auto r = stream_record(t0, {}, t0 + 100, 10, 20);
      for (int i = 1; i <= 10; ++i) {
        record::ChunkEvent e;
        e.t_ns = testing::ms(t0 + 10 * i);
        e.kind = ChunkKind::Content;
        r.chunks.push_back(e);
      }
      r.first_token_ns = r.chunks.front().t_ns;
      r.last_token_ns = r.chunks.back().t_ns;
      r.done_ns = testing::ms(t0 + 100.5);
      out.push_back(r);
    }
  }
  return out;
}

TEST(StableStage, WindowIsFromTheSecondFillToTheLastMomentAtTheLevel) {
  const auto recs = closed_loop(4, 10);
  StableStageFinder f(4);
  for (const auto& r : recs) f.add(r);
  const StableWindow w = f.finish();
  ASSERT_TRUE(w.found) << w.text;
  // First fill at 3 ms (the 4th client); the first refill comes at 101 ms (client 0's 2nd request).
  EXPECT_EQ(w.start_ns, testing::ms(101));
  EXPECT_EQ(w.end_ns, testing::ms(912));  // the last send (client 3's 10th): after it, only ends
  EXPECT_EQ(w.peak, 4);
  EXPECT_NEAR(w.mean_in_flight, 4 * 100.5 / 101, 0.01);  // each client idles 0.5 ms in 101
  EXPECT_TRUE(w.contains(testing::ms(500)));
  EXPECT_FALSE(w.contains(testing::ms(100)));
}

TEST(StableStage, NeverReachedSaysSoPlainly) {
  StableStageFinder f(8);
  for (const auto& r : closed_loop(4, 5)) f.add(r);
  const StableWindow w = f.finish();
  EXPECT_FALSE(w.found);
  EXPECT_NE(w.text.find("never"), std::string::npos) << w.text;
  EXPECT_NE(w.text.find("peak 4"), std::string::npos) << w.text;
  StableStageFinder once(4);
  for (const auto& r : closed_loop(4, 1)) once.add(r);  // filled once, then drained
  EXPECT_NE(once.finish().text.find("only once"), std::string::npos);
}

TEST(StableStage, ThroughputsCountWhatArrivedInsideTheWindow) {
  const auto recs = closed_loop(4, 10);
  StableStageFinder f(4);
  for (const auto& r : recs) f.add(r);
  const StableWindow w = f.finish();
  MetricsPass pass(RunFacts{4, true}, {Definitions::Tokbench});
  WindowArrivals a;
  for (const auto& r : recs) {
    if (w.contains(r.sent_ns)) pass.add(r);
    a.add(r, w);
  }
  MetricSet m = std::move(pass.finish().front());
  restate_over_window(m, w, a);
  // Physically: a request every 101 ms per client -> 39.6 req/s and 396 tokens/s. AISBench's count
  // (the 36 requests sent in the window over its 0.811 s: 44.4 req/s) would be 12% high.
  EXPECT_NEAR(m.common_metric("request_throughput")->value, 4 / 0.101, 0.3);
  EXPECT_NEAR(m.common_metric("output_token_throughput")->value, 40 / 0.101, 8);
  EXPECT_NEAR(m.common_metric("benchmark_duration")->value, 811, 1e-6);
  EXPECT_NEAR(m.common_metric("concurrency")->value, w.mean_in_flight, 1e-12);
  EXPECT_EQ(a.spread_requests, 0);  // one token per chunk: nothing estimated
  // Steady: the window's halves carry the same throughput, and the note says so.
  EXPECT_NEAR(a.first_half, a.second_half, 0.1 * a.output_tokens);
  bool steady_note = false;
  for (const auto& n : m.notes)
    steady_note |=
        n.find("two halves") != std::string::npos && n.find("not steady") == std::string::npos;
  EXPECT_TRUE(steady_note);
}

// Half the clients' requests fail after a 1 s stall (a timeout): they hold their places in flight
// without succeeding. The successful rate is the other two clients' (a request each per 101 ms,
// 19.8 req/s); Little's law over the successful requests' E2EL alone read every place in flight as
// a success (about 40 req/s).
TEST(StableStage, FailedRequestsHoldPlacesButAreNotThroughput) {
  std::vector<record::RequestRecord> recs;
  for (auto& r : closed_loop(2, 40)) recs.push_back(r);
  for (int c = 2; c < 4; ++c) {
    for (int k = 0; k < 4; ++k) {
      const double t0 = c + 1000.5 * k;
      auto r = stream_record(t0, {}, t0 + 1000, 0, 20);
      r.outcome = record::Outcome::Timeout;
      r.first_token_ns = r.last_token_ns = record::kNone;
      r.chunks.clear();
      r.done_ns = testing::ms(t0 + 1000);
      recs.push_back(r);
    }
  }
  StableStageFinder f(4);
  for (const auto& r : recs) f.add(r);
  const StableWindow w = f.finish();
  ASSERT_TRUE(w.found) << w.text;
  MetricsPass pass(RunFacts{4, true}, {Definitions::Tokbench});
  WindowArrivals a;
  for (const auto& r : recs) {
    if (w.contains(r.sent_ns)) pass.add(r);
    a.add(r, w);
  }
  EXPECT_LT(a.ok_in_flight_ns / static_cast<double>(w.end_ns - w.start_ns), 0.6 * w.mean_in_flight);
  MetricSet m = std::move(pass.finish().front());
  restate_over_window(m, w, a);
  EXPECT_NEAR(m.common_metric("request_throughput")->value, 2 / 0.101, 0.1 * 2 / 0.101);
}

// Nothing generated (an embeddings run): the window still restates the request rate, but there
// is no output throughput to split into halves, so no "0.0 then 0.0 token/s" note.
TEST(StableStage, NoOutputMeansNoHalvesNote) {
  auto recs = closed_loop(4, 10);
  for (auto& r : recs) {
    r.chunks.clear();
    r.first_token_ns = r.last_token_ns = record::kNone;
    r.completion_tokens = 0;
  }
  StableStageFinder f(4);
  for (const auto& r : recs) f.add(r);
  const StableWindow w = f.finish();
  MetricsPass pass(RunFacts{4, true}, {Definitions::Tokbench});
  WindowArrivals a;
  for (const auto& r : recs) {
    if (w.contains(r.sent_ns)) pass.add(r);
    a.add(r, w);
  }
  MetricSet m = std::move(pass.finish().front());
  restate_over_window(m, w, a);
  EXPECT_NEAR(m.common_metric("request_throughput")->value, 4 / 0.101, 0.3);
  for (const auto& n : m.notes) EXPECT_EQ(n.find("two halves"), std::string::npos) << n;
}

TEST(StableStage, AWindowWhoseThroughputDriftsIsCalledUnsteady) {
  StableWindow w;
  w.found = true;
  w.level = 1;
  w.start_ns = 0;
  w.end_ns = testing::ms(1000);
  w.mean_in_flight = 1;
  // 10 tokens in the first half, 2 in the second.
  auto fast = stream_record(0, {}, 450, 10, 5);
  for (int i = 0; i < 10; ++i)
    fast.chunks.push_back({testing::ms(40.0 * i + 10), 10, -1, ChunkKind::Content});
  auto slow = stream_record(500, {}, 990, 2, 5);
  for (int i = 0; i < 2; ++i)
    slow.chunks.push_back({testing::ms(600.0 + 200 * i), 10, -1, ChunkKind::Content});
  WindowArrivals a;
  a.add(fast, w);
  a.add(slow, w);
  EXPECT_EQ(a.first_half, 10);
  EXPECT_EQ(a.second_half, 2);
  MetricSet m = compute({fast, slow}, RunFacts{1, true}, Definitions::Tokbench);
  restate_over_window(m, w, a);
  bool unsteady = false;
  for (const auto& n : m.notes) unsteady |= n.find("not steady") != std::string::npos;
  EXPECT_TRUE(unsteady);
}

}  // namespace
}  // namespace tokbench::metrics
