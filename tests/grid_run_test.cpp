// series/grid, --resume and --reset-prefix-cache against real servers over loopback: a server grid
// over the simulator's --max-num-seqs x a concurrency sweep (the folder, the summary's shape, the
// recommendation picking the configuration that truly serves more), a configuration whose server
// fails to start recorded and skipped, a grid and a sweep resumed running only what is left, and
// the prefix cache emptied between points (or the server's lack of a reset said).
#include <gtest/gtest.h>
#include <simdjson.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "record/record_io.hpp"
#include "runfolder/run_folder.hpp"
#include "support/canned_server.hpp"
#include "support/cli_fixture.hpp"
#include "support/ports.hpp"
#include "support/sim_process.hpp"

namespace tokbench::testing {
namespace {

namespace fs = std::filesystem;

class GridRun : public CliFixture {
 protected:
  // `tokbench run` of a grid over the simulator's --max-num-seqs, into dir_/name.
  // `values` "" : the grid comes from `extra` (a --config file).
  Result grid(const std::string& name, const std::string& values,
              std::vector<std::string> extra = {}) {
    if (port_.empty())
      port_ = std::to_string(unused_loopback_port());  // the same on a resume: the flags must match
    const std::string& port = port_;
    std::vector<std::string> args{"run",
                                  "--url",
                                  "http://127.0.0.1:" + port + "/v1/chat/completions",
                                  "--server-cmd",
                                  std::string(TOKBENCH_BINARY) +
                                      " serve-mock --port {port} --max-num-seqs {max_num_seqs} "
                                      "--ttft-ms 5 --tpot-ms 10",
                                  "--num-prompts",
                                  "8",
                                  "--max-tokens",
                                  "8",
                                  "--ignore-eos",
                                  "--quiet",
                                  "--server-ready-timeout-s",
                                  "30",
                                  "--output-dir",
                                  (dir_ / name).string()};
    if (!concurrency_.empty()) args.insert(args.end(), {"--concurrency", concurrency_});
    if (!values.empty()) args.insert(args.end(), {"--server-grid", "max_num_seqs=" + values});
    args.insert(args.end(), extra.begin(), extra.end());
    return run_tokbench(args);
  }
  static fs::path root_of(const fs::path& out) { return fs::directory_iterator(out)->path(); }
  simdjson::dom::element summary(const fs::path& root) {
    return parser_.load((root / "grid/summary.json").string()).value();
  }
  simdjson::dom::parser parser_;
  std::string port_;
  std::string concurrency_ = "1,4";  // a sweep of two loads by default
};

// 1 running request at a time against 4: at concurrency 4 the second serves about four times the
// tokens, under the same TPOT SLO, so it is the one recommended.
TEST_F(GridRun, TwoServersTimesASweepWritesTheGridAndPicksTheBetter) {
  const Result r =
      grid("g", "1,4",
           {"--slo", "tpot.p99<=100ms", "--server-devices", "2", "--price-per-device-hour", "3.6"});
  ASSERT_TRUE(RanValidUnlessBusy(r, dir_));
  const fs::path root = root_of(dir_ / "g");
  for (const char* f :
       {"grid/summary.json", "grid/summary.csv", "grid/grid.html", "series.json", "logs/run.log"})
    EXPECT_TRUE(fs::exists(root / f)) << f;
  for (const char* cfg : {"max_num_seqs-1", "max_num_seqs-4"}) {
    for (const char* f : {"c1/result.json", "c4/result.json", "sweep/summary.json",
                          "logs/server.log", "grid_point.json"})
      EXPECT_TRUE(fs::exists(root / cfg / f)) << cfg << "/" << f;
  }
  // Each configuration's server was started from the template, and its points carry its value.
  EXPECT_NE(slurp(root / "max_num_seqs-4/logs/run.log").find("--max-num-seqs 4"),
            std::string::npos);
  EXPECT_NE(slurp(root / "max_num_seqs-4/c4/result.json").find("\"max_num_seqs=4\""),
            std::string::npos);
  auto s = summary(root);
  simdjson::dom::array configs = s["configurations"];
  ASSERT_EQ(configs.size(), 2u);
  int busy = 0;  // points a busy machine made INVALID
  for (auto c : configs) {
    EXPECT_EQ(std::string_view(c["status"]), "ran");
    EXPECT_EQ(c["devices"].get_int64().value(), 2);
    simdjson::dom::array points = c["points"];
    ASSERT_EQ(points.size(), 2u);
    for (auto p : points) {
      // An INVALID point (a busy machine's, which the run's check above allowed) meets no SLO.
      const bool valid = std::string_view(p["verdict"]) == "VALID";
      busy += !valid;
      EXPECT_EQ(p["meets_slo"].get_bool().value(), valid);
      EXPECT_NEAR(p["output_tokens_per_s_per_device"].get_double().value(),
                  p["output_token_throughput"].get_double().value() / 2, 1e-6);
      // A device-hour price needs no --telemetry: 2 devices × $3.6/h = $0.002/s, over the
      // output tokens served per second (the phase is the throughput's duration).
      EXPECT_NEAR(p["usd_per_m_output_tokens"].get_double().value(),
                  0.002 / p["output_token_throughput"].get_double().value() * 1e6,
                  0.01 * 0.002 / p["output_token_throughput"].get_double().value() * 1e6);
    }
  }
  if (busy == 0) {  // the recommendation rests on every point's figures
    EXPECT_EQ(std::string_view(s["recommendation"]["best"]), "max_num_seqs-4");
    EXPECT_EQ(std::string_view(s["recommendation"]["runner_up"]), "max_num_seqs-1");
    EXPECT_GT(s["recommendation"]["margin"].get_double().value(),
              1.5);  // about 3x: four places against one
    EXPECT_EQ(std::string_view(configs.at(1)["answer"]["at"]), "c4");
    EXPECT_NE(r.output.find("recommended: max_num_seqs-4"), std::string::npos) << r.output;
  } else {
    std::cout << "note: " << busy << " point(s) INVALID on this busy machine: the "
              << "recommendation is not checked\n";
  }
  const std::string csv = slurp(root / "grid/summary.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 5) << csv;  // a header and 2 x 2 rows
  // `report` on the grid's root says what to do; on a configuration's folder it rebuilds its sweep.
  const Result whole = run_tokbench({"report", root.string()});
  EXPECT_EQ(whole.code, 2) << whole.output;
  EXPECT_NE(whole.output.find("is a server grid's root"), std::string::npos) << whole.output;
  EXPECT_TRUE(
      RanValidUnlessBusy(run_tokbench({"report", (root / "max_num_seqs-4").string()}), dir_));
  EXPECT_NE(slurp(root / "grid/grid.html").find("id=\"grid-data\""), std::string::npos);
}

// Traffic classes in every configuration, each class's SLO judging its points: with one place
// (max_num_seqs 1) the chat class waits behind the batch class's answers (~85 ms each) and misses
// its TTFT bound; with four it is served at once. Each configuration's folder has both classes.
TEST_F(GridRun, EachClassesSloJudgesTheConfigurations) {
  concurrency_.clear();  // the classes carry the load
  const Result r = grid("g", "1,4",
                        {"--class", "name=chat,concurrency=1,slo=ttft.p99<=40ms", "--class",
                         "name=batch,concurrency=3"});
  ASSERT_TRUE(RanValidUnlessBusy(r, dir_));
  const fs::path root = root_of(dir_ / "g");
  auto s = summary(root);
  simdjson::dom::array configs = s["configurations"];
  ASSERT_EQ(configs.size(), 2u);
  for (auto c : configs) {
    simdjson::dom::array points = c["points"];
    ASSERT_EQ(points.size(), 1u);
    const std::string name = std::string(std::string_view(c["name"]));
    auto p = points.at(0);
    EXPECT_EQ(std::string_view(p["point"]), "classes");
    EXPECT_EQ(p["concurrency"].get_int64().value(), 4);  // the classes' loads summed
    simdjson::dom::parser one;
    const auto result = one.load((root / name / "classes" / "result.json").string()).value();
    EXPECT_EQ(result["classes"]["chat"]["requests"].get_int64().value(), 8) << name;
    EXPECT_EQ(result["classes"]["batch"]["requests"].get_int64().value(), 8) << name;
    if (std::string_view(p["verdict"]) != "VALID") continue;  // a busy machine's: meets nothing
    const bool missed = name == "max_num_seqs-1";
    EXPECT_EQ(p["meets_slo"].get_bool().value(), !missed) << name;
    if (missed)
      EXPECT_NE(std::string_view(p["slo_why"]).find("class chat: ttft.p99"), std::string::npos)
          << std::string_view(p["slo_why"]);
  }
  if (std::string_view(configs.at(1)["points"].at(0)["verdict"]) == "VALID")
    EXPECT_EQ(std::string_view(s["recommendation"]["best"]), "max_num_seqs-4");
}

TEST_F(GridRun, AServerThatFailsToStartIsRecordedAndTheGridGoesOn) {
  const fs::path yaml = dir_ / "grid.yaml";  // the grid from --config, as any other setting
  { std::ofstream(yaml) << "server-grid: max_num_seqs=bad,2\n"; }
  const Result r =
      grid("f", "", {"--config", yaml.string()});  // serve-mock refuses --max-num-seqs bad
  EXPECT_EQ(r.code, 4) << r.output;
  const fs::path root = root_of(dir_ / "f");
  auto s = summary(root);
  simdjson::dom::array configs = s["configurations"];
  ASSERT_EQ(configs.size(), 2u);
  EXPECT_EQ(std::string_view(configs.at(0)["status"]), "failed to start");
  EXPECT_NE(std::string(std::string_view(configs.at(0)["why"])).find("exited"), std::string::npos)
      << std::string_view(configs.at(0)["why"]);
  EXPECT_TRUE(
      fs::exists(root / "max_num_seqs-bad/logs/server.log"));  // what the server said is kept
  EXPECT_FALSE(
      fs::exists(root / "max_num_seqs-bad/performances"));  // and no empty folder beside it
  EXPECT_EQ(std::string_view(configs.at(1)["status"]), "ran");
  // The one that ran is not recommended: the one that did not start could have been the best.
  EXPECT_TRUE(s["recommendation"]["best"].is_null());
  EXPECT_EQ(std::string_view(s["recommendation"]["missing"].at(0)),
            "max_num_seqs-bad: failed to start");
  EXPECT_NE(r.output.find("max_num_seqs-bad: failed to start"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("no recommendation: 1 of 2 configuration(s) did not complete"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("with --resume " + root.string() + " runs only what is missing"),
            std::string::npos)
      << r.output;
}

// Ctrl-C in a grid's first configuration: "interrupted" and "not run", no recommendation (it was
// the worst configuration, "the only one with an answer"), exit 130, and the command that
// completes it named.
TEST_F(GridRun, AnInterruptedGridRecommendsNothing) {
  port_ = std::to_string(unused_loopback_port());
  auto args = [&](std::vector<std::string> extra) {
    std::vector<std::string> a{TOKBENCH_BINARY,
                               "run",
                               "--url",
                               "http://127.0.0.1:" + port_ + "/v1/chat/completions",
                               "--server-cmd",
                               std::string(TOKBENCH_BINARY) +
                                   " serve-mock --port {port} --max-num-seqs {max_num_seqs} "
                                   "--ttft-ms 5 --tpot-ms 10",
                               "--server-grid",
                               "max_num_seqs=2,4",
                               "--concurrency",
                               "2",
                               "--max-tokens",
                               "8",
                               "--ignore-eos",
                               "--quiet",
                               "--output-dir",
                               (dir_ / "i").string()};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  Child c(args({"--num-prompts", "100000"}));
  c.read_until("== server 1/2", std::chrono::seconds(30));
  std::this_thread::sleep_for(std::chrono::seconds(2));  // its server up, its load running
  c.signal(SIGINT);
  EXPECT_EQ(c.wait(std::chrono::seconds(60)), 130) << c.output();
  const fs::path root = root_of(dir_ / "i");
  auto s = summary(root);
  EXPECT_TRUE(s["recommendation"]["best"].is_null()) << c.output();
  simdjson::dom::array missing = s["recommendation"]["missing"];
  ASSERT_EQ(missing.size(), 2u);
  EXPECT_EQ(std::string_view(missing.at(0)), "max_num_seqs-2: interrupted");
  EXPECT_EQ(std::string_view(missing.at(1)), "max_num_seqs-4: not run");
  EXPECT_NE(c.output().find("no recommendation: 2 of 2 configuration(s) did not complete"),
            std::string::npos)
      << c.output();
  EXPECT_NE(c.output().find("--resume " + root.string()), std::string::npos) << c.output();
}

// With --repeats, each configuration's answer is a mean with its interval, and the recommendation
// says whether the two intervals overlap.
TEST_F(GridRun, RepeatsGiveTheRecommendationItsUncertainty) {
  concurrency_ = "4";
  const Result r = grid("rep", "1,4", {"--repeats", "3"});
  ASSERT_TRUE(RanValidUnlessBusy(r, dir_));
  auto s = summary(root_of(dir_ / "rep"));
  simdjson::dom::array configs = s["configurations"];
  int64_t busy = 0;  // repeats a busy machine made INVALID: the answer leaves them out
  for (auto c : configs) {
    simdjson::dom::array points = c["points"];
    EXPECT_EQ(points.size(), 3u);  // run-1..run-3
    int64_t valid = 0;
    for (auto p : points) valid += std::string_view(p["verdict"]) == "VALID";
    busy += 3 - valid;
    if (valid < 3) {  // every repeat must qualify: a configuration with an INVALID one has none
      EXPECT_TRUE(c["answer"]["output_tokens_per_s_per_device"].is_null());
      continue;
    }
    EXPECT_EQ(c["answer"]["runs"].get_int64().value(), 3);
    EXPECT_GT(c["answer"]["half_width"].get_double().value(), 0);
  }
  if (busy > 0) {  // the recommendation below rests on every repeat of both configurations
    std::cout << "note: " << busy << " repeat(s) INVALID on this busy machine: a configuration "
              << "with one has no answer, and the recommendation is not checked\n";
    return;
  }
  EXPECT_EQ(std::string_view(s["recommendation"]["best"]), "max_num_seqs-4");
  EXPECT_TRUE(s["recommendation"]["beyond_noise"]
                  .get_bool()
                  .value());  // four places against one: far apart
  EXPECT_NE(r.output.find("the intervals do not overlap"), std::string::npos) << r.output;
}

// --deploy-sh reads the grid from its environment (the AtomGit convention has no template).
TEST_F(GridRun, DeployShGetsTheGridAsEnvironmentVariables) {
  const std::string port = std::to_string(unused_loopback_port());
  const fs::path sh = dir_ / "deploy.sh";
  {
    std::ofstream(sh) << "echo \"grid point $TOKBENCH_GRID_POINT: MAX_NUM_SEQS=$MAX_NUM_SEQS\"\n"
                      << "exec " << TOKBENCH_BINARY << " serve-mock --port " << port
                      << " --ttft-ms 2 --tpot-ms 1 --max-num-seqs \"$MAX_NUM_SEQS\" --model-name "
                         "\"$MODEL_PATH\"\n";
  }
  const Result r =
      run_tokbench({"run", "--deploy-sh", sh.string(), "--model-path", "/w/M", "--url",
                    "http://127.0.0.1:" + port + "/v1/chat/completions", "--server-grid",
                    "max_num_seqs=1,2", "--num-prompts", "4", "--max-tokens", "4", "--quiet",
                    "--output-dir", (dir_ / "d").string()});
  ASSERT_TRUE(RanValidUnlessBusy(r, dir_));
  const fs::path root = root_of(dir_ / "d");
  for (const std::string v : {"1", "2"}) {
    const std::string log = slurp(root / ("max_num_seqs-" + v) / "logs/server.log");
    EXPECT_NE(log.find("grid point max_num_seqs-" + v + ": MAX_NUM_SEQS=" + v), std::string::npos)
        << log;
  }
}

// A grid stopped after its first configuration and inside its second's last point (that point's
// folder has no end marker, the second's grid_point.json is gone): --resume starts no server for
// the first, reads the second's finished c1 back, sets the unfinished c4 aside and runs only it.
TEST_F(GridRun, AResumedGridRunsOnlyWhatIsLeft) {
  // The resume reads back only the points that completed VALID: a point a busy machine made
  // INVALID would be run again and break what this test holds, so the first grid is run again
  // (afresh, twice at most) until every point is VALID.
  Result first = grid("r", "1,4");
  for (int again = 0; again < 2 && first.code != kExitValid; ++again) {
    fs::remove_all(dir_ / "r");
    first = grid("r", "1,4");
  }
  ASSERT_TRUE(RanValidUnlessBusy(first, dir_));
  const fs::path root = root_of(dir_ / "r");
  const fs::path second = root / "max_num_seqs-4";
  fs::remove(second / "grid_point.json");
  fs::remove(second / "c4" / runfolder::kEndFile);
  const std::string first_server_log = slurp(root / "max_num_seqs-1/logs/server.log");
  const auto c1_end = fs::last_write_time(second / "c1" / runfolder::kEndFile);
  const Result r = grid("r", "1,4", {"--resume", root.string()});
  ASSERT_TRUE(RanValidUnlessBusy(r, dir_));
  EXPECT_NE(
      r.output.find(
          "max_num_seqs-1: resumed (every point VALID in its folder; its server not started)"),
      std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("c1: resumed"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("c4: did not complete VALID; kept as c4.interrupted and run again"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(slurp(root / "max_num_seqs-1/logs/server.log"), first_server_log);  // not started again
  EXPECT_EQ(fs::last_write_time(second / "c1" / runfolder::kEndFile), c1_end);  // not run again
  EXPECT_TRUE(fs::exists(second / "c4.interrupted"));
  EXPECT_TRUE(fs::exists(second / "c4" / runfolder::kEndFile));
  auto s = summary(root);
  simdjson::dom::array configs = s["configurations"];
  EXPECT_EQ(std::string_view(configs.at(0)["status"]), "resumed");
  EXPECT_EQ(std::string_view(configs.at(1)["status"]), "ran");
  simdjson::dom::array points = configs.at(1)["points"];
  EXPECT_TRUE(points.at(0)["resumed"].get_bool().value());   // c1
  EXPECT_FALSE(points.at(1)["resumed"].get_bool().value());  // c4, run again
  // The recommendation rests on the verdicts: a point a busy machine made INVALID (exit 4, said
  // above) may move it.
  if (r.code == kExitValid)
    EXPECT_EQ(std::string_view(s["recommendation"]["best"]), "max_num_seqs-4");
  // Other flags than the first time: refused, naming them.
  const Result other = grid("r", "1,4", {"--resume", root.string(), "--seed", "7"});
  EXPECT_EQ(other.code, 2) << other.output;
  EXPECT_NE(other.output.find("seed: 0 then, 7 now"), std::string::npos) << other.output;
}

// Ctrl-C in a sweep's first point: no knee is named from what ran (issue 40), the summary lists
// the points that did not complete, and `report` on the root keeps them missing.
TEST_F(GridRun, AnInterruptedSweepNamesNoKnee) {
  Sim sim({"--ttft-ms", "2", "--tpot-ms", "1"});
  Child c({TOKBENCH_BINARY, "run", "--url", sim.url(), "--concurrency", "1,2,4", "--num-prompts",
           "100000", "--max-tokens", "4", "--output-dir", (dir_ / "x").string()});
  c.read_until("request body:", std::chrono::seconds(30));
  std::this_thread::sleep_for(std::chrono::seconds(1));  // c1's load running
  c.signal(SIGINT);
  EXPECT_EQ(c.wait(std::chrono::seconds(60)), 130) << c.output();
  const fs::path root = root_of(dir_ / "x");
  const simdjson::dom::element s = parser_.load((root / "sweep/summary.json").string()).value();
  EXPECT_FALSE(s["complete"].get_bool().value());
  simdjson::dom::array missing = s["missing"];
  ASSERT_EQ(missing.size(), 3u) << c.output();  // c1 interrupted, c2 and c4 never ran
  EXPECT_EQ(std::string_view(missing.at(2)), "c4");
  EXPECT_TRUE(s["sweep"]["knee"]["point"].is_null());
  EXPECT_NE(c.output().find("no knee named: the sweep is incomplete (interrupted; 3 of 3 point(s) "
                            "did not complete: c1, c2, c4); the same command with --resume"),
            std::string::npos)
      << c.output();
  const Result rebuilt = run_tokbench({"report", root.string()});
  EXPECT_NE(rebuilt.output.find("no knee named"), std::string::npos) << rebuilt.output;
}

// A plain sweep resumes the same way, and its summary says which points were read back.
TEST_F(GridRun, AResumedSweepSaysWhichPointsWereReadBack) {
  Sim sim({"--ttft-ms", "2", "--tpot-ms", "1"});
  const std::vector<std::string> flags{
      "run", "--url",        sim.url(), "--concurrency", "1,2",          "--num-prompts",
      "6",   "--max-tokens", "4",       "--quiet",       "--output-dir", (dir_ / "s").string()};
  ASSERT_TRUE(RanValidUnlessBusy(run_tokbench(flags), dir_));
  const fs::path root = root_of(dir_ / "s");
  fs::remove(root / "c2" / runfolder::kEndFile);
  auto again = flags;
  again.insert(again.end(), {"--resume", root.string()});
  const Result r = run_tokbench(again);
  ASSERT_TRUE(RanValidUnlessBusy(r, dir_));
  auto s = parser_.load((root / "sweep/summary.json").string()).value();
  simdjson::dom::array points = s["sweep"]["points"];
  EXPECT_TRUE(points.at(0)["resumed"].get_bool().value());
  EXPECT_FALSE(points.at(1)["resumed"].get_bool().value());
  EXPECT_NE(r.output.find("(resumed)"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::exists(root / "c2.interrupted"));
}

// An open loop at three times what the server can serve: --stop-on-saturation ends that point
// within a few windows, marked SATURATED, and the sweep exits 0; the point the server keeps up
// with runs its whole duration, VALID (unless this machine is too busy to keep its schedule).
TEST_F(GridRun, APointPastSaturationIsStoppedEarlyAndMarked) {
  Sim sim({"--max-num-seqs", "2", "--ttft-ms", "5", "--tpot-ms",
           "10"});  // about 18 requests/s of 10 tokens
  const Result r = run_tokbench({"run", "--url", sim.url(), "--request-rate", "8,60",
                                 "--duration-s", "10", "--max-tokens", "10", "--ignore-eos",
                                 "--stop-on-saturation", "--saturation-window-s", "0.5", "--quiet",
                                 "--output-dir", (dir_ / "sat").string()});
  EXPECT_TRUE(RanValidUnlessBusy(r, dir_));
  const fs::path root = root_of(dir_ / "sat");
  EXPECT_TRUE(FolderValidUnlessBusy(root / "r8"));  // a busy machine may miss its schedule
  auto kept = parser_.load((root / "r8" / runfolder::kEndFile).string()).value();
  EXPECT_GT(kept["measured_wall_s"].get_double().value(), 9.5);
  if (r.output.find("r8: INVALID") != std::string::npos &&
      r.output.find("r60: SATURATED") == std::string::npos) {
    // This machine could not keep even 8 req/s on schedule (r8 is INVALID for its send lag
    // alone): a client starved of CPU sends unevenly, the in-flight count does not rise at every
    // window, and the rule may not call r60, which then runs out its duration.
    EXPECT_TRUE(FolderValidUnlessBusy(root / "r60"));
    std::cout << "note: this machine was too busy to keep r8's schedule: the saturation rule "
                 "was not put to the test\n";
    return;
  }
  EXPECT_NE(r.output.find("r60: SATURATED"), std::string::npos) << r.output;
  auto s = parser_.load((root / "sweep/summary.json").string()).value();
  simdjson::dom::array points = s["sweep"]["points"];
  EXPECT_EQ(std::string_view(points.at(1)["verdict"]), "SATURATED");
  auto res = result(root / "r60");
  EXPECT_EQ(std::string_view(res["verdict"]["status"]), "SATURATED");
  auto end = parser_.load((root / "r60" / runfolder::kEndFile).string()).value();
  const std::string why{std::string_view(end["stop_reason"])};
  EXPECT_TRUE(why.starts_with("saturated: past saturation at ")) << why;
  // Stopped early: well before its 10 s (the earliest the rule can hold is after 5 windows, 2.5 s).
  EXPECT_LT(end["measured_wall_s"].get_double().value(), 7.0);
}

// A search resumes by replaying its rule over the probes read back: the same path, the same
// answer, only the unfinished probe run again.
TEST_F(GridRun, AResumedSearchReplaysItsProbes) {
  Sim sim({"--ttft-ms", "2", "--tpot-ms", "1"});
  const std::vector<std::string> flags{"run",
                                       "--url",
                                       sim.url(),
                                       "--search",
                                       "max-concurrency",
                                       "--slo",
                                       "e2el.p99<=10s",
                                       "--search-max",
                                       "4",
                                       "--num-prompts",
                                       "6",
                                       "--max-tokens",
                                       "4",
                                       "--quiet",
                                       "--output-dir",
                                       (dir_ / "q").string()};
  ASSERT_TRUE(RanValidUnlessBusy(run_tokbench(flags), dir_));
  const fs::path root = root_of(dir_ / "q");
  fs::remove(root / "c4" / runfolder::kEndFile);
  auto again = flags;
  again.insert(again.end(), {"--resume", root.string()});
  const Result r = run_tokbench(again);
  ASSERT_TRUE(RanValidUnlessBusy(r, dir_));
  EXPECT_NE(r.output.find("c1: resumed"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("c2: resumed"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("c4: did not complete VALID"), std::string::npos) << r.output;
  const std::string json = slurp(root / "search/search.json");
  EXPECT_NE(json.find("\"resumed\":[\"c1\",\"c2\"]"), std::string::npos) << json;
  // The answer is the highest probe that passed. c4 run again passes unless a busy machine made
  // it INVALID (its reason names the client's worker); then the search bisects to 3.
  simdjson::dom::element doc = parser_.parse(json);
  int64_t highest_pass = 0;
  for (simdjson::dom::element probe : doc["history"].get_array()) {
    const int64_t load = static_cast<int64_t>(probe["load"].get_double().value());
    if (probe["pass"].get_bool().value())
      highest_pass = std::max(highest_pass, load);
    else if (load == 4)
      EXPECT_TRUE(busy_machine_reason(probe["why"].get_string().value())) << json;
  }
  EXPECT_EQ(doc["answer"].get_double().value(), static_cast<double>(highest_pass)) << json;
}

int64_t cached_tokens(const fs::path& point) {
  int64_t sum = 0;
  for (const auto& rec : record::read_details(runfolder::load_run_folder(point).details.string()))
    sum += std::max<int64_t>(rec.cached_tokens, 0);
  return sum;
}

// The same prompts at two points: without a reset the second finds them cached; with
// --reset-prefix-cache it starts as cold as the first.
TEST_F(GridRun, PrefixCacheIsEmptiedBetweenPoints) {
  Sim sim({"--ttft-ms", "1", "--tpot-ms", "1", "--enable-prefix-caching", "--block-size", "4"});
  auto sweep = [&](const std::string& name, bool reset) {
    std::vector<std::string> a{
        "run", "--url",        sim.url(), "--concurrency", "1,1",          "--num-prompts",
        "4",   "--max-tokens", "2",       "--quiet",       "--output-dir", (dir_ / name).string()};
    if (reset) a.push_back("--reset-prefix-cache");
    const Result r = run_tokbench(a);
    EXPECT_TRUE(RanValidUnlessBusy(r, dir_));
    return root_of(dir_ / name);
  };
  const fs::path warm = sweep("warm", false);
  EXPECT_GT(cached_tokens(warm / "c1-2"), cached_tokens(warm / "c1"));
  const fs::path cold = sweep("cold", true);
  EXPECT_EQ(cached_tokens(cold / "c1-2"), cached_tokens(cold / "c1"));
  EXPECT_NE(slurp(cold / "logs/run.log").find("prefix cache reset (/reset_prefix_cache)"),
            std::string::npos);
  // A single point resets too (issue 39, F4: it did nothing and said nothing): run twice, the
  // second finds the first's prompts cached unless it resets.
  auto single = [&](const std::string& name, bool reset) {
    std::vector<std::string> a{"run",     sim.url(),      "--num-prompts",
                               "4",       "--max-tokens", "2",
                               "--quiet", "--output-dir", (dir_ / name).string()};
    a.insert(a.begin() + 1, "--url");
    if (reset) a.push_back("--reset-prefix-cache");
    const Result r = run_tokbench(a);
    EXPECT_TRUE(RanValidUnlessBusy(r, dir_));
    return root_of(dir_ / name);
  };
  EXPECT_GT(cached_tokens(single("again", false)), 0);  // c1-2's prompts are still cached
  const fs::path reset_one = single("reset_one", true);
  EXPECT_EQ(cached_tokens(reset_one), cached_tokens(cold / "c1"));
  EXPECT_NE(slurp(reset_one / "logs/run.log").find("prefix cache reset (/reset_prefix_cache)"),
            std::string::npos);
}

// A server with neither reset path is told once; an SGLang-like one is reset through /flush_cache.
TEST_F(GridRun, AServerWithoutAResetIsSaidOnce) {
  std::mutex mu;
  std::vector<std::string> posted;
  auto server = [&](bool sglang) {
    return [&, sglang](const std::string& path) {
      if (path == "/v1/models")
        return CannedServer::http(200, "application/json", R"({"data":[{"id":"m"}]})");
      if (path == "/reset_prefix_cache" || path == "/flush_cache") {
        std::lock_guard lock(mu);
        posted.push_back(path);
        return CannedServer::http(sglang && path == "/flush_cache" ? 200 : 404, "application/json",
                                  "{}");
      }
      if (path != "/v1/chat/completions") return CannedServer::http(404, "text/plain", "");
      return CannedServer::http(
          200, "application/json",
          R"({"choices":[{"message":{"content":"ab"},"finish_reason":"stop"}],)"
          R"("usage":{"prompt_tokens":4,"completion_tokens":2}})");
    };
  };
  {
    CannedServer none(server(false), 200);
    const Result r =
        run_tokbench({"run", "--url", none.url("/v1/chat/completions"), "--no-stream",
                      "--concurrency", "1,2", "--num-prompts", "4", "--max-tokens", "2",
                      "--reset-prefix-cache", "--quiet", "--output-dir", (dir_ / "none").string()});
    EXPECT_TRUE(RanValidUnlessBusy(r, dir_));
    const std::string said = "--reset-prefix-cache: the server has no prefix-cache reset";
    EXPECT_NE(r.output.find(said), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find(said, r.output.find(said) + 1), std::string::npos) << r.output;  // once
    EXPECT_NE(r.output.find("VLLM_SERVER_DEV_MODE=1"), std::string::npos) << r.output;
    std::lock_guard lock(mu);
    EXPECT_EQ(posted, (std::vector<std::string>{"/reset_prefix_cache",
                                                "/flush_cache"}));  // tried once, both
    posted.clear();
  }
  CannedServer sg(server(true), 200);
  const Result r =
      run_tokbench({"run", "--url", sg.url("/v1/chat/completions"), "--no-stream", "--concurrency",
                    "1,2", "--num-prompts", "4", "--max-tokens", "2", "--reset-prefix-cache",
                    "--quiet", "--output-dir", (dir_ / "sg").string()});
  EXPECT_TRUE(RanValidUnlessBusy(r, dir_));
  EXPECT_EQ(r.output.find("has no prefix-cache reset"), std::string::npos) << r.output;
  std::lock_guard lock(mu);
  EXPECT_EQ(std::count(posted.begin(), posted.end(), "/flush_cache"), 2);  // before each point
}

}  // namespace
}  // namespace tokbench::testing
