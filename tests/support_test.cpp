// tests/support: the helpers other tests lean on must themselves be right — IsValid fails an
// INVALID run with every reason, and RunSettings sets exactly what it names.
#include <gtest/gtest.h>

#include "support/run_test.hpp"

namespace tokbench::testing {
namespace {

TEST(Support, IsValidFailsAnInvalidRunWithEveryReason) {
  runner::RunOutcome o;
  o.verdict.valid = true;
  EXPECT_TRUE(IsValid(o));
  o.verdict.valid = false;
  o.verdict.reasons = {"2 of 10 requests failed", "only 8 successful request(s)"};
  const ::testing::AssertionResult r = IsValid(o);
  EXPECT_FALSE(r);
  EXPECT_NE(std::string(r.message()).find("2 of 10 requests failed"), std::string::npos)
      << r.message();
  EXPECT_NE(std::string(r.message()).find("only 8 successful"), std::string::npos) << r.message();
}

TEST(Support, RunSettingsSetWhatTheyName) {
  const runner::RunConfig c = RunSettings()
                                  .url("http://127.0.0.1:1/v1/responses")
                                  .concurrency(4)
                                  .prompts(12)
                                  .max_tokens(8)
                                  .ignore_eos()
                                  .stream(false)
                                  .with([](runner::RunConfig& x) { x.seed = 7; });
  EXPECT_EQ(c.url, "http://127.0.0.1:1/v1/responses");
  EXPECT_EQ(c.concurrency, 4);
  EXPECT_EQ(c.num_prompts, 12);
  EXPECT_EQ(c.max_tokens, 8);
  EXPECT_TRUE(c.ignore_eos);
  EXPECT_FALSE(c.stream);
  EXPECT_EQ(c.seed, 7u);
  EXPECT_EQ(c.request_rate,
            runner::RunConfig{}.request_rate);  // what it does not name keeps its default
}

}  // namespace
}  // namespace tokbench::testing
