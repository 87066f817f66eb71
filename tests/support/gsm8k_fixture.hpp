#pragma once
// Test helper: a GSM8K-format file made by the test itself. The real test split (MIT) is not in
// the repository, so no test may need it; these lines have its shape — {"question", "answer"},
// the answer's worked steps with <<calculator>> annotations, then "#### N" — and the reference
// forms the answer rules must read: plain integers, thousands separators, negative numbers and
// decimals. 1,319 lines by default, as many as the real split, so counts read the same.
// The real split's own text is read from the sample shipped under tests/data/gsm8k (its first 64
// lines, with its license), or all of it where $TOKBENCH_GSM8K names the file (gsm8k_split()).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

namespace tokbench::testing {

inline constexpr int kGsm8kLines = 1319;

/// The reference of line i (what follows its "####").
inline std::string gsm8k_fixture_reference(int i) {
  const long v = 3L * i + 7;
  switch (i % 7) {
    case 3:  // thousands separators, as in "#### 1,600"
      return std::to_string(v) + ",234";
    case 5:  // a loss
      return "-" + std::to_string(v % 50 + 1);
    case 6:  // a decimal
      return std::to_string(v % 90 + 1) + ".5";
    default:
      return std::to_string(v);
  }
}

/// Writes `n` GSM8K-format lines to `path` (distinct questions: the simulator's --answers keys on
/// them) and returns the path.
inline std::filesystem::path write_gsm8k_fixture(const std::filesystem::path& path,
                                                 int n = kGsm8kLines) {
  std::ofstream out(path);
  for (int i = 0; i < n; ++i) {
    const std::string ref = gsm8k_fixture_reference(i);
    out << "{\"question\": \"Problem " << i << ": Janet's ducks lay " << 16 + i % 9
        << " eggs per day. She eats three for breakfast every morning and sells the rest at the "
           "farmers' market. "
           "How much does she make every day, in dollars?\", "
        << "\"answer\": \"Janet sells " << 16 + i % 9 << " - 3 = <<" << 16 + i % 9
        << "-3=" << 13 + i % 9 << ">>" << 13 + i % 9 << " duck eggs a day.\\nShe makes $" << ref
        << " every day at the farmer's market.\\n#### " << ref << "\"}\n";
  }
  return path;
}

/// Lines of GSM8K's real test split (test.jsonl of openai/grade-school-math, MIT) and how many.
struct Gsm8kSplit {
  std::filesystem::path path;
  int lines = 0;
};

/// The whole split where $TOKBENCH_GSM8K names it (1,319 lines), else the sample the repository
/// ships (tests/data/gsm8k/test_sample.jsonl: its first 64 lines, unchanged).
inline Gsm8kSplit gsm8k_split() {
  const char* p = std::getenv("TOKBENCH_GSM8K");
  if (p && *p && std::filesystem::exists(p)) return {std::filesystem::path(p), 1319};
  return {std::filesystem::path(TOKBENCH_SOURCE_DIR) / "tests/data/gsm8k/test_sample.jsonl", 64};
}

}  // namespace tokbench::testing
