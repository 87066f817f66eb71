#pragma once
// Test helper: `tokbench run` in this process (runner::run_benchmark, which also dispatches
// sweeps, searches and repeats), its console thrown away, into a folder of the test's own.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <string>

#include "client/engine.hpp"
#include "runner/runner.hpp"

namespace tokbench::testing {

/// temp/<prefix>_<pid>_<test name>, emptied: one folder per test, so parallel tests never share one.
inline std::filesystem::path fresh_test_dir(const std::string& prefix) {
  std::string name = prefix + "_" + std::to_string(getpid()) + "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name();
  for (char& ch : name)
    if (ch == '/') ch = '_';  // a parameterized test's name (Suite/Test/param): one folder, not nested ones
  const auto dir = std::filesystem::temp_directory_path() / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);  // tests write their datasets and traces there
  return dir;
}

/// Runs `c` quietly with --output-dir `out_dir`.
inline runner::RunOutcome run_in_process(runner::RunConfig c, const std::filesystem::path& out_dir) {
  c.output_dir = out_dir.string();
  c.quiet = true;
  std::atomic<int> stop{client::kRunning};
  std::FILE* sink = std::fopen("/dev/null", "w");
  runner::RunOutcome out = runner::run_benchmark(c, stop, sink);
  std::fclose(sink);
  return out;
}

}  // namespace tokbench::testing
