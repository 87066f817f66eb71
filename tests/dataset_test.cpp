// dataset/: qa and gsm8k JSON lines, the builtin set, and errors that name file and line.
#include "dataset/dataset.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace tokbench::dataset {
namespace {

namespace fs = std::filesystem;

std::string write_tmp(const std::string& name, const std::string& content) {
  const auto p = fs::temp_directory_path() / name;
  std::ofstream(p) << content;
  return p.string();
}

std::string error_of(const std::string& spec) {
  try {
    load(spec);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(Dataset, QaReadsQuestionsAndMaxTokens) {
  const auto p = write_tmp("tb_qa.jsonl", R"({"question": "a?", "answer": "x"})" "\n\n"
                                          R"({"question": "b?", "max_tokens": 9})" "\n");
  const auto d = load("qa:" + p);
  EXPECT_EQ(d.abbr, "tb_qa");
  ASSERT_EQ(d.items.size(), 2u);
  EXPECT_EQ(d.items[0].prompt, "a?");
  EXPECT_EQ(d.items[0].max_tokens, -1);
  EXPECT_EQ(d.items[1].max_tokens, 9);
  EXPECT_EQ(cycle(d, 3).prompt, "b?");
}

TEST(Dataset, MalformedLineNamesFileAndLine) {
  const auto p = write_tmp("tb_bad.jsonl", R"({"question": "ok"})" "\n" R"({"answer": "no question"})" "\n");
  EXPECT_NE(error_of("qa:" + p).find(p + ":2: expected a JSON object with a \"question\" string"), std::string::npos);
  const auto q = write_tmp("tb_bad2.jsonl", "{\"question\": \"ok\"}\n{broken\n");
  EXPECT_NE(error_of("gsm8k:" + q).find(q + ":2: not valid JSON"), std::string::npos);
  const auto m = write_tmp("tb_bad3.jsonl", R"({"question": "ok", "max_tokens": -3})" "\n");
  EXPECT_NE(error_of("qa:" + m).find(":1: \"max_tokens\" must be a positive integer"), std::string::npos);
}

TEST(Dataset, MissingFileAndBadSpec) {
  EXPECT_NE(error_of("qa:/nonexistent/x.jsonl").find("cannot open dataset '/nonexistent/x.jsonl'"), std::string::npos);
  EXPECT_NE(error_of("sharegpt:x").find("expected qa:PATH, gsm8k:PATH or builtin"), std::string::npos);
  EXPECT_NE(error_of("qa:").find("--dataset"), std::string::npos);
  EXPECT_NE(error_of("qa:" + write_tmp("tb_empty.jsonl", "\n")).find("has no requests"), std::string::npos);
}

TEST(Dataset, Builtin) {
  const auto d = load("builtin");
  EXPECT_GE(d.items.size(), 8u);
  EXPECT_EQ(d.abbr, "builtin");
}

TEST(Dataset, RealGsm8kTestSplit) {
  const fs::path p = fs::path(TOKBENCH_SHARED_DIR) / "datasets/gsm8k/test.jsonl";
  if (!fs::exists(p)) GTEST_SKIP() << "shared dataset absent: " << p;
  const auto d = load("gsm8k:" + p.string());
  EXPECT_EQ(d.items.size(), 1319u);  // GSM8K's test split
  EXPECT_EQ(d.abbr, "gsm8k");
  EXPECT_NE(d.items[0].prompt.find("Janet"), std::string::npos);
}

}  // namespace
}  // namespace tokbench::dataset
