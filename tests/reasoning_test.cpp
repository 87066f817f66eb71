// The reasoning split (issue 42, item 4): against the simulator reasoning for its first N tokens
// (--reasoning-tokens, vLLM's delta.reasoning_content), each phase's first token and pace are
// within 1% of what the simulator sent (its --trace), the token counts are exact, and TTFT is
// the first reasoning token; a run that does not reason says n/a.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "support/run_test.hpp"
#include "support/sim_process.hpp"
#include "support/sim_trace.hpp"

namespace tokbench {
namespace {

namespace fs = std::filesystem;

class ReasoningTest : public testing::RunTest {};

double mean_of(const runner::RunOutcome& out, const char* name) {
  const metrics::Row* r = out.metrics.row(name);
  EXPECT_TRUE(r && r->stats) << name << ": " << (r ? r->na_reason : "no row");
  return r && r->stats ? r->stats->mean : -1;
}

TEST_F(ReasoningTest, EachPhaseIsTheSimulatorsTruth) {
  const fs::path trace = dir_ / "trace.jsonl";
  testing::Sim sim({"--reasoning-tokens", "10", "--ttft-ms", "50", "--tpot-ms", "10", "--trace",
                    trace.string()});
  for (const bool exact : {false, true}) {
    SCOPED_TRACE(exact ? "--continuous-usage" : "counted in events");
    auto c = testing::RunSettings()
                 .url(sim.url())
                 .concurrency(2)
                 .prompts(8)
                 .max_tokens(24)
                 .ignore_eos()
                 .build();
    c.request.continuous_usage = exact;
    const runner::RunOutcome out = run(c);
    EXPECT_TRUE(testing::IsValidUnlessBusy(out));
    EXPECT_DOUBLE_EQ(mean_of(out, "ReasoningTokens"), 10);
    EXPECT_DOUBLE_EQ(mean_of(out, "AnswerTokens"), 14);
    EXPECT_EQ(out.metrics.row("TimeToFirstAnswer")->stats->n, 8);
    // TTFT is the first token of any kind: the first reasoning token.
    EXPECT_DOUBLE_EQ(mean_of(out, "TTFT"), mean_of(out, "TimeToFirstReasoning"));
    // The truth: what the simulator wrote, per answer, on the client's clock.
    std::map<std::string, testing::SimTruth> truth;
    for (int tries = 0; tries < 100 && truth.size() < 8 * (exact ? 2u : 1u); ++tries) {
      truth = testing::read_sim_trace(trace);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    double answer = 0, reasoning = 0, pace = 0;
    int n = 0;
    for (const auto& r : records(out)) {
      const auto it = truth.find(r.request_id);
      ASSERT_NE(it, truth.end()) << r.request_id;
      ASSERT_EQ(it->second.reasoning_writes, 10u);
      answer += it->second.ttft_ms;  // the first content write
      reasoning += it->second.first_reasoning_ms;
      pace += it->second.reasoning_tpot_ms;
      ++n;
    }
    ASSERT_EQ(n, 8);
    answer /= n, reasoning /= n, pace /= n;
    EXPECT_GT(answer, reasoning + 80);  // ten reasoning tokens at ~10 ms came first
    // Within 1%, and a millisecond for the loopback between the two clocks' readings.
    EXPECT_NEAR(mean_of(out, "TimeToFirstAnswer"), answer, answer * 0.01 + 1.0);
    EXPECT_NEAR(mean_of(out, "TimeToFirstReasoning"), reasoning, reasoning * 0.01 + 1.0);
    EXPECT_NEAR(mean_of(out, "ReasoningTPOT"), pace, pace * 0.01 + 0.2);
    std::string notes;
    for (const auto& note : out.metrics.notes) notes += note + "\n";
    EXPECT_NE(notes.find("8 answer(s) reasoned first"), std::string::npos) << notes;
    EXPECT_EQ(notes.find("counted in events") == std::string::npos, exact) << notes;
  }
}

TEST_F(ReasoningTest, AnAnswerThatDoesNotReasonSaysNotApplicable) {
  testing::Sim sim({"--ttft-ms", "5", "--tpot-ms", "1"});
  const runner::RunOutcome out =
      run(testing::RunSettings().url(sim.url()).prompts(4).max_tokens(4).build());
  const metrics::Row* r = out.metrics.row("TimeToFirstAnswer");
  ASSERT_NE(r, nullptr);
  EXPECT_FALSE(r->stats);
  EXPECT_NE(r->na_reason.find("no streamed answer reasoned"), std::string::npos);
}

}  // namespace
}  // namespace tokbench
