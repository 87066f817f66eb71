// --interference as a user runs it (issue 43, item 3): each class alone, then every class together,
// round by round, against a server that is not our client (the simulator as a separate process,
// vLLM's priority scheduling and a full batch). The interactive class is not slowed by the batch
// class while the batch class is; each slowdown and its interval equal a hand computation from
// the run folders' own result.json; `report` on the root rebuilds the same matrix, and a series
// that lost a run says it is incomplete, and --resume runs that one again. The plan runs a class
// alone with the seed it has beside the others, and the flags a series cannot take are refused by
// name.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <numeric>

#include "plan/plan.hpp"
#include "runfolder/files.hpp"
#include "runfolder/run_folder.hpp"
#include "support/machine_noise.hpp"
#include "support/run_test.hpp"
#include "support/sim_process.hpp"

namespace tokbench {
namespace {

namespace fs = std::filesystem;

constexpr const char* kChat = "name=chat,concurrency=2,num-prompts=24,priority=0";
constexpr const char* kBatch = "name=batch,concurrency=8,num-prompts=48,priority=10";

class InterferenceTest : public testing::RunTest {
 protected:
  runner::RunOutcome interference(const std::string& url, int rounds, std::string resume = "") {
    return run(testing::RunSettings()
                   .url(url)
                   .max_tokens(24)
                   .ignore_eos()
                   .with([&](runner::RunConfig& r) {
                     r.load.classes = {kChat, kBatch};
                     r.experiment.interference = true;
                     r.experiment.repeats = rounds;
                     r.experiment.resume = resume;
                   })
                   .build());
  }
  // A class's statistic of a row in one run folder's result.json.
  static double class_stat(const fs::path& folder, const char* cls, const char* row,
                           const char* stat) {
    simdjson::dom::parser parser;
    return parser.load((folder / "result.json").string())
        .value()["classes"][cls]["metrics"][row][stat]
        .get_double()
        .value();
  }
  static std::string summary_text(const fs::path& root) {
    return runfolder::read_file(root / "interference" / "summary.json");
  }
  static std::string report_root(const fs::path& root) {
    char* text = nullptr;
    size_t size = 0;
    std::FILE* console = open_memstream(&text, &size);
    runner::recompute(root, std::nullopt, console);
    std::fclose(console);
    std::string said(text, size);
    std::free(text);
    return said;
  }
};

TEST_F(InterferenceTest, TheBatchClassSlowsBesideTheChatClassWhileTheChatClassDoesNot) {
  testing::Sim sim({"--scheduling-policy", "priority", "--max-num-seqs", "4", "--ttft-ms", "50",
                    "--tpot-ms", "2"});
  const runner::RunOutcome out = interference(sim.url(), 2);
  EXPECT_TRUE(out.exit_code == 0 || out.exit_code == 4) << out.exit_code;  // 4: a busy machine
  const fs::path root = out.run_dir;
  for (const char* f : {"alone-chat-run-1", "alone-batch-run-1", "together-run-1",
                        "alone-chat-run-2", "alone-batch-run-2", "together-run-2"})
    EXPECT_TRUE(fs::exists(root / f / "result.json")) << f;
  // A class alone sent its own requests only.
  simdjson::dom::parser parser;
  const auto alone = parser.load((root / "alone-chat-run-1" / "result.json").string()).value();
  EXPECT_TRUE(alone["classes"]["batch"].error() == simdjson::NO_SUCH_FIELD);
  EXPECT_EQ(alone["classes"]["chat"]["requests"].get_int64().value(), 24);

  simdjson::dom::parser sp;
  const std::string summary = summary_text(root);
  const auto doc = sp.parse(summary).value();
  EXPECT_TRUE(doc["complete"].get_bool().value());
  // Each slowdown, its mean and interval equal a hand computation from the folders.
  auto check = [&](const char* cls, const char* key, const char* row, const char* stat) {
    double s[2];
    for (int k = 0; k < 2; ++k)
      s[k] = class_stat(root / fmt::format("together-run-{}", k + 1), cls, row, stat) /
             class_stat(root / fmt::format("alone-{}-run-{}", cls, k + 1), cls, row, stat);
    const auto cell = doc["slowdown"][cls][key];
    const double mean = (s[0] + s[1]) / 2;
    const double half = 12.706204736 * std::abs(s[0] - s[1]) / std::sqrt(2.0) / std::sqrt(2.0);
    EXPECT_NEAR(cell["slowdown"].get_double().value(), mean, 1e-9 * mean) << cls << " " << key;
    EXPECT_NEAR(cell["half_width"].get_double().value(), half, 1e-9 + 1e-9 * half);
    EXPECT_EQ(cell["n"].get_int64().value(), 2);
    return mean;
  };
  const double chat_ttft = check("chat", "ttft_p99_ms", "TTFT", "p99");
  const double batch_e2el = check("batch", "e2el_mean_ms", "E2EL", "mean");
  check("batch", "tpot_mean_ms", "TPOT", "mean");
  // Served first, the chat class keeps its solo TTFT P99 within 10% (past it only by what this
  // machine's scheduler takes from a thread); the batch class waits for fewer places.
  EXPECT_TRUE(testing::WithinTimingBoundHere(std::abs(chat_ttft - 1), 0.1))
      << "chat TTFT P99 slowdown " << chat_ttft;
  EXPECT_GT(batch_e2el, 1.2) << summary;
  // Throughput's slowdown is alone ÷ together: the batch class made fewer tokens a second.
  EXPECT_GT(doc["slowdown"]["batch"]["output_token_throughput"]["slowdown"].get_double().value(),
            1.0);
  const std::string csv = runfolder::read_file(root / "interference" / "summary.csv");
  EXPECT_NE(csv.find("\nbatch,e2el_mean_ms,"), std::string::npos) << csv;

  // report on the root: the same matrix from the folders, said as a table.
  const std::string said = report_root(root);
  EXPECT_NE(said.find("interference, 2 rounds: each class's slowdown"), std::string::npos) << said;
  EXPECT_NE(said.find("  chat   ×"), std::string::npos) << said;
  simdjson::dom::parser rp;
  const auto again = rp.parse(summary_text(root)).value();
  EXPECT_EQ(again["slowdown"]["batch"]["e2el_mean_ms"]["slowdown"].get_double().value(),
            doc["slowdown"]["batch"]["e2el_mean_ms"]["slowdown"].get_double().value());

  // A run lost (a folder removed, as a kill before its manifest leaves it): incomplete, said.
  fs::remove_all(root / "together-run-2");
  report_root(root);
  simdjson::dom::parser lp;
  const auto lost = lp.parse(summary_text(root)).value();
  EXPECT_FALSE(lost["complete"].get_bool().value());
  EXPECT_EQ(lost["slowdown"]["chat"]["ttft_p99_ms"]["n"].get_int64().value(), 1);
  EXPECT_TRUE(lost["slowdown"]["chat"]["ttft_p99_ms"]["half_width"].is_null());
  // --resume runs the lost run only, and the matrix is whole again.
  const auto mtime = fs::last_write_time(root / "together-run-1" / runfolder::kManifestFile);
  interference(sim.url(), 2, root.string());
  EXPECT_EQ(fs::last_write_time(root / "together-run-1" / runfolder::kManifestFile), mtime);
  simdjson::dom::parser fp;
  const auto whole = fp.parse(summary_text(root)).value();
  EXPECT_TRUE(whole["complete"].get_bool().value());
  EXPECT_EQ(whole["slowdown"]["chat"]["ttft_p99_ms"]["n"].get_int64().value(), 2);
}

TEST(InterferencePlan, AClassAloneKeepsItsPlaceAndItsSeed) {
  runner::RunConfig c;
  c.load.seed = 40;
  c.load.classes = {"name=a,concurrency=3", "name=b,request-rate=5"};
  const runner::RunPlan plan = runner::make_plan(c, nullptr);
  runner::PointSpec spec = runner::spec_of(plan, "alone-b-run-1");
  spec.classes = {"b"};
  const runner::RunPlan b = runner::at_point(plan, spec);
  ASSERT_EQ(b.parsed.classes.size(), 1u);
  EXPECT_EQ(b.parsed.classes[0].name, "b");
  EXPECT_EQ(b.cfg.load.classes, std::vector<std::string>{"name=b,request-rate=5"});
  // Alone, b draws what it draws beside a: --seed + its place in the run's list.
  EXPECT_EQ(runner::class_plan(b, 0).cfg.load.seed, runner::class_plan(plan, 1).cfg.load.seed);
  EXPECT_EQ(runner::class_plan(b, 0).cfg.load.seed, 41u);
  spec.classes = {"c"};
  EXPECT_THROW(runner::at_point(plan, spec), std::invalid_argument);
}

TEST(InterferencePlan, WhatASeriesCannotTakeIsRefusedByName) {
  auto problems = [](auto edit) {
    runner::RunConfig c;
    c.experiment.interference = true;
    c.load.classes = {"name=a,concurrency=3", "name=b,concurrency=1"};
    edit(c);
    std::string all;
    for (const auto& p : runner::validate(c)) all += p + "\n";
    return all;
  };
  EXPECT_EQ(problems([](runner::RunConfig&) {}), "");
  EXPECT_NE(problems([](runner::RunConfig& c) {
              c.load.classes.pop_back();
            }).find("--interference measures how classes slow each other: give two --class"),
            std::string::npos);
  EXPECT_NE(problems([](runner::RunConfig& c) {
              c.experiment.search = runner::SearchAxis::MaxConcurrency;
              c.experiment.slo = "ttft.p99<=100ms";
            }).find("--interference runs its own series"),
            std::string::npos);
  EXPECT_NE(problems([](runner::RunConfig& c) {
              c.experiment.resume = "/nonexistent";
            }).find("is not a folder"),
            std::string::npos);  // --resume takes an interference root
}

}  // namespace
}  // namespace tokbench
