// client/engine: a client that gives up (--cancel-rate, core/cancel) — after a count of answer
// tokens, or a time after sending — closes its connection, keeps what came, and records
// client_cancelled; the server (the simulator, and a llama.cpp-like server that is not ours) sees
// a client that left. Both transports.
#include <gtest/gtest.h>

#include <regex>
#include <thread>

#include "client/engine.hpp"
#include "net/http_get.hpp"
#include "support/engine_harness.hpp"
#include "support/engine_like.hpp"
#include "support/machine_noise.hpp"

namespace tokbench::client {
namespace {

TOKBENCH_ENGINE_ON_BOTH_TRANSPORTS();

// No schedule: each request goes when a slot is free (a closed loop).
struct ClosedLoop final : load::Arrivals {
  int64_t next_offset_ns() override { return core::kNotSet; }
};

// Runs `bodies` closed-loop, request i cancelled at `cancel(i)` (none: runs to its end).
std::vector<RequestRecord> run_cancelling(EngineSettings es, const std::vector<std::string>& bs,
                                          const std::function<core::CancelPoint(int64_t)>& cancel) {
  std::atomic<int> stop{kRunning};
  std::mutex mu;
  std::vector<RequestRecord> out;
  Engine engine(std::move(es));
  load::CountedSource source(static_cast<int64_t>(bs.size()), false, std::make_unique<ClosedLoop>(),
                             [&](int64_t i) {
                               core::PlannedRequest p;
                               p.body = bs[static_cast<size_t>(i)];
                               p.facts.cancel = cancel(i);
                               return p;
                             });
  engine.run(
      source, steady_now_ns(),
      [&](RequestRecord&& r) {
        std::lock_guard l(mu);
        out.push_back(std::move(r));
      },
      stop);
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.index < b.index; });
  return out;
}

int64_t text_events(const RequestRecord& r) {
  return std::count_if(r.chunks.begin(), r.chunks.end(),
                       [](const record::ChunkEvent& c) { return c.has_text(); });
}

// The simulator's vllm:request_success_total{finished_reason="abort"}, once it reaches `want`
// (it learns of a client that left at its next write), or what it says after 5 s.
int64_t aborted_at(const std::string& metrics_url, int64_t want) {
  int64_t n = -1;
  for (int i = 0; i < 100 && n != want; ++i) {
    if (i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const auto got = net::http_get(metrics_url, {}, "", 2000);
    std::smatch m;
    if (std::regex_search(got.body, m, std::regex(R"(finished_reason="abort"\} (\d+))")))
      n = std::stoll(m[1]);
  }
  return n;
}

TEST_P(EngineOn, ATokenCountCancelKeepsWhatCameAndTheServerAbortsIt) {
  Harness h(fast());
  EngineSettings es = settings();
  es.url = h.url();
  es.concurrency = 2;
  const auto bs = bodies(8, true, true, 40);
  const auto recs = run_cancelling(es, bs, [](int64_t i) {
    core::CancelPoint p;
    if (i % 2 == 0) p.after_tokens = 3;
    return p;
  });
  ASSERT_EQ(recs.size(), 8u);
  for (const auto& r : recs) {
    if (r.index % 2 == 0) {
      EXPECT_EQ(r.outcome, Outcome::ClientCancelled) << r.index << ": " << r.error;
      EXPECT_TRUE(r.cancel_planned);
      EXPECT_EQ(text_events(r), 3) << r.index;  // what came before the cancel is kept
      EXPECT_NE(r.error.find("after 3 answer token(s)"), std::string::npos) << r.error;
      EXPECT_EQ(r.done_ns, r.last_token_ns);  // let go as the third token was read
    } else {
      EXPECT_EQ(r.outcome, Outcome::Ok) << r.index << ": " << r.error;
      EXPECT_FALSE(r.cancel_planned);
      EXPECT_EQ(r.completion_tokens, 40);
    }
  }
  EXPECT_EQ(aborted_at("http://127.0.0.1:" + std::to_string(h.port) + "/metrics", 4), 4);
}

TEST_P(EngineOn, ATimedCancelLetsGoOnTimeStreamedOrNot) {
  mock::MockSettings ms = fast();
  ms.tpot_ms = 2;  // 200 tokens: 400 ms; the cancel comes at 40 ms
  Harness h(ms);
  for (const bool stream : {true, false}) {
    EngineSettings es = settings();
    es.url = h.url();
    es.stream = stream;
    es.concurrency = 3;
    const auto recs = run_cancelling(es, bodies(3, true, stream, 200), [](int64_t i) {
      core::CancelPoint p;
      if (i < 2) p.after_ns = 40'000'000;
      return p;
    });
    ASSERT_EQ(recs.size(), 3u);
    for (const auto& r : recs) {
      if (r.index < 2) {
        EXPECT_EQ(r.outcome, Outcome::ClientCancelled) << r.error;
        const int64_t held = r.done_ns - r.sent_ns;
        EXPECT_GE(held, 40'000'000) << "stream " << stream;
        // On time (a non-streamed answer wakes the client for nothing before its end: the
        // cancel is a deadline of its own), long before its 400 ms answer.
        EXPECT_TRUE(testing::WithinTimingBoundHere(static_cast<double>(held) / 1e6, 60))
            << "stream " << stream;
        EXPECT_NE(r.error.find("ms after it was sent"), std::string::npos) << r.error;
      } else {
        EXPECT_EQ(r.outcome, Outcome::Ok) << r.error;
      }
    }
  }
  EXPECT_EQ(aborted_at("http://127.0.0.1:" + std::to_string(h.port) + "/metrics", 4), 4);
}

// A warm-up request is never cancelled: it exists to run to its end.
TEST_P(EngineOn, AWarmUpRunsToItsEnd) {
  Harness h(fast());
  EngineSettings es = settings();
  es.url = h.url();
  std::atomic<int> stop{kRunning};
  std::vector<RequestRecord> out;
  std::mutex mu;
  Engine engine(es);
  load::CountedSource source(2, true, std::make_unique<ClosedLoop>(), [&](int64_t) {
    core::PlannedRequest p;
    p.body = bodies(1, true, true, 20)[0];
    p.facts.cancel.after_tokens = 2;
    return p;
  });
  engine.run(
      source, steady_now_ns(),
      [&](RequestRecord&& r) {
        std::lock_guard l(mu);
        out.push_back(std::move(r));
      },
      stop);
  ASSERT_EQ(out.size(), 2u);
  for (const auto& r : out) {
    EXPECT_TRUE(r.warmup);
    EXPECT_EQ(r.outcome, Outcome::Ok) << r.error;
    EXPECT_FALSE(r.cancel_planned);
  }
}

// llama.cpp's server (not ours; it closes every connection after a stream): a cancelled stream
// and the requests after it, each on a connection of its own, none sent twice.
TEST_P(EngineOn, CancelsAgainstAServerThatClosesAfterEachStream) {
  testing::EngineLike srv(testing::EngineKind::Llamacpp);
  EngineSettings es = settings();
  es.url = srv.url();
  es.concurrency = 1;
  const auto recs = run_cancelling(es, bodies(4, true, true, 12), [](int64_t i) {
    core::CancelPoint p;
    if (i == 1) p.after_tokens = 5;
    return p;
  });
  ASSERT_EQ(recs.size(), 4u);
  for (const auto& r : recs) {
    EXPECT_FALSE(r.resent) << r.index;
    if (r.index == 1) {
      EXPECT_EQ(r.outcome, Outcome::ClientCancelled) << r.error;
      EXPECT_EQ(text_events(r), 5);
    } else {
      EXPECT_EQ(r.outcome, Outcome::Ok) << r.index << ": " << r.error;
      EXPECT_EQ(text_events(r), 12) << r.index;
    }
  }
  EXPECT_EQ(srv.generations(), 4);
}

}  // namespace
}  // namespace tokbench::client
