// cli/reference_command and the option groups: `tokbench run --help` shows its options in the
// sections of kRunGroups, in order; docs/CLI.md is exactly what `tokbench cli-reference` prints
// (regenerate it when a flag changes); the bash completion script completes commands and flags
// when bash runs it, and the zsh one is valid zsh.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>

#include "common/exit_codes.hpp"
#include "support/process.hpp"
#include "support/sim_process.hpp"
#include "support/temp_dir.hpp"

namespace tokbench::testing {
namespace {

namespace fs = std::filesystem;

TEST(CliReference, RunHelpIsGroupedInOrder) {
  const auto r = run_tokbench({"run", "--help"});
  ASSERT_EQ(r.code, 0) << r.output;
  size_t at = 0;
  for (const char* group :
       {"Target:", "Request:", "Load:", "Workload:", "Experiment:", "Observe:", "Output:"}) {
    const size_t found = r.output.find(std::string("\n") + group + "\n", at);
    ASSERT_NE(found, std::string::npos) << group << " missing or out of order:\n" << r.output;
    at = found;
  }
  // A few flags, each under its own section: it comes after its header and before the next.
  auto section_of = [&](const std::string& flag) {
    const size_t f = r.output.find("\n  " + flag + " ");
    std::string last;
    for (const char* group :
         {"Target:", "Request:", "Load:", "Workload:", "Experiment:", "Observe:", "Output:"}) {
      const size_t g = r.output.find(std::string("\n") + group + "\n");
      if (g < f) last = group;
    }
    return last;
  };
  EXPECT_EQ(section_of("--url"), "Target:");
  EXPECT_EQ(section_of("--max-tokens"), "Request:");
  EXPECT_EQ(section_of("--concurrency"), "Load:");
  EXPECT_EQ(section_of("--dataset"), "Workload:");
  EXPECT_EQ(section_of("--search"), "Experiment:");
  EXPECT_EQ(section_of("--server-metrics"), "Observe:");
  EXPECT_EQ(section_of("--output-dir"), "Output:");
}

// --help fits the console: 120 columns when piped, the width asked for with TOKBENCH_WIDTH (a
// terminal's own otherwise); a description goes on under its column (issue 40: 41 lines of
// `run --help` were wider than 120).
TEST(CliReference, HelpIsWrappedToTheWidth) {
  auto widest = [](const std::string& text) {
    size_t w = 0;
    for (size_t at = 0; at < text.size();) {
      size_t end = text.find('\n', at);
      if (end == std::string::npos) end = text.size();
      size_t cols = 0;
      for (size_t k = at; k < end; ++k)
        cols += (static_cast<unsigned char>(text[k]) & 0xC0) != 0x80;
      w = std::max(w, cols);
      at = end + 1;
    }
    return w;
  };
  const auto piped = run_tokbench({"run", "--help"});
  EXPECT_LE(widest(piped.output), 120u);
  EXPECT_NE(piped.output.find("\n                              built-in simulator)"),
            std::string::npos)
      << "--url's description continues under its column:\n"
      << piped.output;
  setenv("TOKBENCH_WIDTH", "90", 1);
  const auto narrow = run_tokbench({"run", "--help"});
  unsetenv("TOKBENCH_WIDTH");
  EXPECT_LE(widest(narrow.output), 90u) << narrow.output;
  EXPECT_GT(std::count(narrow.output.begin(), narrow.output.end(), '\n'),
            std::count(piped.output.begin(), piped.output.end(), '\n'));
}

// The committed page is the generated one: a flag added, renamed or reworded without
// regenerating docs/CLI.md fails here.
TEST(CliReference, DocsCliMdIsTheGeneratedReference) {
  const auto r = run_tokbench({"cli-reference"});
  ASSERT_EQ(r.code, 0) << r.output;
  const std::string committed = slurp(fs::path(TOKBENCH_SOURCE_DIR) / "docs" / "CLI.md");
  EXPECT_EQ(r.output, committed)
      << "docs/CLI.md is stale: run `build/tokbench cli-reference > docs/CLI.md`";
  // Every option of `run` outside the three general ones sits in a named section.
  const size_t run = r.output.find("## tokbench run"), target = r.output.find("### Target", run);
  const std::string general = r.output.substr(run, target - run);
  size_t rows = 0;
  for (size_t at = general.find("\n| `"); at != std::string::npos;
       at = general.find("\n| `", at + 1))
    ++rows;
  EXPECT_EQ(rows, 3u) << general;  // --help, --config, --print-config
}

std::string complete_in_bash(const std::string& words, int cword) {
  const fs::path script = testing::test_dir() / "completion.bash";
  {
    std::ofstream out(script);
    out << run_tokbench({"completion", "bash"}).output;
  }
  const auto r = run_cmd({"/bin/bash", "-c",
                          "source '" + script.string() + "'; COMP_WORDS=(" + words +
                              "); COMP_CWORD=" + std::to_string(cword) +
                              "; _tokbench; echo \"${COMPREPLY[*]}\""});
  fs::remove(script);
  EXPECT_EQ(r.code, 0) << r.output;
  return r.output;
}

TEST(CliReference, BashCompletesCommandsAndFlags) {
  EXPECT_EQ(complete_in_bash("tokbench se", 1), "serve-mock\n");
  EXPECT_EQ(complete_in_bash("tokbench run --concu", 2), "--concurrency\n");
  EXPECT_EQ(complete_in_bash("tokbench run --url http://h/v1/responses --images", 4),
            "--images-per-request\n");
  EXPECT_EQ(complete_in_bash("tokbench serve-mock --tpot", 2), "--tpot-ms\n");
  EXPECT_EQ(complete_in_bash("tokbench compare --fail", 2), "--fail-if\n");
}

TEST(CliReference, ZshScriptIsValidZshAndNamesEveryCommand) {
  const auto z = run_tokbench({"completion", "zsh"});
  ASSERT_EQ(z.code, 0) << z.output;
  const fs::path script = testing::test_dir() / "completion.zsh";
  {
    std::ofstream out(script);
    out << z.output;
  }
  const auto check = run_cmd({"/usr/bin/zsh", "-n", script.string()});
  fs::remove(script);
  EXPECT_EQ(check.code, 0) << check.output;
  for (const char* cmd : {"'run:", "'serve-mock:", "'report:", "'compare:", "'tokenize:"})
    EXPECT_NE(z.output.find(cmd), std::string::npos) << cmd;
  EXPECT_NE(z.output.find("'--concurrency[max requests in flight"), std::string::npos);
  const auto bad = run_tokbench({"completion", "fish"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.output.find("expected bash or zsh"), std::string::npos) << bad.output;
}

}  // namespace
// The exit codes are one table (common/exit_codes.hpp): the man page's EXIT STATUS is written
// from it, and the README's "Exit codes" paragraph names exactly its codes.
TEST(CliReference, ExitCodesAreOneTable) {
  std::ifstream in(fs::path(TOKBENCH_SOURCE_DIR) / "README.md");
  std::string readme((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t at = readme.find("Exit codes for scripts");
  ASSERT_NE(at, std::string::npos) << "the README's exit-code paragraph is gone";
  const std::string para = readme.substr(at, readme.find("\n\n", at) - at);
  std::set<int> named;
  const std::regex code(R"((^|[\s(,])(\d+)\s)");
  for (auto it = std::sregex_iterator(para.begin(), para.end(), code); it != std::sregex_iterator();
       ++it)
    named.insert(std::stoi((*it)[2]));
  std::set<int> table;
  for (const auto& [c, what] : kExitCodes) table.insert(c);
  EXPECT_EQ(named, table) << para;
  const auto man = run_tokbench({"man"});
  ASSERT_EQ(man.code, 0) << man.output;
  for (const auto& [c, what] : kExitCodes)
    EXPECT_NE(man.output.find(fmt::format(".B {}\n", c)), std::string::npos) << c;
}

}  // namespace tokbench::testing
