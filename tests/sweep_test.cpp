// series/sweep: the knee and Pareto rules on hand-made rows, and real sweeps against the
// simulator in its own process — a concurrency sweep on a server capped by --max-num-seqs
// rises then flattens and the summary names the knee; zipped lists pair point by point; a
// repeated value gets its own folder; every point folder is a normal, report-able run.
#include "series/sweep.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <atomic>
#include <filesystem>

#include "client/engine.hpp"
#include "point/outputs.hpp"
#include "runfolder/run_folder.hpp"
#include "support/in_process_run.hpp"
#include "support/run_test.hpp"
#include "support/sim_process.hpp"

namespace tokbench::runner {
namespace {

namespace fs = std::filesystem;
using testing::Sim;

SweepRow row(const char* label, double load, double tput, double per_user) {
  SweepRow r;
  r.label = label;
  r.load = load;
  r.verdict = "VALID";
  r.success = 10;
  r.output_token_throughput = tput;
  r.per_user_tokens_per_s = per_user;
  return r;
}

TEST(Knee, LowestLoadWithinTenPercentOfThePeak) {
  const std::vector<SweepRow> flat{row("c1", 1, 100, 100), row("c4", 4, 380, 95),
                                   row("c16", 16, 400, 25), row("c64", 64, 395, 6)};
  const KneeAnalysis k = find_knee(flat);
  ASSERT_TRUE(k.knee.has_value());
  EXPECT_EQ(*k.knee, 1u);  // 380 >= 0.9 * 400
  EXPECT_FALSE(k.still_rising);
  EXPECT_NE(k.text.find("flattens"), std::string::npos) << k.text;
  const KneeAnalysis rising =
      find_knee({row("c1", 1, 100, 100), row("c4", 4, 300, 75), row("c16", 16, 900, 56)});
  EXPECT_FALSE(rising.knee.has_value());
  EXPECT_TRUE(rising.still_rising);
  EXPECT_NE(rising.text.find("still rising"), std::string::npos);
  // Issue 39, F6: the lowest load already at the plateau is not "rises from X (c2) to X at c2".
  const KneeAnalysis flat_from_start =
      find_knee({row("c2", 2, 252, 100), row("c4", 4, 250, 60), row("c8", 8, 251, 30)});
  ASSERT_TRUE(flat_from_start.knee.has_value());
  EXPECT_EQ(*flat_from_start.knee, 0u);
  EXPECT_EQ(flat_from_start.text.find("rises from"), std::string::npos) << flat_from_start.text;
  EXPECT_NE(flat_from_start.text.find("within 10% of its peak 252.00 tok/s already at the lowest "
                                      "load (c2: 252.00 tok/s)"),
            std::string::npos)
      << flat_from_start.text;
  std::vector<SweepRow> one{row("c1", 1, 100, 100)};
  EXPECT_FALSE(find_knee(one).knee.has_value());
  // The highest load stopped past saturation: its throughput is the ceiling, not a rise to
  // extend (the summary said "extend the sweep" beside its own SATURATED point).
  std::vector<SweepRow> capped{row("r5", 5, 50, 10), row("r40", 40, 200, 2)};
  capped[1].verdict = "SATURATED";
  const KneeAnalysis ceiling = find_knee(capped);
  EXPECT_FALSE(ceiling.still_rising);
  EXPECT_EQ(ceiling.text.find("extend the sweep"), std::string::npos) << ceiling.text;
  EXPECT_NE(ceiling.text.find("which was past saturation"), std::string::npos) << ceiling.text;
  EXPECT_NE(ceiling.text.find("the knee lies between r5 (50.000 tok/s) and r40"), std::string::npos)
      << ceiling.text;
}

TEST(Knee, ParetoFrontDropsDominatedPoints) {
  // c16 and c64: c64 has less of both than c16, so it is dominated; the rest trade one for the
  // other.
  const auto front = pareto_front({row("c1", 1, 100, 100), row("c4", 4, 380, 95),
                                   row("c16", 16, 400, 25), row("c64", 64, 395, 6)});
  EXPECT_EQ(front, (std::vector<size_t>{0, 1, 2}));
}

class SweepRun : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::fresh_test_dir("tokbench_sweep"); }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  RunOutcome run(const RunConfig& c) { return testing::run_in_process(c, dir_); }
  simdjson::dom::element json(const fs::path& p) {
    auto doc = parser_.load(p.string());
    EXPECT_FALSE(doc.error()) << p;
    return doc.value();
  }
  fs::path dir_;
  simdjson::dom::parser parser_;
};

TEST_F(SweepRun, ConcurrencySweepOnACappedServerRisesThenFlattensAndNamesTheKnee) {
  Sim sim({"--max-num-seqs", "4", "--ttft-ms", "10", "--tpot-ms", "4"});
  auto c = testing::RunSettings()
               .url(sim.url())
               .concurrency(1)
               .prompts(24)
               .max_tokens(30)
               .ignore_eos()
               .with([&](auto& x) {
                 x.load.concurrency_sweep = {1, 4, 16};
               })
               .build();
  const RunOutcome out = run(c);
  EXPECT_TRUE(testing::ExitedValidUnlessBusy(out));
  const fs::path root = out.run_dir;
  auto s = json(root / "sweep" / "summary.json")["sweep"];
  auto points = simdjson::dom::array(s["points"]);
  ASSERT_EQ(points.size(), 3u);
  std::vector<double> tput;
  for (auto p : points) tput.push_back(double(p["output_token_throughput"]));
  EXPECT_GT(tput[1], 3 * tput[0]);    // 1 -> 4 in flight: about 4x
  EXPECT_LT(tput[2], 1.1 * tput[1]);  // 16 in flight on 4 seats: no more
  EXPECT_EQ(std::string_view(s["knee"]["point"]), "c4");
  EXPECT_NE(std::string(std::string_view(s["knee"]["text"])).find("flattens"), std::string::npos);
  // The CSV has one row per point, and the page carries the same data.
  EXPECT_EQ(testing::count_lines(root / "sweep" / "summary.csv"), 4u);
  const std::string page = testing::slurp(root / "sweep" / "sweep.html");
  EXPECT_NE(page.find("\"knee\":true"), std::string::npos);
  EXPECT_NE(page.find("TOKBENCH_SWEEP"), std::string::npos);
  // Each point is a normal run folder: `report` reaches the same verdict from it alone.
  for (const char* label : {"c1", "c4", "c16"}) {
    const runfolder::RunFolder f = runfolder::load_run_folder(root / label);
    ASSERT_TRUE(f.end.has_value()) << label;
    EXPECT_EQ(f.manifest.facts.max_concurrency, std::stoi(label + 1));
    const Written w = write_outputs(f, metrics::Definitions::Tokbench,
                                    dir_ / (std::string("view_") + label), false);
    EXPECT_TRUE(w.verdict.valid) << label;
    EXPECT_EQ(w.metrics.common_metric("success_requests")->value, 24) << label;
  }
}

TEST_F(SweepRun, ZippedListsPairPointByPointAndRepeatsGetTheirOwnFolder) {
  Sim sim({"--ttft-ms", "2", "--tpot-ms", "1"});
  auto c = testing::RunSettings()
               .url(sim.url())
               .max_tokens(5)
               .with([&](auto& x) {
                 x.load.concurrency_sweep = {1, 4, 4};
                 x.load.num_prompts_sweep = {3, 12, 8};
               })
               .build();
  const RunOutcome out = run(c);
  for (const auto& [label, n] : {std::pair{"c1-n3", 3}, {"c4-n12", 12}, {"c4-n8", 8}}) {
    const runfolder::RunFolder f = runfolder::load_run_folder(out.run_dir / label);
    EXPECT_EQ(f.manifest.planned_requests, n) << label;
    EXPECT_EQ(testing::count_lines(f.details), static_cast<size_t>(n)) << label;
  }
  c.load.num_prompts_sweep.clear();
  c.load.num_prompts = 2;
  const RunOutcome again = run(c);
  EXPECT_TRUE(fs::exists(again.run_dir / "c4" / "manifest.json"));
  EXPECT_TRUE(fs::exists(again.run_dir / "c4-2" / "manifest.json"));  // EvalScope #779 crashed here
}

TEST_F(SweepRun, RateSweepIsOpenLoop) {
  Sim sim({"--ttft-ms", "2", "--tpot-ms", "1"});
  auto c = testing::RunSettings()
               .url(sim.url())
               .concurrency(8)
               .rate(20)
               .with([&](auto& x) {
                 x.load.request_rate_sweep = {20, 40};
               })
               .build();
  c.load.arrivals =
      load::ArrivalShape::Kind::Constant;  // deterministic gaps: the achieved rate is the asked one
  c.load.num_prompts = 20;
  c.request.max_tokens = 5;
  const RunOutcome out = run(c);
  auto s = json(out.run_dir / "sweep" / "summary.json")["sweep"];
  EXPECT_EQ(std::string_view(s["x_name"]), "request_rate");
  EXPECT_EQ(runfolder::load_run_folder(out.run_dir / "r40").manifest.request_rate, 40);
  EXPECT_NEAR(double(simdjson::dom::array(s["points"]).at(1)["request_throughput"]), 40, 12);
}

}  // namespace
}  // namespace tokbench::runner
