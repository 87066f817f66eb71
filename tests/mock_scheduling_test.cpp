// mock/batch: the simulator schedules like vLLM (issue 43, item 5), so a per-class result has a
// known answer — fcfs by arrival; priority (the body's "priority", lower first) preempting the
// worst running request when a better one waits on a full batch, the preempted one recomputed
// and finished; fair (the tenant of x-gateway-inference-fairness-id served the fewest tokens
// first); and a priority refused where the policy would not honour it, as vLLM refuses it.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <thread>

#include "support/engine_harness.hpp"
#include "support/machine_noise.hpp"
#include "support/server_counter.hpp"

namespace tokbench::client {
namespace {

mock::MockSettings batch_of(int seqs, mock::SchedulingPolicy policy) {
  mock::MockSettings s;
  s.ttft_ms = 5;
  s.tpot_ms = 2;
  s.max_num_seqs = seqs;
  s.scheduling_policy = policy;
  return s;
}

// `n` streamed chat bodies of `tokens` tokens, with "priority" when given.
std::vector<std::string> asking(int n, int tokens, std::optional<int> priority = {}) {
  std::vector<std::string> bs = bodies(n, true, true, tokens);
  if (priority)
    for (auto& b : bs) b.insert(1, fmt::format("\"priority\":{},", *priority));
  return bs;
}

EngineSettings at(const Harness& h, int concurrency, std::vector<std::string> headers = {}) {
  EngineSettings es;
  es.url = h.url();
  es.concurrency = concurrency;
  es.headers = std::move(headers);
  return es;
}

// The records of `later`, sent `delay` after `first` started (both run to their end).
struct Two {
  std::vector<RequestRecord> first, later;
};
Two run_two(EngineSettings a, std::vector<std::string> as, EngineSettings b,
            std::vector<std::string> bs, std::chrono::milliseconds delay) {
  Two out;
  std::thread t([&] { out.first = run(a, as); });
  std::this_thread::sleep_for(delay);
  out.later = run(b, bs);
  t.join();
  return out;
}

double ttft_ms(const RequestRecord& r) {
  return static_cast<double>(r.first_token_ns - r.sent_ns) / 1e6;
}

int64_t preemptions(const Harness& h, int64_t want) {
  return testing::counter_at("http://127.0.0.1:" + std::to_string(h.port) + "/metrics",
                             R"(vllm:num_preemptions_total\{[^}]*\} (\d+))", want);
}

TEST(MockScheduling, ABetterPriorityPreemptsTheWorstRunningRequest) {
  Harness h(batch_of(2, mock::SchedulingPolicy::Priority));
  // Two long priority-10 streams fill the batch (200 tokens: 400 ms); a priority-0 request comes
  // 60 ms later and is served at once: one of the two gives its place up, and is recomputed.
  const Two two = run_two(at(h, 2), asking(2, 200, 10), at(h, 1), asking(1, 10, 0),
                          std::chrono::milliseconds(60));
  ASSERT_EQ(two.later.size(), 1u);
  EXPECT_EQ(two.later[0].outcome, Outcome::Ok) << two.later[0].error;
  // Served at once: a 1 ms slice, then its 5 ms prefill (waiting its turn: about 340 ms).
  EXPECT_TRUE(testing::WithinTimingBoundHere(ttft_ms(two.later[0]), 60));
  for (const auto& r : two.first) {  // the preempted one finished all the same
    EXPECT_EQ(r.outcome, Outcome::Ok) << r.error;
    EXPECT_EQ(r.completion_tokens, 200);
  }
  EXPECT_EQ(preemptions(h, 1), 1);
}

TEST(MockScheduling, AnEqualPriorityWaitsItsTurn) {
  Harness h(batch_of(2, mock::SchedulingPolicy::Priority));
  const Two two = run_two(at(h, 2), asking(2, 200, 10), at(h, 1), asking(1, 10, 10),
                          std::chrono::milliseconds(60));
  ASSERT_EQ(two.later.size(), 1u);
  EXPECT_GT(ttft_ms(two.later[0]), 150) << "it waits for a place (about 340 ms)";
  EXPECT_EQ(preemptions(h, 0), 0);
}

TEST(MockScheduling, FairServesTheLeastServedTenantFirst) {
  for (const auto policy : {mock::SchedulingPolicy::Fair, mock::SchedulingPolicy::Fcfs}) {
    Harness h(batch_of(1, policy));
    // Tenant a queues six 50-token requests (about 105 ms each, one at a time); tenant b's one
    // request comes 30 ms later.
    const Two two = run_two(at(h, 6, {"x-gateway-inference-fairness-id: a"}), asking(6, 50),
                            at(h, 1, {"x-gateway-inference-fairness-id: b"}), asking(1, 10),
                            std::chrono::milliseconds(30));
    ASSERT_EQ(two.later.size(), 1u);
    const double waited = ttft_ms(two.later[0]);
    if (policy == mock::SchedulingPolicy::Fair)
      EXPECT_TRUE(testing::WithinTimingBoundHere(waited, 300))
          << "fair: b goes after a's running request, at most one more";
    else
      EXPECT_GT(waited, 400) << "fcfs: b waits for all of a's";
  }
}

TEST(MockScheduling, APriorityIsRefusedWhereItWouldNotBeHonoured) {
  Harness h(batch_of(0, mock::SchedulingPolicy::Fcfs));
  const auto recs = run(at(h, 1), asking(1, 5, 3));
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].http_status, 400);
  EXPECT_NE(recs[0].error.find("Got priority 3 but Priority scheduling is not enabled."),
            std::string::npos)
      << recs[0].error;
  // A priority of 0 is every request's default: accepted.
  EXPECT_EQ(run(at(h, 1), asking(1, 5, 0))[0].outcome, Outcome::Ok);
}

}  // namespace
}  // namespace tokbench::client
