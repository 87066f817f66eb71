// --check-answers, --keep-outputs and --determinism-probe end to end, against a known truth: the
// simulator answering the seeds' GSM8K split with a known share wrong (its own /metrics counts
// them), the same simulator answering worse as its batch grows (a sweep flags it), and a foreign
// server whose outputs are empty, cut by the cap, repeating or end with a reason OpenAI does not
// define (each counted), or all empty (INVALID).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "net/http_get.hpp"
#include "support/canned_server.hpp"
#include "support/cli_fixture.hpp"
#include "support/gsm8k_fixture.hpp"
#include "support/sim_process.hpp"

namespace tokbench::testing {
namespace {

namespace fs = std::filesystem;

// A GSM8K-format file of 1,319 lines (support/gsm8k_fixture.hpp), written once per test.
std::string gsm8k() {
  const fs::path p = test_dir() / "gsm8k.jsonl";
  if (!fs::exists(p)) write_gsm8k_fixture(p);
  return p.string();
}

fs::path perf_dir(const fs::path& run_dir) {
  return fs::directory_iterator(run_dir / "performances")->path();
}

int64_t answers_counter(const Sim& sim, const char* verdict) {
  const auto got = net::http_get(sim.url("/metrics"), {}, "", 5000);
  std::smatch m;
  const std::regex re(std::string("tokbench_mock_answers_total\\{[^}]*verdict=\"") + verdict +
                      "\"\\} (\\d+)");
  return std::regex_search(got.body, m, re) ? std::stoll(m[1]) : -1;
}

class QualityRun : public CliFixture {};

// 1,319 questions, a quarter drawn wrong at a fixed rate: the simulator says how many it got
// wrong, and tokbench measures exactly that share, with its interval, in every view.
TEST_F(QualityRun, AKnownShareOfGsm8kIsMeasuredExactly) {
  Sim sim({"--answers", "gsm8k:" + gsm8k(), "--wrong-rate", "0.25", "--ttft-ms", "0", "--tpot-ms",
           "0"});
  // --server-metrics off: at --tpot-ms 0 the simulator's /metrics says TPOT 0 however late it runs
  // (a slow sanitizer build), and that cross-check is not what this test is about.
  const fs::path dir = run({"--url", sim.url(), "--dataset", "gsm8k:" + gsm8k(), "--concurrency",
                            "32", "--max-tokens", "8", "--check-answers", "--keep-outputs", "5",
                            "--history", (dir_ / "store.db").string(), "--server-metrics", "off"});
  ASSERT_FALSE(dir.empty()) << last_.output;
  const int64_t right = answers_counter(sim, "right"), wrong = answers_counter(sim, "wrong");
  EXPECT_EQ(wrong, 330);  // ceil(0.25 x 1,319)
  EXPECT_EQ(right + wrong, 1319);
  auto answers = result(dir)["quality"]["answers"];
  EXPECT_EQ(answers["right"].get_int64().value(), right);
  EXPECT_EQ(answers["wrong"].get_int64().value(), wrong);
  EXPECT_EQ(answers["unscored"].get_int64().value(), 0);
  const double accuracy = answers["accuracy"].get_double().value();
  EXPECT_DOUBLE_EQ(accuracy, static_cast<double>(right) / 1319);
  const double low = answers["interval"].at(0).get_double().value(),
               high = answers["interval"].at(1).get_double().value();
  EXPECT_LT(low, accuracy);
  EXPECT_GT(high, accuracy);
  EXPECT_LT(high - low, 0.06);
  EXPECT_NE(last_.output.find("answers: accuracy 0.750 ["), std::string::npos) << last_.output;
  EXPECT_NE(last_.output.find("989 of 1319 right; 0 unscored"), std::string::npos) << last_.output;
  // Per request: what was read and whether it was right; the details agree with the totals.
  const fs::path perf = perf_dir(dir);
  std::ifstream details(perf / "gsm8k_details.jsonl");
  int64_t rights = 0, lines = 0;
  for (std::string line; std::getline(details, line); ++lines) {
    ASSERT_NE(line.find("\"answer\":\""), std::string::npos) << line;
    rights += line.find("\"right\":true") != std::string::npos;
  }
  EXPECT_EQ(lines, 1319);
  EXPECT_EQ(rights, right);
  EXPECT_NE(slurp(perf / "gsm8k_quality.csv").find("accuracy,0.749"), std::string::npos);
  EXPECT_NE(slurp(perf / "gsm8k_plot.html").find("Accuracy"), std::string::npos);
  // --keep-outputs 5: requests 0..4, each with its prompt, output, reference and verdict.
  EXPECT_EQ(count_lines(perf / "gsm8k_outputs.jsonl"), 5u);
  const std::string outputs = slurp(perf / "gsm8k_outputs.jsonl");
  EXPECT_NE(outputs.find("\"id\":0,\"success\":true,\"prompt\":\"Problem 0: Janet"),
            std::string::npos)
      << outputs;
  EXPECT_NE(outputs.find(" The answer is #### "), std::string::npos) << outputs;
  EXPECT_NE(outputs.find("\"reference\":"), std::string::npos) << outputs;
  // The results store carries it like any metric (history check reads a fall as a regression).
  const Result shown =
      run_tokbench({"history", "show", dir.string(), "--history", (dir_ / "store.db").string()});
  EXPECT_EQ(shown.code, 0) << shown.output;
  EXPECT_NE(shown.output.find("accuracy"), std::string::npos) << shown.output;
  EXPECT_NE(shown.output.find("right_answers"), std::string::npos) << shown.output;
  // `report` recomputes the same accuracy from the folder alone.
  const Result again = run_tokbench({"report", dir.string()});
  EXPECT_TRUE(RanValidUnlessBusy(again, dir));
  EXPECT_NE(again.output.find("989 of 1319 right"), std::string::npos) << again.output;
}

// Failed requests that had a reference are counted apart, never as wrong: read back from the
// details (the reference itself is not saved), they still say they were not scored.
TEST_F(QualityRun, FailedRequestsAreCountedApartFromTheAccuracy) {
  Sim sim({"--answers", "gsm8k:" + gsm8k(), "--fault-rate", "0.1", "--fault-kinds", "500",
           "--ttft-ms", "0", "--tpot-ms", "0"});
  const fs::path dir =
      run({"--url", sim.url(), "--dataset", "gsm8k:" + gsm8k(), "--num-prompts", "200",
           "--concurrency", "8", "--max-tokens", "8", "--check-answers", "--server-metrics", "off"},
          4);
  ASSERT_FALSE(dir.empty()) << last_.output;
  auto r = result(dir);
  const int64_t failed = static_cast<int64_t>(r["common"]["failed_requests"].get_double().value());
  auto answers = r["quality"]["answers"];
  EXPECT_GT(failed, 0);
  EXPECT_EQ(answers["failed"].get_int64().value(), failed);
  EXPECT_EQ(answers["wrong"].get_int64().value(),
            0);  // the simulator answered every one it answered right
  EXPECT_EQ(answers["right"].get_int64().value(), 200 - failed);
  EXPECT_DOUBLE_EQ(answers["accuracy"].get_double().value(), 1.0);
  EXPECT_NE(last_.output.find(fmt::format("; {} failed, not scored)", failed)), std::string::npos)
      << last_.output;
}

// The feature's first run with only its own flags: the built-in simulator answers GSM8K (right),
// ending each answer soon after it, so the run is VALID with nothing to warn about the answers.
TEST_F(QualityRun, AFirstRunOnTheBuiltInSimulatorIsValidAndScored) {
  const fs::path dir = run({"--dataset", "gsm8k:" + gsm8k(), "--check-answers", "--concurrency",
                            "32", "--num-prompts", "200"});
  ASSERT_FALSE(dir.empty()) << last_.output;
  EXPECT_NE(last_.output.find("answers: accuracy 1.000 ["), std::string::npos) << last_.output;
  EXPECT_NE(last_.output.find("200 of 200 right; 0 unscored"), std::string::npos) << last_.output;
  EXPECT_NE(last_.output.find("verdict: VALID\n"), std::string::npos) << last_.output;
  EXPECT_EQ(last_.output.find("warning:"), std::string::npos) << last_.output;
}

// Each running request adds 5% wrong answers: alone every answer is right, 16 at once answer
// worse; the sweep names the fall, and compare calls it significant.
TEST_F(QualityRun, AccuracyThatFallsWithTheBatchIsFlaggedInASweep) {
  Sim sim({"--answers", "gsm8k:" + gsm8k(), "--wrong-rate-per-running-request", "0.05", "--ttft-ms",
           "2", "--tpot-ms", "1"});
  run({"--url", sim.url(), "--dataset", "gsm8k:" + gsm8k(), "--concurrency", "1,16",
       "--num-prompts", "96", "--max-tokens", "8", "--ignore-eos", "--check-answers"});
  EXPECT_NE(last_.output.find("warning: accuracy 1.000 at concurrency 1, 0."), std::string::npos)
      << last_.output;
  EXPECT_NE(last_.output.find(" at 16: below the lowest load's 95% interval"), std::string::npos)
      << last_.output;
  const fs::path root = fs::directory_iterator(dir_ / "outputs")->path();
  simdjson::dom::parser p;
  const auto summary = p.load((root / "sweep/summary.json").string()).value();
  EXPECT_NE(std::string_view(summary["accuracy_warning"]).find("accuracy 1.000"),
            std::string_view::npos);
  const auto points = summary["sweep"]["points"].get_array().value();
  EXPECT_DOUBLE_EQ(points.at(0)["accuracy"].get_double().value(), 1.0);
  EXPECT_LT(points.at(1)["accuracy"].get_double().value(), 0.9);
  EXPECT_NE(slurp(root / "sweep/summary.csv").find(",accuracy,accuracy_low,accuracy_high"),
            std::string::npos);
  const Result cmp = run_tokbench({"compare", (root / "c1").string(), (root / "c16").string()});
  EXPECT_NE(cmp.output.find("intervals apart: significant"), std::string::npos) << cmp.output;
}

// A search's probes carry their accuracy, and the same rule names a fall; repeats give it a mean.
TEST_F(QualityRun, SearchesAndRepeatsCarryAccuracy) {
  Sim sim({"--answers", "gsm8k:" + gsm8k(), "--wrong-rate-per-running-request", "0.05", "--ttft-ms",
           "2", "--tpot-ms", "1"});
  run({"--url", sim.url(), "--dataset", "gsm8k:" + gsm8k(), "--search", "max-concurrency", "--slo",
       "e2el.p99<=5000ms", "--search-max", "16", "--num-prompts", "64", "--max-tokens", "8",
       "--ignore-eos", "--check-answers"});
  EXPECT_NE(last_.output.find("warning: accuracy 1.000 at concurrency 1,"), std::string::npos)
      << last_.output;
  fs::path root = fs::directory_iterator(dir_ / "outputs")->path();
  const std::string search = slurp(root / "search/search.json");
  EXPECT_NE(search.find("\"accuracy\":1,\"accuracy_interval\":["), std::string::npos) << search;
  EXPECT_NE(search.find("\"accuracy_warning\":\"accuracy 1.000"), std::string::npos) << search;
  fs::remove_all(dir_ / "outputs");
  run({"--url", sim.url(), "--dataset", "gsm8k:" + gsm8k(), "--repeats", "2", "--num-prompts", "20",
       "--max-tokens", "8", "--ignore-eos", "--check-answers"});
  root = fs::directory_iterator(dir_ / "outputs")->path();
  EXPECT_NE(slurp(root / "repeats/summary.json").find("\"accuracy\""), std::string::npos);
}

std::string sse(const std::string& content, const std::string& finish) {
  std::string out = "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\n";
  if (!content.empty())
    out += "data: {\"choices\":[{\"delta\":{\"content\":\"" + content + "\"}}]}\n\n";
  out += "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"" + finish + "\"}]}\n\n";
  return CannedServer::http(200, "text/event-stream", out + "data: [DONE]\n\n");
}

// A server not ours: two each of a normal answer, an empty one, one cut by the cap, one looping,
// and one ending "abort" (vLLM's word, not OpenAI's).
TEST_F(QualityRun, EmptyCutRepeatingAndUndefinedEndingsAreEachCounted) {
  std::string looping;
  for (int i = 0; i < 20; ++i) looping += "the end ";
  const std::vector<std::string> kinds{sse("The answer is 4.", "stop"), sse("", "stop"),
                                       sse("The answer is", "length"), sse(looping, "stop"),
                                       sse("x", "abort")};
  std::atomic<int> n{0};
  CannedServer server([&](const std::string& path) {
    if (path == "/v1/models")
      return CannedServer::http(200, "application/json", R"({"data":[{"id":"m"}]})");
    return kinds[static_cast<size_t>(n++) % kinds.size()];
  });
  const fs::path dir = run({"--url", server.url("/v1/chat/completions"), "--num-prompts", "10",
                            "--concurrency", "1", "--server-metrics", "off", "--check-answers"});
  ASSERT_FALSE(dir.empty()) << last_.output;
  auto in = result(dir)["quality"]["integrity"];
  EXPECT_EQ(in["outputs"].get_int64().value(), 10);
  EXPECT_EQ(in["empty"].get_int64().value(), 2);
  EXPECT_EQ(in["truncated"].get_int64().value(), 2);
  EXPECT_EQ(in["repeating"].get_int64().value(), 2);
  EXPECT_EQ(in["invalid_utf8"].get_int64().value(), 0);
  EXPECT_EQ(in["unknown_finish_reason"].get_int64().value(), 2);
  EXPECT_EQ(std::string_view(in["unknown_finish_reason_example"]), "abort");
  EXPECT_TRUE(
      result(dir)["quality"]["answers"].is_null());  // the built-in prompts carry no reference
  for (const char* said :
       {"2 of 10 successful output(s) were empty", "2 of 10 output(s) were cut by the output cap",
        "2 of 10 output(s) end in runaway repetition",
        "ended with a finish_reason the API does not define"})
    EXPECT_NE(last_.output.find(said), std::string::npos) << said << "\n" << last_.output;
  EXPECT_TRUE(FolderValidUnlessBusy(dir));  // warnings, not reasons
  // Without --check-answers the text is not read: repetition is not checked, and a cap cut is only
  // counted.
  const fs::path plain = run({"--url", server.url("/v1/chat/completions"), "--num-prompts", "10",
                              "--concurrency", "1", "--server-metrics", "off"});
  auto quiet = result(plain)["quality"]["integrity"];
  EXPECT_TRUE(quiet["repeating"].is_null());
  EXPECT_EQ(quiet["truncated"].get_int64().value(), 2);
  EXPECT_EQ(last_.output.find("cut by the output cap"), std::string::npos) << last_.output;
}

TEST_F(QualityRun, EveryOutputEmptyIsInvalid) {
  CannedServer server([&](const std::string& path) {
    if (path == "/v1/models")
      return CannedServer::http(200, "application/json", R"({"data":[{"id":"m"}]})");
    return sse("", "stop");
  });
  run({"--url", server.url("/v1/chat/completions"), "--num-prompts", "4", "--concurrency", "1",
       "--server-metrics", "off"},
      4);
  EXPECT_NE(last_.output.find("every one of the 4 successful output(s) was empty"),
            std::string::npos)
      << last_.output;
}

// Identical greedy requests: the simulator with ignore_eos answers each the same; a server whose
// every answer differs is named.
TEST_F(QualityRun, IdenticalGreedyProbesAreCompared) {
  Sim sim({"--ttft-ms", "1", "--tpot-ms", "1"});
  const fs::path same =
      run({"--url", sim.url(), "--num-prompts", "40", "--concurrency", "4", "--max-tokens", "12",
           "--ignore-eos", "--temperature", "0", "--determinism-probe", "4"});
  ASSERT_FALSE(same.empty()) << last_.output;
  auto d = result(same)["quality"]["determinism"];
  EXPECT_EQ(d["probes"].get_int64().value(), 4);
  EXPECT_EQ(d["distinct_outputs"].get_int64().value(), 1);
  EXPECT_NE(
      last_.output.find("determinism: 4 identical probe(s), 1 distinct output(s) (all identical)"),
      std::string::npos)
      << last_.output;
  // The probes are requests 0, 10, 20, 30, all asking the first prompt.
  std::ifstream details(perf_dir(same) / "builtin_details.jsonl");
  int probes = 0;
  for (std::string line; std::getline(details, line);)
    probes += line.find("\"probe\":true") != std::string::npos;
  EXPECT_EQ(probes, 4);
  std::atomic<int> n{0};
  CannedServer drifting([&](const std::string& path) {
    if (path == "/v1/models")
      return CannedServer::http(200, "application/json", R"({"data":[{"id":"m"}]})");
    return sse("answer " + std::to_string(n++), "stop");
  });
  const fs::path differ =
      run({"--url", drifting.url("/v1/chat/completions"), "--num-prompts", "6", "--concurrency",
           "1", "--server-metrics", "off", "--temperature", "0", "--determinism-probe", "3"});
  EXPECT_EQ(result(differ)["quality"]["determinism"]["distinct_outputs"].get_int64().value(), 3);
  EXPECT_NE(last_.output.find("the 3 identical probe request(s) gave 3 different outputs"),
            std::string::npos)
      << last_.output;
  // Sampled outputs differ by design: the probe asks for greedy decoding.
  const Result r = run_tokbench({"run", "--determinism-probe", "4", "--quiet"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("add --temperature 0"), std::string::npos) << r.output;
}

// A qa line's answer_regex: right when the output matches; a pattern that does not compile names
// its line.
TEST_F(QualityRun, AnswerRegexLinesAreScoredAndABadPatternNamesItsLine) {
  const fs::path qa = dir_ / "regex.jsonl";
  std::ofstream(qa) << R"j({"question": "one", "answer_regex": "\\bmodel\\b"})j"
                       "\n"
                    << R"j({"question": "two", "answer_regex": "^zzz"})j"
                       "\n"
                    << R"j({"question": "three", "answer_regex": "stream(s|ed)"})j"
                       "\n"
                    << R"j({"question": "four", "answer_regex": "[0-9]{3}"})j"
                       "\n";
  Sim sim({"--ttft-ms", "1", "--tpot-ms", "1"});
  const fs::path dir = run({"--url", sim.url(), "--dataset", "qa:" + qa.string(), "--max-tokens",
                            "8", "--ignore-eos", "--check-answers", "--verbose"});
  ASSERT_FALSE(dir.empty()) << last_.output;
  auto answers = result(dir)["quality"]["answers"];
  EXPECT_EQ(answers["right"].get_int64().value(),
            2);  // " the model streams tokens ..." matches one and three
  EXPECT_EQ(answers["wrong"].get_int64().value(), 2);
  EXPECT_NE(last_.output.find("answers: accuracy 0.500 ["), std::string::npos)
      << last_.output;  // --verbose too
  std::ofstream(qa, std::ios::app) << R"j({"question": "five", "answer_regex": "(unclosed"})j"
                                      "\n";
  const Result r =
      run_tokbench({"run", "--dataset", "qa:" + qa.string(), "--check-answers", "--quiet"});
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.output.find("regex.jsonl:5: \"answer_regex\" is not a valid PCRE2 pattern: missing "
                          "closing parenthesis"),
            std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace tokbench::testing
