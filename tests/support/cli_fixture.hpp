#pragma once
// Test helper: `tokbench run` as a child process with its own output folder, and result.json
// read back (cli_test, accuracy_test, readme_test).
#include <gtest/gtest.h>
#include <simdjson.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "busy_machine.hpp"
#include "process.hpp"
#include "temp_dir.hpp"

namespace tokbench::testing {

namespace fs = std::filesystem;

class CliFixture : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = fresh_test_dir("tokbench_cli"); }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }

  // Runs `tokbench run` with --output-dir in the test's folder; returns the run folder. Exit 0 is
  // expected as "VALID unless this machine was busy" (support/busy_machine.hpp).
  fs::path run(std::vector<std::string> args, int expect_code = 0) {
    args.insert(args.begin(), "run");
    const bool wants_progress =
        std::find(args.begin(), args.end(), "--progress-interval-s") != args.end();
    args.insert(args.end(), {"--output-dir", (dir_ / "outputs").string()});
    if (!wants_progress) args.push_back("--quiet");
    last_ = run_tokbench(args);
    std::smatch m;
    const bool named = std::regex_search(last_.output, m, std::regex("results: (\\S+)"));
    const fs::path folder = named ? fs::path(m[1].str()) : fs::path();
    if (expect_code == kExitValid)  // VALID, or INVALID only where this machine was busy
      EXPECT_TRUE(RanValidUnlessBusy(last_, named ? folder : dir_ / "outputs"));
    else
      EXPECT_EQ(last_.code, expect_code) << last_.output;
    return folder;
  }

  simdjson::dom::element result(const fs::path& run_dir) {
    auto doc = parser_.load((run_dir / "result.json").string());
    EXPECT_FALSE(doc.error()) << run_dir;
    return doc.value();
  }

  static double metric(simdjson::dom::element r, const char* row, const char* stat) {
    return r["metrics"][row][stat].get_double().value();
  }
  static double common(simdjson::dom::element r, const char* key) {
    return r["common"][key].get_double().value();
  }

  fs::path dir_;
  Result last_;
  simdjson::dom::parser parser_;
};

/// A tokenizer fixture's folder (npm, tests/tokenizer): "qwen3", "llama3", ...
inline fs::path fixture(const std::string& model) {
  return fs::path(TOKBENCH_TOKENIZER_FIXTURES) / ("tokenizer-" + model) / "models";
}

}  // namespace tokbench::testing
