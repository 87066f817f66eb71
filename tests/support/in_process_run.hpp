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
#include "temp_dir.hpp"

namespace tokbench::testing {

/// Runs `c` quietly with --output-dir `out_dir`.
inline runner::RunOutcome run_in_process(runner::RunConfig c,
                                         const std::filesystem::path& out_dir) {
  c.output.output_dir = out_dir.string();
  c.output.quiet = true;
  std::atomic<int> stop{client::kRunning};
  std::FILE* sink = std::fopen("/dev/null", "w");
  runner::RunOutcome out = runner::run_benchmark(c, stop, sink);
  std::fclose(sink);
  return out;
}

}  // namespace tokbench::testing
