// README.md: its "Five typical runs" run as written against the simulator. SERIAL (they load
// both cores for half a minute) and in the plain build only.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "support/cli_fixture.hpp"
#include "support/sim_process.hpp"

namespace tokbench::testing {
namespace {

class ReadmeTest : public CliFixture {};

// The README's "Five typical runs", read from README.md and run as written in a folder of their
// own (outputs/ lands there): only the server's address, the tokenizer's folder and the two
// run folders `compare` names are put in. Each must end VALID (exit 0) against the simulator, or
// INVALID only where this machine was too busy to measure it, which the test says; and each
// console must be one screen at 120 columns (issue 40).
TEST_F(ReadmeTest, ReadmeExamplesRunValidAsWritten) {
  ASSERT_TRUE(fs::exists(fixture("qwen3"))) << "run `npm ci --prefix tests/tokenizer`";
  std::ifstream in(fs::path(TOKBENCH_SOURCE_DIR) / "README.md");
  std::vector<std::string> commands;  // continuation lines joined
  std::vector<std::string> agent;     // the agent run: its simulator, then the run
  std::vector<std::string> classes;   // the traffic classes' run (the built-in simulator)
  bool inside = false;
  for (std::string line, pending; std::getline(in, line);) {
    if (line.rfind("## Five typical runs", 0) == 0)
      inside = true;
    else if (inside && line.rfind("## ", 0) == 0)
      break;
    if (!inside || (pending.empty() && line.rfind("build/tokbench ", 0) != 0)) continue;
    const bool more = !line.empty() && line.back() == '\\';
    pending += line.substr(0, more ? line.size() - 1 : line.size());
    if (!more) {
      const bool agents = pending.find("serve-mock") != std::string::npos ||
                          pending.find("agent:") != std::string::npos;
      (agents                                          ? agent
       : pending.find("--class ") != std::string::npos ? classes
                                                       : commands)
          .push_back(std::exchange(pending, ""));
    }
  }
  ASSERT_EQ(commands.size(), 5u)
      << "the README's five typical runs changed: update this test with them";
  ASSERT_EQ(agent.size(), 2u) << "the README's agent run: its serve-mock line, then its run";
  ASSERT_EQ(classes.size(), 1u) << "the README's traffic classes' run";
  // A steady server for the two runs `compare` reads, a fast one (tokenizing, like the seed's
  // server) for the sweep, the search and the synthetic prompts.
  Sim steady({"--ttft-ms", "2", "--tpot-ms", "1", "--threads",
              "2"});  // 1 ms: a scheduling hiccup is not 5 % of a TPOT
  Sim fast({"--ttft-ms", "1", "--tpot-ms", "0.05", "--threads", "2", "--tokenizer",
            fixture("qwen3").string()});
  const fs::path cwd = dir_ / "readme";
  fs::create_directories(cwd);
  auto replace = [](std::string s, const std::string& from, const std::string& to) {
    for (size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size())
      s.replace(at, from.size(), to);
    return s;
  };
  auto run_example = [&](std::string cmd, const Sim& sim) {
    cmd = replace(cmd, "build/tokbench ", std::string(TOKBENCH_BINARY) + " ");
    cmd = replace(cmd, "http://127.0.0.1:8000", "http://127.0.0.1:" + sim.port);
    cmd = replace(cmd, "/models/Qwen3-8B", fixture("qwen3").string());
    // As on a terminal of 120 columns (piped, lines stay whole: common/console).
    return run_cmd({"/bin/sh", "-c", "cd '" + cwd.string() + "' && TOKBENCH_WIDTH=120 exec " + cmd},
                   std::chrono::seconds(240));
  };
  auto folder_of = [&](const Result& r) {  // the commands' folders are relative to cwd
    std::smatch m;
    return std::regex_search(r.output, m, std::regex("results: (\\S+)"))
               ? (cwd / m[1].str()).string()
               : std::string("?");
  };
  // Each run's console is one screen: at most 45 lines of at most 120 columns (a column per
  // UTF-8 character; the request body's prompt is abbreviated, the prose fitted). A verdict item
  // only a busy machine causes (its wrapped lines joined) is not the example's: a quiet machine
  // prints none, so its lines are not counted.
  auto one_screen = [](const Result& r, const std::string& cmd) {
    std::vector<std::string> text;
    for (size_t at = 0; at < r.output.size();) {
      size_t end = r.output.find('\n', at);
      if (end == std::string::npos) end = r.output.size();
      text.push_back(r.output.substr(at, end - at));
      at = end + 1;
    }
    size_t lines = 0, widest = 0;
    for (size_t i = 0; i < text.size();) {
      size_t next = i + 1;  // the item's wrapped lines are indented deeper
      if (text[i].starts_with("  - ") || text[i].starts_with("  warning: ")) {
        std::string item = text[i];
        for (; next < text.size() && text[next].starts_with("    "); ++next)
          item += " " + text[next].substr(4);
        if (busy_machine_warning(item)) {
          i = next;
          continue;
        }
      }
      for (; i < next; ++i) {
        size_t cols = 0;
        for (unsigned char c : text[i]) cols += (c & 0xC0) != 0x80;
        widest = std::max(widest, cols);
        ++lines;
      }
    }
    EXPECT_LE(lines, 45u) << cmd << "\n" << r.output;
    EXPECT_LE(widest, 120u) << cmd << "\n" << r.output;
  };
  // A run: VALID, or INVALID only where this machine was busy (support/busy_machine.hpp).
  auto run_valid = [&](const std::string& cmd, const Sim& sim) {
    const Result r = run_example(cmd, sim);
    EXPECT_TRUE(RanValidUnlessBusy(r, cwd / "outputs")) << cmd;
    one_screen(r, cmd);
    return r;
  };
  const Result first = run_valid(commands[0], steady);
  EXPECT_TRUE(FolderValidUnlessBusy(folder_of(first))) << first.output;
  const Result again = run_valid(commands[0], steady);
  const Result seed = run_valid(commands[1], fast);
  EXPECT_TRUE(FolderValidUnlessBusy(folder_of(seed))) << seed.output;
  const Result sweep = run_valid(commands[2], fast);
  EXPECT_NE(sweep.output.find("sweep over concurrency (4 point(s))"), std::string::npos)
      << sweep.output;
  const Result search = run_valid(commands[3], fast);
  EXPECT_NE(search.output.find("search max-concurrency under"), std::string::npos) << search.output;
  // compare: the two runs of the first example stand for the README's two timestamps.
  std::smatch m;
  ASSERT_TRUE(
      std::regex_search(commands[4], m, std::regex("compare (outputs/\\S+) (outputs/\\S+)")))
      << commands[4];
  std::string cmp = replace(commands[4], m[1].str(), folder_of(first));
  cmp = replace(cmp, m[2].str(), folder_of(again));
  const Result compared = run_example(cmp, steady);
  one_screen(compared, cmp);
  if (compared.code == kExitThreshold) {
    // A busy machine moves a TPOT P99 of the same server by more than 5 %: the gate is right to
    // fail then, and the test holds it to the two folders' own figures.
    simdjson::dom::parser p;
    const double before = p.load(folder_of(first) + "/result.json")
                              .value()["metrics"]["TPOT"]["p99"]
                              .get_double()
                              .value();
    const double after = p.load(folder_of(again) + "/result.json")
                             .value()["metrics"]["TPOT"]["p99"]
                             .get_double()
                             .value();
    EXPECT_GT(after / before - 1, 0.05) << compared.output;
    std::cout << "note: compare failed the README's gate on this machine: TPOT P99 " << before
              << " -> " << after << " ms\n";
  } else {
    EXPECT_EQ(compared.code, kExitValid) << compared.output;
    EXPECT_EQ(compared.output.find("FAIL "), std::string::npos) << compared.output;
  }
  // The two traffic classes, against the built-in simulator: a line each, and their fairness.
  const Result two = run_valid(classes[0], steady);
  EXPECT_NE(two.output.find("class chat (concurrency 2, priority 0): 40 req"), std::string::npos)
      << two.output;
  EXPECT_NE(two.output.find("class batch (concurrency 8, priority 10): 40 req"), std::string::npos);
  EXPECT_NE(two.output.find("fairness: Jain's index "), std::string::npos);
  // The agent run: its simulator with the README's flags (on a port of its own), then the run.
  std::vector<std::string> flags;
  std::istringstream words(agent[0].substr(agent[0].find("serve-mock") + 10));
  for (std::string w; words >> w;) {
    if (w == "--port") {  // its number too: the test's simulator takes a free port
      words >> w;
      continue;
    }
    if (w != "&") flags.push_back(w);
  }
  const Sim agents(flags);
  std::smatch url;
  ASSERT_TRUE(std::regex_search(agent[1], url, std::regex("http://127\\.0\\.0\\.1:\\d+")))
      << agent[1];
  std::string cmd = replace(agent[1], url[0].str(), "http://127.0.0.1:8000");
  cmd = replace(cmd, "agent:docs/", std::string("agent:") + TOKBENCH_SOURCE_DIR + "/docs/");
  const Result tasks = run_valid(cmd, agents);
  EXPECT_NE(tasks.output.find("agent tasks: 6 answered"), std::string::npos) << tasks.output;
}

}  // namespace
}  // namespace tokbench::testing
