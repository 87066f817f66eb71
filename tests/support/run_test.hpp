#pragma once
// Test support: what most integration tests need to run tokbench in process and judge the run —
// RunSettings (a run's settings by name, so tests do not spell RunConfig's layout),
// IsValidUnlessBusy (the verdict, with every reason when it is not VALID; support/busy_machine.hpp)
// and RunTest (a folder of the test's own, removed when the test passes, runs into it, their
// records and result.json).
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "busy_machine.hpp"
#include "in_process_run.hpp"
#include "record/record_io.hpp"
#include "runfolder/run_folder.hpp"
#include "runner/runner.hpp"

namespace tokbench::testing {

/// A run's settings, named as the flags are:
/// RunSettings().url(u).concurrency(4).prompts(12).build().
class RunSettings {
 public:
  RunSettings& url(std::string v) {
    c_.target.url = std::move(v);
    return *this;
  }
  RunSettings& endpoint(std::string v) {
    c_.target.endpoint = std::move(v);
    return *this;
  }
  RunSettings& concurrency(int v) {
    c_.load.concurrency = v;
    return *this;
  }
  RunSettings& prompts(int64_t v) {
    c_.load.num_prompts = v;
    return *this;
  }
  RunSettings& rate(double v) {
    c_.load.request_rate = v;
    return *this;
  }
  RunSettings& max_tokens(int64_t v) {
    c_.request.max_tokens = v;
    return *this;
  }
  RunSettings& ignore_eos(bool v = true) {
    c_.request.ignore_eos = v;
    return *this;
  }
  RunSettings& stream(bool v) {
    c_.request.stream = v;
    return *this;
  }
  RunSettings& warmup(int64_t v) {
    c_.load.warmup = v;
    return *this;
  }
  RunSettings& turns(int v) {
    c_.workload.turns = v;
    return *this;
  }
  RunSettings& dataset(const std::string& v) {
    c_.workload.dataset = dataset::parse_spec(v);
    return *this;
  }
  RunSettings& compat(const std::string& v) {
    c_.request.compat = metrics::kDefinitionChoices.parse(v).value();
    return *this;
  }
  RunSettings& duration_s(double v) {
    c_.load.duration_s = v;
    return *this;
  }
  RunSettings& slo(std::string v) {
    c_.experiment.slo = std::move(v);
    return *this;
  }
  RunSettings& goodput(std::string v) {
    c_.experiment.goodput = std::move(v);
    return *this;
  }
  /// Anything else, on the settings themselves.
  template <class F>
  RunSettings& with(F&& edit) {
    edit(c_);
    return *this;
  }
  runner::RunConfig build() const { return c_; }
  operator runner::RunConfig() const { return c_; }  // NOLINT: a builder reads as its settings

 private:
  runner::RunConfig c_;
};

/// Succeeds when the run's verdict is VALID; otherwise fails with every reason, one a line.
inline ::testing::AssertionResult IsValidUnlessBusy(const runner::RunOutcome& o) {
  if (o.verdict.valid) return ::testing::AssertionSuccess();
  const bool only_busy = std::all_of(o.verdict.reasons.begin(), o.verdict.reasons.end(),
                                     [](const std::string& r) { return busy_machine_reason(r); });
  if (only_busy && !o.verdict.saturated) {
    std::cout << "note: INVALID only for what a busy machine causes; this test's checks do not "
                 "rest on the verdict:";
    for (const auto& r : o.verdict.reasons) std::cout << "\n  - " << r;
    std::cout << "\n";
    return ::testing::AssertionSuccess();
  }
  auto failure = ::testing::AssertionFailure() << "verdict INVALID:";
  for (const auto& r : o.verdict.reasons) failure << "\n  - " << r;
  return failure;
}

/// An in-process run or series (a pair, a sweep, a search) exited 0, or 4 with every
/// INVALID run folder under its root INVALID only for what a busy machine causes.
inline ::testing::AssertionResult ExitedValidUnlessBusy(const runner::RunOutcome& o) {
  return RanValidUnlessBusy(Result{o.exit_code, o.run_dir.string()}, o.run_dir);
}

/// A test that runs tokbench in process into a folder of its own (kept when the test fails).
class RunTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = fresh_test_dir("tokbench_" + suite_name()); }
  void TearDown() override {
    if (!HasFailure()) std::filesystem::remove_all(dir_);
  }
  runner::RunOutcome run(const runner::RunConfig& c) { return run_in_process(c, dir_); }
  /// Every record the run's folder holds, warm-up included.
  std::vector<record::RequestRecord> records(const runner::RunOutcome& o) {
    return record::read_details(runfolder::load_run_folder(o.run_dir).details.string());
  }
  /// The run's result.json (valid until the next call).
  simdjson::dom::element result(const runner::RunOutcome& o) {
    auto doc = parser_.load((o.run_dir / "result.json").string());
    EXPECT_FALSE(doc.error()) << o.run_dir;
    return doc.value();
  }
  std::filesystem::path dir_;

 private:
  static std::string suite_name() {
    std::string s = ::testing::UnitTest::GetInstance()->current_test_info()->test_suite_name();
    for (char& ch : s)
      if (ch == '/') ch = '_';
    return s;
  }
  simdjson::dom::parser parser_;
};

}  // namespace tokbench::testing
