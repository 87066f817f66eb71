// client/engine: a client that gives up (--cancel-rate, core/cancel) — after a count of answer
// tokens, or a time after sending — closes its connection, keeps what came, and records
// client_cancelled; the server (the simulator, and a llama.cpp-like server that is not ours) sees
// a client that left. Both transports.
#include <gtest/gtest.h>

#include <thread>

#include "client/engine.hpp"
#include "support/engine_harness.hpp"
#include "support/engine_like.hpp"
#include "support/machine_noise.hpp"
#include "support/server_counter.hpp"

namespace tokbench::client {
namespace {

TOKBENCH_ENGINE_ON_BOTH_TRANSPORTS();

// Runs `bodies` closed-loop, request i cancelled at `cancel(i)` (none: runs to its end).
std::vector<RequestRecord> run_cancelling(EngineSettings es, const std::vector<std::string>& bs,
                                          const std::function<core::CancelPoint(int64_t)>& cancel) {
  load::CountedSource source(static_cast<int64_t>(bs.size()), false, load::closed_loop(),
                             [&](int64_t i) {
                               core::PlannedRequest p;
                               p.body = bs[static_cast<size_t>(i)];
                               p.facts.cancel = cancel(i);
                               return p;
                             });
  return run_source(std::move(es), source);
}

int64_t text_events(const RequestRecord& r) {
  return std::count_if(r.chunks.begin(), r.chunks.end(),
                       [](const record::ChunkEvent& c) { return c.has_text(); });
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
  EXPECT_EQ(testing::aborted_at("http://127.0.0.1:" + std::to_string(h.port) + "/metrics", 4), 4);
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
  EXPECT_EQ(testing::aborted_at("http://127.0.0.1:" + std::to_string(h.port) + "/metrics", 4), 4);
}

// A warm-up request is never cancelled: it exists to run to its end.
TEST_P(EngineOn, AWarmUpRunsToItsEnd) {
  Harness h(fast());
  EngineSettings es = settings();
  es.url = h.url();
  load::CountedSource source(2, true, load::closed_loop(), [&](int64_t) {
    core::PlannedRequest p;
    p.body = bodies(1, true, true, 20)[0];
    p.facts.cancel.after_tokens = 2;
    return p;
  });
  const auto out = run_source(es, source);
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
