#pragma once
// Test helper: every file a test writes goes in a folder of that test's own, under the system's
// temporary folder: temp/<prefix>_<pid>_<test name>. Parallel tests (CTest runs each in its own
// process) and repeated runs never share a path. No test builds its own (tests/style_check.cmake).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace tokbench::testing {

/// temp/<prefix>_<pid>_<test name> (a parameterized test's '/' made '_': one folder, not nested).
inline std::filesystem::path test_dir_path(const std::string& prefix) {
  std::string name = prefix + "_" + std::to_string(getpid()) + "_" +
                     ::testing::UnitTest::GetInstance()->current_test_info()->name();
  for (char& ch : name)
    if (ch == '/') ch = '_';
  return std::filesystem::temp_directory_path() / name;
}

/// test_dir_path(prefix), emptied and created: one fresh folder per call.
inline std::filesystem::path fresh_test_dir(const std::string& prefix) {
  const auto dir = test_dir_path(prefix);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);  // tests write their datasets and traces there
  return dir;
}

/// The current test's own folder (temp/tokbench_<suite>_<pid>_<test>), emptied the first time the
/// test asks for it and kept for the rest of the test: test_dir() / "data.jsonl".
inline std::filesystem::path test_dir() {
  static std::string last;
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string prefix = std::string("tokbench_") + info->test_suite_name();
  const std::string id = prefix + "." + info->name();
  if (id == last) return test_dir_path(prefix);
  last = id;
  return fresh_test_dir(prefix);
}

}  // namespace tokbench::testing
