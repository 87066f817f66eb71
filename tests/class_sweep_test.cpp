// A sweep over one traffic class's load (issue 43, item 1: "sweeps over a class's load"), as a
// user runs it: --class 'name=batch,concurrency=1,2,4' makes one run folder per point, the batch
// class at each of its loads and every other class at its own. Each point's folder says the load
// it ran (its settings' class text), each class keeps its cap there (the in-flight count from the
// details), sweep/summary.json and sweep/classes.csv give each class's row at each point equal to
// the point's own result.json, `report ROOT` rebuilds the same files, and what a class sweep
// cannot do is refused by name.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "plan/plan.hpp"
#include "runfolder/files.hpp"
#include "runfolder/run_folder.hpp"
#include "settings/traffic_class.hpp"
#include "support/run_test.hpp"
#include "support/sim_process.hpp"

namespace tokbench {
namespace {

namespace fs = std::filesystem;

// The most requests of each class in flight at once (sent to done), from a point's details.
std::map<std::string, int> peak_in_flight(const std::vector<record::RequestRecord>& records) {
  std::map<std::string, std::vector<std::pair<int64_t, int>>> edges;
  for (const auto& r : records) {
    edges[r.traffic_class].emplace_back(r.sent_ns, 1);
    edges[r.traffic_class].emplace_back(r.done_ns, -1);
  }
  std::map<std::string, int> peak;
  for (auto& [cls, e] : edges) {
    std::sort(e.begin(), e.end());  // an end before a start at the same instant
    int now = 0;
    for (const auto& [t, d] : e) peak[cls] = std::max(peak[cls], now += d);
  }
  return peak;
}

class ClassSweepTest : public testing::RunTest {};

TEST_F(ClassSweepTest, ASweepMovesOneClassesLoadWhileTheOthersHoldTheirs) {
  testing::Sim sim({"--scheduling-policy", "priority", "--max-num-seqs", "4", "--ttft-ms", "20",
                    "--tpot-ms", "2"});
  const runner::RunOutcome out =
      run(testing::RunSettings()
              .url(sim.url())
              .max_tokens(16)
              .ignore_eos()
              .with([](runner::RunConfig& r) {
                r.load.classes = {"name=chat,concurrency=2,num-prompts=10,priority=0",
                                  "name=batch,concurrency=1,2,4,num-prompts=16,priority=10"};
              })
              .build());
  EXPECT_TRUE(out.exit_code == 0 || out.exit_code == 4) << out.exit_code;  // 4: a busy machine
  const fs::path root = out.run_dir;
  simdjson::dom::parser parser;
  const std::map<std::string, int> batch_at{{"batch-c1", 1}, {"batch-c2", 2}, {"batch-c4", 4}};
  for (const auto& [point, cap] : batch_at) {
    SCOPED_TRACE(point);
    ASSERT_TRUE(fs::exists(root / point / runfolder::kManifestFile));
    // The folder says the load it ran: the batch class's cap at this point, the chat class's own.
    const std::string manifest = runfolder::read_file(root / point / runfolder::kManifestFile);
    EXPECT_NE(
        manifest.find(fmt::format("\"name=batch,concurrency={},num-prompts=16,priority=10\"", cap)),
        std::string::npos);
    EXPECT_NE(manifest.find("\"name=chat,concurrency=2,num-prompts=10,priority=0\""),
              std::string::npos);
    const auto records =
        record::read_details(runfolder::load_run_folder(root / point).details.string());
    std::map<std::string, int> sent;
    for (const auto& r : records)
      if (!r.warmup) ++sent[r.traffic_class];
    EXPECT_EQ(sent, (std::map<std::string, int>{{"batch", 16}, {"chat", 10}}));
    const std::map<std::string, int> peak = peak_in_flight(records);
    EXPECT_LE(peak.at("batch"), cap);
    EXPECT_LE(peak.at("chat"), 2);
    if (cap == 1) EXPECT_EQ(peak.at("batch"), 1);
  }
  // The summary: the batch class's axis, and each class's row at each point equal to the point's
  // own result.json.
  simdjson::dom::element summary = parser.load((root / "sweep" / "summary.json").string());
  EXPECT_EQ(summary["load_class"].get_string().value(), "batch");
  EXPECT_EQ(summary["sweep"]["x_name"].get_string().value(), "concurrency");
  std::vector<double> loads;
  for (auto p : summary["sweep"]["points"].get_array()) loads.push_back(p["load"].get_double());
  EXPECT_EQ(loads, (std::vector<double>{1, 2, 4}));
  std::map<std::pair<std::string, std::string>, std::pair<int64_t, double>> rows;
  for (auto c : summary["classes"].get_array()) {
    const std::string cls(c["class"].get_string().value()), point(c["point"].get_string().value());
    rows[{cls, point}] = {c["concurrency"].get_int64().value(),
                          c["output_token_throughput"].get_double().value()};
    EXPECT_EQ(c["success_requests"].get_int64().value(), cls == "batch" ? 16 : 10);
  }
  ASSERT_EQ(rows.size(), 6u);
  for (const auto& [point, cap] : batch_at) {
    simdjson::dom::parser own;
    simdjson::dom::element result = own.load((root / point / "result.json").string());
    for (const char* cls : {"chat", "batch"}) {
      SCOPED_TRACE(fmt::format("{} at {}", cls, point));
      const auto& [in_flight, tokens] = rows.at({cls, point});
      EXPECT_EQ(in_flight, std::string(cls) == "batch" ? cap : 2);
      const double theirs =
          result["classes"][cls]["common"]["output_token_throughput"].get_double().value();
      EXPECT_NEAR(tokens, theirs, 1e-4 * theirs);
    }
  }
  const std::string csv = runfolder::read_file(root / "sweep" / "classes.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 7);  // a header and six rows
  EXPECT_TRUE(csv.starts_with("class,point,concurrency,"));
  EXPECT_NE(csv.find("\nbatch,batch-c4,4,"), std::string::npos);
  EXPECT_NE(csv.find("\nchat,batch-c4,2,"), std::string::npos);
  EXPECT_NE(runfolder::read_file(root / "sweep" / "sweep.html").find("<h2>By class</h2>"),
            std::string::npos);
  // `report ROOT` rebuilds the same summary from the point folders.
  const std::string before = runfolder::read_file(root / "sweep" / "summary.json");
  std::FILE* devnull = std::fopen("/dev/null", "w");
  runner::recompute(root, std::nullopt, devnull);
  std::fclose(devnull);
  EXPECT_EQ(runfolder::read_file(root / "sweep" / "summary.json"), before);
  EXPECT_EQ(runfolder::read_file(root / "sweep" / "classes.csv"), csv);
}

TEST(ClassSweep, AClassListIsReadPointByPoint) {
  const runner::TrafficClass k =
      runner::parse_traffic_class("name=batch,request-rate=1,2.5,4,concurrency=8,priority=10");
  EXPECT_EQ(k.request_rate_sweep, (std::vector<double>{1, 2.5, 4}));
  EXPECT_EQ(k.request_rate, 1);
  EXPECT_EQ(k.priority, 10);
  EXPECT_EQ(k.sweep_points(), 3u);
  EXPECT_EQ(k.sweep_label(1), "batch-r2.5");
  const runner::TrafficClass at = k.at_sweep_point(2);
  EXPECT_EQ(at.request_rate, 4);
  EXPECT_EQ(at.concurrency, 8);  // the key with no list keeps its value
  EXPECT_EQ(at.sweep_points(), 1u);
  EXPECT_EQ(runner::with_class_key("name=b,request-rate=1,2,4,slo=ttft.p99<=1s,e2el.p99<=9s",
                                   "request-rate", "2"),
            "name=b,request-rate=2,slo=ttft.p99<=1s,e2el.p99<=9s");
  EXPECT_EQ(runner::parse_traffic_class("name=one,concurrency=4").sweep_points(), 1u);
  // The plan's points: the class's loads, the run's own none.
  runner::RunConfig c;
  c.load.classes = {"name=chat,concurrency=2", "name=batch,request-rate=1,2,4,concurrency=8"};
  const runner::RunPlan plan = runner::make_plan(c, nullptr);
  EXPECT_EQ(c.sweep_points(), 3u);
  const std::vector<runner::PointSpec> specs = runner::sweep_specs(plan);
  ASSERT_EQ(specs.size(), 3u);
  EXPECT_EQ(specs[2].label, "batch-r4");
  EXPECT_EQ(specs[2].load_class, "batch");
  const runner::RunPlan point = runner::at_point(plan, specs[2]);
  EXPECT_EQ(point.cfg.load.concurrency, 0);
  EXPECT_EQ(point.cfg.load.request_rate, 0);
  EXPECT_EQ(point.parsed.classes[1].request_rate, 4);
  EXPECT_EQ(point.parsed.classes[1].concurrency, 8);
  EXPECT_EQ(point.parsed.classes[0].concurrency, 2);
  EXPECT_EQ(point.cfg.load.classes[1], "name=batch,request-rate=4,concurrency=8");
  EXPECT_EQ(runner::class_plan(point, 1).cfg.load.request_rate, 4);
}

TEST(ClassSweep, WhatAClassSweepCannotDoIsRefusedNamingTheFix) {
  auto problems = [](std::vector<std::string> classes, auto edit) {
    runner::RunConfig c;
    c.load.classes = std::move(classes);
    edit(c);
    std::string all;
    for (const auto& e : runner::validate(c)) all += e + "\n";
    return all;
  };
  const auto none = [](runner::RunConfig&) {};
  EXPECT_EQ(problems({"name=a,concurrency=1", "name=b,concurrency=1,2"}, none), "");
  EXPECT_NE(problems({"name=a,concurrency=1,2", "name=b,request-rate=1,2"}, none)
                .find("--class: a and b each give a list: a sweep moves one class's load"),
            std::string::npos);
  EXPECT_NE(problems({"name=a,concurrency=1,2,4,request-rate=1,2"}, none)
                .find("concurrency= has 3 values and request-rate= 2"),
            std::string::npos);
  EXPECT_NE(
      problems({"name=a,concurrency=1,x"}, none).find("concurrency=x (an integer >= 1, or a list"),
      std::string::npos);
  EXPECT_NE(problems({"name=a,concurrency=1"},
                     [](auto& c) {
                       c.load.request_rate_sweep = {1, 2};
                     })
                .find("give the list to the class whose load the sweep moves"),
            std::string::npos);
  EXPECT_NE(problems({"name=a,concurrency=1,2"}, [](auto& c) { c.experiment.repeats = 2; })
                .find("--repeats"),
            std::string::npos);
  // Under mpirun every point of a closed class's list is split across the ranks.
  runner::RunConfig c;
  c.load.classes = {"name=a,concurrency=4,1"};
  std::string said;
  for (const auto& e : c.multi_host_problems(2)) said += e;
  EXPECT_NE(said.find("--class name=a: concurrency=1 is split across the ranks"),
            std::string::npos);
}

}  // namespace
}  // namespace tokbench
