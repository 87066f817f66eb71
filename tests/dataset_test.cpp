// dataset/: qa and gsm8k JSON lines, the builtin set, and errors that name file and line.
#include "dataset/dataset.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "tokenizer/tokenizer.hpp"

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
  } catch (const std::invalid_argument& e) {  // a malformed spec: a usage error (exit 2)
    return std::string("usage: ") + e.what();
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

TEST(Dataset, ParsesLinesFromMemoryWithTheNameInErrors) {
  std::istringstream ok("{\"question\":\"a\"}\n\n{\"question\":\"b\",\"max_tokens\":7}\n");
  const auto d = parse_lines("qa", "mem.jsonl", ok);
  ASSERT_EQ(d.items.size(), 2u);
  EXPECT_EQ(d.items[1].max_tokens, 7);
  EXPECT_EQ(d.abbr, "mem");
  std::istringstream bad("{\"question\":\"a\"}\n[1]\n");
  try {
    (void)parse_lines("qa", "mem.jsonl", bad);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("mem.jsonl:2"), std::string::npos) << e.what();
  }
}

TEST(Dataset, MissingFileAndBadSpec) {
  EXPECT_NE(error_of("qa:/nonexistent/x.jsonl").find("cannot open dataset '/nonexistent/x.jsonl'"), std::string::npos);
  EXPECT_NE(error_of("sharegpt:x").find("usage: --dataset: bad value 'sharegpt:x' (expected qa:PATH, gsm8k:PATH"),
            std::string::npos);
  EXPECT_NE(error_of("qa:").find("usage: --dataset"), std::string::npos);
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

// ---- synthetic prompts of an exact token length ------------------------------------------------

namespace tokbench::dataset {
namespace {

class SyntheticDataset : public ::testing::TestWithParam<std::string> {};

TEST_P(SyntheticDataset, EveryPromptHasExactlyTheAskedLength) {
  const fs::path dir = fs::path(TOKBENCH_TOKENIZER_FIXTURES) / ("tokenizer-" + GetParam()) / "models";
  ASSERT_TRUE(fs::exists(dir)) << "run `npm ci --prefix tests/tokenizer`";
  const auto tok = tokenizer::Tokenizer::load(dir.string());
  auto codec = local_codec(tok);
  SyntheticOptions o;
  o.count = 12;
  o.output_len = 7;
  o.seed = 42;
  for (int64_t n : {1, 5, 128, 1500}) {
    o.input_len = n;
    const auto d = synthetic(o, *codec);
    ASSERT_EQ(d.items.size(), 12u);
    for (const auto& item : d.items) {
      const auto ids = tok.encode(item.prompt, false);
      ASSERT_EQ(static_cast<int64_t>(ids.size()), n) << GetParam() << ": " << item.prompt.substr(0, 80);
      EXPECT_EQ(item.expected_input_tokens, n);
      EXPECT_EQ(item.max_tokens, 7);
      for (int32_t id : ids) ASSERT_FALSE(tok.is_special(id)) << "special token in a synthetic prompt";
    }
  }
  // A shared prefix, a spread, and a server overhead to leave room for.
  o.input_len = 200;
  o.input_len_range = 0.25;
  o.prefix_len = 32;
  o.overhead = 3;
  const auto d = synthetic(o, *codec);
  const std::string prefix = d.items[0].prompt.substr(0, 40);
  std::set<int64_t> lengths;
  for (const auto& item : d.items) {
    EXPECT_EQ(item.prompt.substr(0, 40), prefix);
    const auto n = static_cast<int64_t>(tok.count(item.prompt, false));
    EXPECT_EQ(n, item.expected_input_tokens - 3);
    EXPECT_GE(item.expected_input_tokens, 32 + 150);
    EXPECT_LE(item.expected_input_tokens, 32 + 250);
    lengths.insert(n);
  }
  EXPECT_GT(lengths.size(), 3u);
  // Deterministic in the seed.
  EXPECT_EQ(synthetic(o, *codec).items[5].prompt, d.items[5].prompt);
}

INSTANTIATE_TEST_SUITE_P(Families, SyntheticDataset,
                         ::testing::Values("deepseek_v3", "qwen3", "llama3", "llama2", "gemma3"),
                         [](const auto& info) { return info.param; });

TEST(SyntheticDatasetErrors, NamesTheFlag) {
  const fs::path dir = fs::path(TOKBENCH_TOKENIZER_FIXTURES) / "tokenizer-qwen3" / "models";
  ASSERT_TRUE(fs::exists(dir));
  const auto tok = tokenizer::Tokenizer::load(dir.string());
  auto codec = local_codec(tok);
  SyntheticOptions o;
  o.input_len = 4;
  o.output_len = 1;
  o.overhead = 8;
  try {
    synthetic(o, *codec);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--input-len 4: the server adds 8 token(s)"), std::string::npos) << e.what();
  }
  o.overhead = 0;
  o.input_len_range = 1.5;
  EXPECT_THROW(synthetic(o, *codec), std::invalid_argument);
}

}  // namespace
}  // namespace tokbench::dataset
