// A structured-output pair (issue 42, item 5's latency cost): --schema-paired sends the same
// prompts unconstrained, then held to --json-schema, and pairs them prompt by prompt. Against a
// simulator told what a schema costs (--schema-ttft-ms, --schema-tpot-ms) the paired costs are
// those figures; each point's folder says what was sent; `report` on the root rebuilds the pair.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "plan/plan.hpp"
#include "runfolder/files.hpp"
#include "runner/runner.hpp"
#include "support/machine_noise.hpp"
#include "support/run_test.hpp"
#include "support/sim_process.hpp"

namespace tokbench {
namespace {

namespace fs = std::filesystem;

class SchemaPairTest : public testing::RunTest {
 protected:
  fs::path schema() {
    const fs::path p = dir_ / "schema.json";
    std::ofstream(p) << R"({"type":"object","properties":{"city":{"type":"string"},)"
                        R"("n":{"type":"integer"}},"required":["city","n"]})";
    return p;
  }
  std::string joined(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += x + "\n";
    return s;
  }
};

TEST_F(SchemaPairTest, ThePairedCostIsWhatTheSimulatorCharges) {
  testing::Sim sim(
      {"--ttft-ms", "5", "--tpot-ms", "2", "--schema-ttft-ms", "30", "--schema-tpot-ms", "3"});
  auto c = testing::RunSettings()
               .url(sim.url("/v1/chat/completions"))
               .concurrency(1)
               .prompts(12)
               .build();
  c.request.json_schema = schema().string();
  c.experiment.schema_paired = true;
  const runner::RunOutcome out = run(c);
  EXPECT_TRUE(testing::ExitedValidUnlessBusy(out));
  const fs::path root = out.run_dir;
  // Each point's folder says what it sent: the first no response format, the second the schema.
  const std::string free_body =
      runfolder::read_file(root / "unconstrained" / "configs" / "request_body.json");
  const std::string held_body =
      runfolder::read_file(root / "constrained" / "configs" / "request_body.json");
  EXPECT_EQ(free_body.find("response_format"), std::string::npos) << free_body;
  EXPECT_NE(held_body.find("\"json_schema\""), std::string::npos) << held_body;
  EXPECT_EQ(free_body.substr(0, free_body.find("}],")),
            held_body.substr(0, held_body.find("}],")));  // the same messages

  simdjson::dom::parser parser;
  auto doc = parser.load((root / "pair" / "summary.json").string()).value();
  auto cost = [&](const char* metric) {
    return doc["metrics"][metric]["cost_mean_ms"].get_double().value();
  };
  for (const char* m : {"TTFT", "TPOT", "E2EL"}) {
    auto row = doc["metrics"][m];
    EXPECT_EQ(row["pairs"].get_int64().value(), 12) << m;
    // Both means are over the pairs: the cost is their difference.
    EXPECT_NEAR(row["cost_mean_ms"].get_double().value(),
                row["constrained_mean_ms"].get_double().value() -
                    row["unconstrained_mean_ms"].get_double().value(),
                1e-9)
        << m;
  }
  // The simulator's charges, paired request by request: 30 ms before the first token, 3 ms a step.
  EXPECT_TRUE(testing::WithinTimingBoundHere(std::abs(cost("TTFT") - 30), 3)) << cost("TTFT");
  EXPECT_TRUE(testing::WithinTimingBoundHere(std::abs(cost("TPOT") - 3), 0.5)) << cost("TPOT");
  EXPECT_GT(doc["metrics"]["TTFT"]["ci_high"].get_double().value(), cost("TTFT"));
  EXPECT_DOUBLE_EQ(doc["structured_valid"]["share"].get_double().value(), 1.0);
  // Unconstrained answers are not judged against the schema; constrained ones all are.
  for (const auto& r :
       record::read_details(runfolder::load_run_folder(root / "unconstrained").details.string()))
    EXPECT_FALSE(r.json_schema) << r.index;

  // `report` on the root rebuilds the pair from the two folders, the same figures.
  const double ttft = cost("TTFT"), tpot = cost("TPOT");
  std::FILE* quiet = std::fopen("/dev/null", "w");
  const runner::RunOutcome again = runner::recompute(root, std::nullopt, quiet);
  std::fclose(quiet);
  EXPECT_TRUE(testing::ExitedValidUnlessBusy(again));
  simdjson::dom::parser reparsed;
  auto rebuilt = reparsed.load((root / "pair" / "summary.json").string()).value();
  EXPECT_DOUBLE_EQ(rebuilt["metrics"]["TTFT"]["cost_mean_ms"].get_double().value(), ttft);
  EXPECT_DOUBLE_EQ(rebuilt["metrics"]["TPOT"]["cost_mean_ms"].get_double().value(), tpot);
}

// The second run sends the first run's prompts again: a server with a prefix cache serves them
// from it, which the summary shows (and the console warns of) unless --reset-prefix-cache.
TEST_F(SchemaPairTest, TheSecondRunsCacheHitsAreShown) {
  testing::Sim sim({"--ttft-ms", "2", "--tpot-ms", "1", "--enable-prefix-caching"});
  auto c =
      testing::RunSettings().url(sim.url("/v1/chat/completions")).concurrency(1).prompts(4).build();
  c.request.json_schema = schema().string();
  c.experiment.schema_paired = true;
  const runner::RunOutcome out = run(c);
  EXPECT_TRUE(testing::ExitedValidUnlessBusy(out));
  simdjson::dom::parser parser;
  auto doc = parser.load((out.run_dir / "pair" / "summary.json").string()).value();
  EXPECT_GT(doc["cached_share_constrained"].get_double().value(),
            doc["cached_share_unconstrained"].get_double().value() + 0.01);
  EXPECT_FALSE(doc["reset_prefix_cache"].get_bool().value());
}

// What cannot be paired is refused, naming the flag and the fix.
TEST_F(SchemaPairTest, WhatCannotBePairedIsRefused) {
  auto c = testing::RunSettings().prompts(4).build();
  c.experiment.schema_paired = true;
  EXPECT_NE(joined(runner::validate(c)).find("add --json-schema FILE"), std::string::npos);
  c.request.json_schema = schema().string();
  EXPECT_EQ(joined(runner::validate(c)), "");
  auto repeated = c;
  repeated.experiment.repeats = 3;
  EXPECT_NE(joined(runner::validate(repeated)).find("--schema-paired runs one load point twice"),
            std::string::npos);
  auto sessions = c;
  sessions.workload.turns = 2;
  EXPECT_NE(joined(runner::validate(sessions)).find("drop --turns"), std::string::npos);
}

}  // namespace
}  // namespace tokbench
