// tests/support: the helpers other tests lean on must themselves be right — IsValidUnlessBusy
// fails an INVALID run with every reason and excuses only what a busy machine causes (as the
// verdict words it), and RunSettings sets exactly what it names.
#include <gtest/gtest.h>

#include "metrics/verdict.hpp"
#include "support/records.hpp"
#include "support/run_test.hpp"

namespace tokbench::testing {
namespace {

TEST(Support, IsValidFailsAnInvalidRunWithEveryReason) {
  runner::RunOutcome o;
  o.verdict.valid = true;
  EXPECT_TRUE(IsValidUnlessBusy(o));
  o.verdict.valid = false;
  o.verdict.reasons = {"2 of 10 requests failed", "only 8 successful request(s)"};
  const ::testing::AssertionResult r = IsValidUnlessBusy(o);
  EXPECT_FALSE(r);
  EXPECT_NE(std::string(r.message()).find("2 of 10 requests failed"), std::string::npos)
      << r.message();
  EXPECT_NE(std::string(r.message()).find("only 8 successful"), std::string::npos) << r.message();
}

// The verdict's own words for a busy machine are what busy_machine_reason knows: a client busy
// or starved of CPU, and a cross-check its late stamps fail; no other reason is excused.
TEST(Support, OnlyTheVerdictsBusyMachineReasonsAreExcused) {
  metrics::MetricSet m;
  metrics::VerdictTally t;
  t.measured = 200;
  auto reasons_of = [&](const metrics::VerdictFacts& f) { return metrics::judge(m, t, f).reasons; };
  metrics::VerdictFacts busy;
  busy.client.cpu_share = 0.95;
  busy.server_disagrees = true;
  metrics::VerdictFacts starved;
  starved.client.cpu_share = 0.5;
  starved.client.busy_share = 0.95;
  metrics::VerdictFacts other_traffic;
  other_traffic.server_disagrees = true;
  for (const auto& f : {busy, starved, other_traffic}) {
    const auto reasons = reasons_of(f);
    ASSERT_FALSE(reasons.empty());
    for (const auto& r : reasons) EXPECT_TRUE(busy_machine_reason(r)) << r;
    runner::RunOutcome o;
    o.verdict.valid = false;
    o.verdict.reasons = reasons;
    EXPECT_TRUE(IsValidUnlessBusy(o));
  }
  t.usage_over_cap = 1;  // a server's impossible usage: never the machine's doing
  const auto reasons = reasons_of(busy);
  runner::RunOutcome o;
  o.verdict.valid = false;
  o.verdict.reasons = reasons;
  const ::testing::AssertionResult r = IsValidUnlessBusy(o);
  EXPECT_FALSE(r);
  EXPECT_NE(std::string(r.message()).find("max_tokens allows"), std::string::npos) << r.message();
  metrics::VerdictFacts cut_short;
  cut_short.incomplete = "the run stopped early";
  t.usage_over_cap = 0;
  for (const auto& reason : reasons_of(cut_short)) EXPECT_FALSE(busy_machine_reason(reason));
}

// The README test leaves out of its one-screen count the verdict items only a busy machine
// causes: the client's measured own delay (a warning under 1 ms, a reason past it), never the
// warnings every quiet run of the example prints too.
TEST(Support, BusyMachineWarningsAreTheClientsOwnDelay) {
  metrics::VerdictTally t;
  for (int i = 0; i < 50; ++i)
    t.add(stream_record(0, {{10, record::ChunkKind::Content}}, 11, 1, 1));
  auto judged = [&](double delay_ms) {
    metrics::MetricSet m;
    metrics::Summary ttft, delay;
    ttft.mean = 10;
    ttft.n = 50;
    delay.mean = delay_ms;
    delay.p99 = 3 * delay_ms;
    delay.n = 50;
    m.rows.push_back({"TTFT", metrics::Unit::Ms, ttft, "", ""});
    m.extra_rows.push_back({"ClientDelay", metrics::Unit::Ms, delay, "", ""});
    return metrics::judge(m, t, metrics::VerdictFacts{});
  };
  const metrics::Verdict grain = judged(0.5);  // 5% of a 10 ms TTFT, under 1 ms: a warning
  ASSERT_TRUE(grain.valid);
  ASSERT_EQ(grain.warnings.size(), 2u);  // and 50 requests: P99 interpolates
  size_t busy = 0;
  for (const auto& w : grain.warnings) busy += busy_machine_warning(w);
  EXPECT_EQ(busy, 1u) << grain.warnings[0] << "\n" << grain.warnings[1];
  const metrics::Verdict past = judged(2);  // 20%, over 1 ms: INVALID, for a busy machine
  ASSERT_FALSE(past.reasons.empty());
  for (const auto& r : past.reasons) EXPECT_TRUE(busy_machine_warning(r)) << r;
}

TEST(Support, RunSettingsSetWhatTheyName) {
  const runner::RunConfig c = RunSettings()
                                  .url("http://127.0.0.1:1/v1/responses")
                                  .concurrency(4)
                                  .prompts(12)
                                  .max_tokens(8)
                                  .ignore_eos()
                                  .stream(false)
                                  .with([](runner::RunConfig& x) { x.load.seed = 7; });
  EXPECT_EQ(c.target.url, "http://127.0.0.1:1/v1/responses");
  EXPECT_EQ(c.load.concurrency, 4);
  EXPECT_EQ(c.load.num_prompts, 12);
  EXPECT_EQ(c.request.max_tokens, 8);
  EXPECT_TRUE(c.request.ignore_eos);
  EXPECT_FALSE(c.request.stream);
  EXPECT_EQ(c.load.seed, 7u);
  EXPECT_EQ(c.load.request_rate,
            runner::RunConfig{}.load.request_rate);  // what it does not name keeps its default
}

}  // namespace
}  // namespace tokbench::testing
