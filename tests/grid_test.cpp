// settings/server_grid, series/capacity and point/resume: the grid's values and template, the
// recommendation's rule, and what --resume refuses and keeps.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "metrics/saturation.hpp"
#include "plan/plan.hpp"
#include "point/resume.hpp"
#include "series/capacity.hpp"
#include "settings/run_config.hpp"
#include "settings/server_grid.hpp"
#include "support/temp_dir.hpp"

namespace tokbench::runner {
namespace {

namespace fs = std::filesystem;

std::string error_of(const std::string& text) {
  try {
    parse_server_grid(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(ServerGrid, EveryCombinationInOrderWithFolderNamesAndEnvironment) {
  const auto axes = parse_server_grid(" max_num_seqs=64,128 ; enable_chunked_prefill=true,false;");
  ASSERT_EQ(axes.size(), 2u);
  EXPECT_EQ(axes[0].key, "max_num_seqs");
  EXPECT_EQ(axes[1].values, (std::vector<std::string>{"true", "false"}));
  const auto points = server_points(axes);
  ASSERT_EQ(points.size(), 4u);
  EXPECT_EQ(points[0].name, "max_num_seqs-64_enable_chunked_prefill-true");
  EXPECT_EQ(points[1].name, "max_num_seqs-64_enable_chunked_prefill-false");
  EXPECT_EQ(points[3].name, "max_num_seqs-128_enable_chunked_prefill-false");
  const auto env = points[2].env();
  EXPECT_EQ(env.at("MAX_NUM_SEQS"), "128");
  EXPECT_EQ(env.at("ENABLE_CHUNKED_PREFILL"), "true");
  EXPECT_EQ(env.at("TOKBENCH_GRID_POINT"), points[2].name);
  // Values a folder cannot hold still get folders of their own.
  const auto odd = server_points(parse_server_grid("dtype=a/b,a:b"));
  EXPECT_NE(odd[0].name, odd[1].name);
}

TEST(ServerGrid, BadGridsAreNamedWithTheFix) {
  EXPECT_NE(error_of("max_num_seqs").find("has no '='"), std::string::npos);
  EXPECT_NE(error_of("max_num_seqs=").find("empty value"), std::string::npos);
  EXPECT_NE(error_of("a=1;a=2").find("given twice"), std::string::npos);
  EXPECT_NE(error_of("a b=1").find("bad key"), std::string::npos);
  EXPECT_NE(error_of("port=1,2").find("{port} placeholder"), std::string::npos);
  EXPECT_NE(error_of("a=1,1").find("lists 1 twice"), std::string::npos);
  EXPECT_NE(error_of("a=$(rm)").find("shell character"), std::string::npos);
  EXPECT_NE(error_of("a=1 2").find("shell character"), std::string::npos);
  // An allow-list (issue 41): a newline ran a command, and * ~ # ( passed the old block-list.
  for (const char* v : {"1\nid", "*", "~", "#x", "(x)", "a?"})
    EXPECT_NE(error_of(std::string("x=") + v).find("other than letters, digits"), std::string::npos)
        << v;
  EXPECT_NE(error_of("x=1\nid").find("'1\\nid'"), std::string::npos) << "the newline shown";
  // What real grids hold still passes.
  EXPECT_EQ(error_of("dtype=bfloat16,fp8;gpu_mem=0.9;model=Qwen/Qwen3-8B;lr=1e-4"), "");
  EXPECT_NE(error_of("").find("no keys"), std::string::npos);
  std::string big = "a=";
  for (int i = 0; i < 300; ++i) big += (i ? "," : "") + std::to_string(i);
  EXPECT_NE(error_of(big).find("more than 256"), std::string::npos);
}

TEST(ServerGrid, TemplateIsFilledAndCheckedAgainstTheGrid) {
  const auto axes = parse_server_grid("max_num_seqs=64,128");
  const auto points = server_points(axes);
  const std::string cmd =
      "vllm serve M --port {port} --max-num-seqs {max_num_seqs} --served-model-name {name} "
      "--override '{\"temperature\":0}' --log ${HOME}/x-{a,b}";
  EXPECT_TRUE(template_problems(cmd, axes).empty());
  EXPECT_EQ(expand_server_command(cmd, points[1], 8123),
            "vllm serve M --port 8123 --max-num-seqs 128 --served-model-name max_num_seqs-128 "
            "--override '{\"temperature\":0}' --log ${HOME}/x-{a,b}");
  // A key the template never uses: every point would be the same server.
  auto problems = template_problems("vllm serve M --port {port}", axes);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("never uses {max_num_seqs}"), std::string::npos) << problems[0];
  // A placeholder that is not a key.
  problems = template_problems("vllm serve --max-num-seqs {max_seqs}", {});
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("{max_seqs} is not a placeholder"), std::string::npos) << problems[0];
  EXPECT_EQ(url_port("http://127.0.0.1:8123/v1/chat/completions"), 8123);
  EXPECT_EQ(url_port("http://[::1]:9000/v1/completions"), 9000);
  EXPECT_EQ(url_port("https://gateway/v1/chat/completions"), 443);
  EXPECT_EQ(url_port("http://gateway"), 80);
}

TEST(ServerGrid, RunConfigValidatesTheGridWithItsTemplate) {
  RunConfig c;
  c.target.url = "http://127.0.0.1:8000/v1/chat/completions";
  c.target.server_grid = "max_num_seqs=1,2";
  auto errors = validate(c);
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors[0].find("give --server-cmd"), std::string::npos) << errors[0];
  c.target.server_cmd = "serve --port {port} --max-num-seqs {max_num_seqs}";
  EXPECT_TRUE(validate(c).empty());
  c.experiment.slo = "ttft.p99<=500ms";  // a grid judges its points against --slo without a search
  EXPECT_TRUE(validate(c).empty());
  c.target.server_devices = 0;
  EXPECT_FALSE(validate(c).empty());
  c.target.server_devices = 1;
  c.target.server_grid.clear();
  c.target.server_cmd.clear();
  c.experiment.slo.clear();
  c.experiment.resume = "/tmp";
  errors = validate(c);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("a single run has nothing to resume"), std::string::npos) << errors[0];
}

metrics::CapacityCandidate cand(const std::string& name, std::optional<double> v,
                                std::optional<double> hw = std::nullopt) {
  metrics::CapacityCandidate c;
  c.name = name;
  c.value = v;
  c.half_width = hw;
  c.at = "c8";
  return c;
}

TEST(Capacity, TheMostPerDeviceWinsByAStatedMargin) {
  auto choice = metrics::choose_configuration(
      {cand("a", 100), cand("b", 125), cand("c", std::nullopt)}, "under ttft.p99<=1s");
  ASSERT_TRUE(choice.best);
  EXPECT_EQ(*choice.best, 1u);
  EXPECT_EQ(*choice.runner_up, 0u);
  EXPECT_DOUBLE_EQ(*choice.margin, 0.25);
  EXPECT_FALSE(choice.beyond_noise);
  EXPECT_NE(choice.text.find("recommended: b, 125.0 output tokens/s per device under ttft.p99<=1s "
                             "(at c8), 25.0% above the next, a (100.0 at c8)"),
            std::string::npos)
      << choice.text;
  EXPECT_NE(choice.text.find("no interval"), std::string::npos) << choice.text;
  // With intervals: overlapping is within the noise, apart is beyond it.
  choice = metrics::choose_configuration({cand("a", 100, 10), cand("b", 105, 10)}, "");
  EXPECT_EQ(*choice.best, 1u);
  EXPECT_FALSE(*choice.beyond_noise);
  EXPECT_NE(choice.text.find("within the noise"), std::string::npos) << choice.text;
  choice = metrics::choose_configuration({cand("a", 100, 2), cand("b", 110, 2)}, "");
  EXPECT_TRUE(*choice.beyond_noise);
  // No answer anywhere.
  choice = metrics::choose_configuration({cand("a", std::nullopt)}, "under tpot.p99<=5ms");
  EXPECT_FALSE(choice.best);
  EXPECT_NE(choice.text.find("no configuration has a VALID point under tpot.p99<=5ms"),
            std::string::npos)
      << choice.text;
}

// Only from complete data: one configuration interrupted or never started, and the best of the
// rest is not recommended (it was "the only configuration with an answer", and scripts deployed
// it).
TEST(Capacity, AnIncompleteGridRecommendsNothingAndNamesWhatIsMissing) {
  auto stopped = cand("b", std::nullopt);
  stopped.missing = "interrupted";
  auto never = cand("c", std::nullopt);
  never.missing = "not run";
  auto choice = metrics::choose_configuration({cand("a", 100), stopped, never}, "");
  EXPECT_FALSE(choice.best);
  EXPECT_FALSE(choice.runner_up);
  EXPECT_EQ(choice.missing, (std::vector<std::string>{"b: interrupted", "c: not run"}));
  EXPECT_NE(choice.text.find("no recommendation: 2 of 3 configuration(s) did not complete (b: "
                             "interrupted; c: not run)"),
            std::string::npos)
      << choice.text;
  auto failed = cand("d", 300);  // even with a figure from before it failed
  failed.missing = "failed to start";
  choice = metrics::choose_configuration({cand("a", 100), failed}, "");
  EXPECT_FALSE(choice.best);
  EXPECT_EQ(choice.missing, (std::vector<std::string>{"d: failed to start"}));
}

metrics::SaturationWindow window(double t, int64_t in_flight, double tokens_per_s,
                                 std::optional<double> ttft) {
  return {t, in_flight, tokens_per_s, ttft};
}

TEST(Saturation, AGrowingQueueAndWaitAtFlatThroughputIsSaturation) {
  metrics::SaturationDetector d;
  EXPECT_FALSE(d.add(window(1, 500, 1, 1)));  // the fill: never counts, however it looks
  EXPECT_FALSE(d.add(window(2, 10, 200, 100)));
  EXPECT_FALSE(d.add(window(3, 20, 210, 200)));
  EXPECT_FALSE(d.add(window(4, 30, 205, 300)));  // three windows: not yet
  const auto why = d.add(window(5, 40, 200, 400));
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("in flight 10 -> 40, mean TTFT 100.0 -> 400.0 ms"), std::string::npos)
      << *why;
}

TEST(Saturation, ASteadyOrStillScalingServerIsNot) {
  auto run = [](std::vector<metrics::SaturationWindow> ws) {
    metrics::SaturationDetector d;
    d.add(window(0, 0, 0, std::nullopt));
    bool flagged = false;
    for (const auto& w : ws) flagged |= d.add(w).has_value();
    return flagged;
  };
  // A closed loop: in flight holds at its concurrency.
  EXPECT_FALSE(run({window(1, 16, 200, 100), window(2, 16, 200, 110), window(3, 16, 200, 120),
                    window(4, 16, 200, 130), window(5, 16, 200, 140)}));
  // Throughput still rising with the load: the server keeps up.
  EXPECT_FALSE(run({window(1, 10, 100, 100), window(2, 20, 200, 200), window(3, 30, 300, 300),
                    window(4, 40, 400, 400)}));
  // TTFT not rising: a queue that grows by itself is not enough.
  EXPECT_FALSE(run({window(1, 10, 200, 100), window(2, 20, 200, 100), window(3, 30, 200, 100),
                    window(4, 40, 200, 100)}));
  // Growth too small to be "without bound".
  EXPECT_FALSE(run({window(1, 10, 200, 100), window(2, 11, 200, 200), window(3, 12, 200, 300),
                    window(4, 13, 200, 400)}));
  // A window with no TTFT (nothing ended in it) breaks the run of evidence.
  EXPECT_FALSE(run({window(1, 10, 200, 100), window(2, 20, 200, std::nullopt),
                    window(3, 30, 200, 300), window(4, 40, 200, 400)}));
}

TEST(Resume, OtherFlagsAreRefusedByNameAndUnfinishedFoldersAreKept) {
  const fs::path root = testing::fresh_test_dir("tokbench_resume");
  EXPECT_THROW(check_resumable(root, "{}"),
               std::invalid_argument);  // no series.json: not a series root
  write_series_record(root,
                      R"({"concurrency_sweep":[1,4],"output_dir":"a","quiet":false,"resume":""})");
  EXPECT_NO_THROW(check_resumable(
      root, R"({"concurrency_sweep":[1,4],"output_dir":"b","quiet":true,"resume":"x"})"));
  try {
    check_resumable(root, R"({"concurrency_sweep":[1,8],"output_dir":"a"})");
    ADD_FAILURE() << "other flags were accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("concurrency_sweep: [1,4] then, [1,8] now"),
              std::string::npos)
        << e.what();
  }
  // An unfinished point folder is moved aside whole, never removed.
  fs::create_directories(root / "c4");
  { std::ofstream(root / "c4" / "details.jsonl") << "{}\n"; }
  EXPECT_FALSE(completed_point(root / "c4"));
  EXPECT_EQ(set_aside(root / "c4").filename(), "c4.interrupted");
  fs::create_directories(root / "c4");
  EXPECT_EQ(set_aside(root / "c4").filename(), "c4.interrupted-2");
  EXPECT_TRUE(fs::exists(root / "c4.interrupted" / "details.jsonl"));
  fs::remove_all(root);
}

}  // namespace
}  // namespace tokbench::runner
