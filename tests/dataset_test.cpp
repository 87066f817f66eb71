// dataset/: qa and gsm8k JSON lines, the builtin set, and errors that name file and line.
#include "dataset/dataset.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "support/gsm8k_fixture.hpp"
#include "support/temp_dir.hpp"
#include "tokenizer/tokenizer.hpp"

namespace tokbench::dataset {
namespace {

namespace fs = std::filesystem;

std::string write_tmp(const std::string& name, const std::string& content) {
  const auto p = testing::test_dir() / name;
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

// --dataset's text becomes a typed spec once; every form reads back to itself, and a bad one names
// every form.
TEST(Dataset, SpecParsesEveryFormAndNamesThemWhenBad) {
  EXPECT_EQ(parse_spec("builtin"), (Spec{Source::Builtin, ""}));
  EXPECT_EQ(parse_spec("synthetic"), (Spec{Source::Synthetic, ""}));
  EXPECT_EQ(parse_spec("qa:/d/x.jsonl"), (Spec{Source::Qa, "/d/x.jsonl"}));
  EXPECT_EQ(parse_spec("trace:a:b.jsonl"),
            (Spec{Source::Trace, "a:b.jsonl"}));  // the path may hold colons
  for (const char* text :
       {"builtin", "synthetic", "qa:x", "gsm8k:x", "lines:x", "sharegpt:x", "trace:x"})
    EXPECT_EQ(parse_spec(text).text(), text);
  for (const char* bad : {"", "qa", "qa:", "builtin:x", "synthetic:", "csv:x", "sharegpt.json"}) {
    try {
      parse_spec(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()),
                fmt::format("--dataset: bad value '{}' (expected builtin | synthetic | qa:PATH | "
                            "gsm8k:PATH | lines:PATH | sharegpt:PATH | trace:PATH | agent:PATH | "
                            "agent-trace:PATH)",
                            bad));
    }
  }
  EXPECT_NE(error_of("trace:x").find("usage: --dataset trace:x: built by the runner"),
            std::string::npos);
}

TEST(Dataset, QaReadsQuestionsAndMaxTokens) {
  const auto p = write_tmp("tb_qa.jsonl", R"({"question": "a?", "answer": "x"})"
                                          "\n\n"
                                          R"({"question": "b?", "max_tokens": 9})"
                                          "\n");
  const auto d = load("qa:" + p);
  EXPECT_EQ(d.abbr, "tb_qa");
  ASSERT_EQ(d.items.size(), 2u);
  EXPECT_EQ(d.items[0].prompt, "a?");
  EXPECT_EQ(d.items[0].max_tokens, -1);
  EXPECT_EQ(d.items[1].max_tokens, 9);
  EXPECT_EQ(cycle(d, 3).prompt, "b?");
}

TEST(Dataset, MalformedLineNamesFileAndLine) {
  const auto p = write_tmp("tb_bad.jsonl", R"({"question": "ok"})"
                                           "\n"
                                           R"({"answer": "no question"})"
                                           "\n");
  EXPECT_NE(error_of("qa:" + p).find(p + ":2: expected a JSON object with a \"question\" string"),
            std::string::npos);
  const auto q = write_tmp("tb_bad2.jsonl", "{\"question\": \"ok\"}\n{broken\n");
  EXPECT_NE(error_of("gsm8k:" + q).find(q + ":2: not valid JSON"), std::string::npos);
  const auto m = write_tmp("tb_bad3.jsonl", R"({"question": "ok", "max_tokens": -3})"
                                            "\n");
  EXPECT_NE(error_of("qa:" + m).find(":1: \"max_tokens\" must be a positive integer"),
            std::string::npos);
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

TEST(Dataset, LinesAreOnePromptEach) {
  std::istringstream in(
      "What is 2+2?\r\n\n  \n{\"not\": \"json, a prompt\"}\nlast line without newline");
  const auto d = parse_lines("lines", "prompts.txt", in);
  ASSERT_EQ(d.items.size(), 3u);
  EXPECT_EQ(d.items[0].prompt, "What is 2+2?");  // the \r of a CRLF file goes
  EXPECT_EQ(d.items[1].prompt, "{\"not\": \"json, a prompt\"}");
  EXPECT_EQ(d.items[2].prompt, "last line without newline");
  EXPECT_EQ(d.items[0].max_tokens, -1);
}

TEST(Dataset, ChatMessagesAndModelPerLine) {
  std::istringstream in(
      R"({"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":[{"type":"text","text":"Hi"}]}],"model":"sql-lora","max_tokens":9})"
      "\n"
      R"({"question":"plain"})");
  const auto d = parse_lines("qa", "chat.jsonl", in);
  ASSERT_EQ(d.items.size(), 2u);
  ASSERT_TRUE(d.items[0].conversation());
  EXPECT_EQ(
      d.items[0].conversation()->messages_json,
      R"([{"role":"system","content":"Be brief."},{"role":"user","content":[{"type":"text","text":"Hi"}]}])");
  EXPECT_EQ(d.items[0].prompt, "Be brief.\nHi\n");  // the text a local tokenizer counts
  EXPECT_EQ(d.items[0].model, "sql-lora");
  EXPECT_EQ(d.items[0].max_tokens, 9);
  EXPECT_FALSE(d.items[1].conversation());  // the prompt alone
  EXPECT_TRUE(d.items[1].model.empty());
  auto error = [](const std::string& line) {
    std::istringstream bad(line);
    try {
      (void)parse_lines("qa", "chat.jsonl", bad);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error(R"({"messages":[]})").find("chat.jsonl:1: \"messages\" is empty"),
            std::string::npos);
  EXPECT_NE(error(R"({"messages":[{"content":"x"}]})").find("messages[0] needs a string \"role\""),
            std::string::npos);
  EXPECT_NE(error(R"({"messages":[{"role":"user"}]})").find("messages[0] has no \"content\""),
            std::string::npos);
  EXPECT_NE(error(R"({"messages":[{"role":"user","content":5}]})")
                .find("string or an array of content parts"),
            std::string::npos);
  EXPECT_NE(error(R"({"question":"q","model":""})").find("\"model\" must be a non-empty string"),
            std::string::npos);
  EXPECT_NE(error(R"({"prompt":"q"})")
                .find("\"question\" string (or a chat \"messages\" array, or a \"query\" with "
                      "\"documents\")"),
            std::string::npos);
}

// The rerank form of a qa line: a "query" with "documents" (strings, or Jina's {"text"} objects);
// errors name the line and the fix.
TEST(Dataset, QaQueryWithDocumentsIsARanking) {
  std::istringstream in(
      R"({"query":"best fruit?","documents":["apples",{"text":"pears"}],"model":"rr"})"
      "\n"
      R"({"question":"plain"})");
  const auto d = parse_lines("qa", "rank.jsonl", in);
  ASSERT_EQ(d.items.size(), 2u);
  ASSERT_TRUE(d.items[0].ranking());
  EXPECT_EQ(d.items[0].prompt, "best fruit?");
  EXPECT_EQ(d.items[0].ranking()->documents, (std::vector<std::string>{"apples", "pears"}));
  EXPECT_EQ(d.items[0].model, "rr");
  EXPECT_FALSE(d.items[1].ranking());
  auto error = [](const std::string& line) {
    std::istringstream bad(line);
    try {
      (void)parse_lines("qa", "rank.jsonl", bad);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  for (const char* line :
       {R"({"query":"q"})", R"({"query":"q","documents":[]})", R"({"query":"q","documents":"a"})"})
    EXPECT_NE(error(line).find("rank.jsonl:1: a \"query\" needs \"documents\", a list of 1 to"),
              std::string::npos)
        << line;
  EXPECT_NE(error(R"({"query":"q","documents":["a",3]})")
                .find("documents[1] must be a string (or an object with a \"text\" string)"),
            std::string::npos);
  EXPECT_NE(error(R"({"question":"q","documents":["a"]})")
                .find("\"documents\" go with a \"query\" string"),
            std::string::npos);
  EXPECT_NE(error(R"({"query":"q","documents":["a"],"images":["x.png"]})")
                .find("a ranking takes no \"images\""),
            std::string::npos);
}

// A prompt-only dataset serving an API that ranks: each prompt ranks the prompts after it.
TEST(Dataset, PromptsRankTheOnesAfterThem) {
  Dataset d = load("builtin");
  const size_t n = d.items.size();
  ASSERT_GE(n, 3u);
  d.items[0].expected_input_tokens = 7;
  rank_each_against_the_next(d, 2);
  ASSERT_TRUE(d.items[0].ranking());
  EXPECT_EQ(
      d.items[0].ranking()->documents,
      (std::vector<std::string>{load("builtin").items[1].prompt, load("builtin").items[2].prompt}));
  EXPECT_EQ(d.items[0].expected_input_tokens, -1);  // the server counts every pair
  ASSERT_TRUE(d.items[n - 1].ranking());
  EXPECT_EQ(d.items[n - 1].ranking()->documents.front(), d.items[0].prompt);  // cyclically
}

// A codec that counts whitespace-separated words: ShareGPT's rules without a model's tokenizer.
class WordCodec : public TokenCodec {
 public:
  std::vector<int32_t> encode(const std::string& text) override {
    std::istringstream in(text);
    std::vector<int32_t> ids;
    for (std::string w; in >> w;) ids.push_back(1);
    return ids;
  }
  std::string decode(const std::vector<int32_t>&) override { return {}; }
  std::vector<int32_t> pool() override { return {1}; }
  std::string name() const override { return "words"; }
};

std::string words(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += "w ";
  return s;
}

TEST(ShareGpt, VllmRulesFirstTwoTurnsAndLengthFilters) {
  const fs::path p = testing::test_dir() / "sharegpt.json";
  {
    std::ofstream out(p);
    auto entry = [&](int prompt, int answer) {
      return "{\"id\":\"x\",\"conversations\":[{\"from\":\"human\",\"value\":\"" + words(prompt) +
             "\"},{\"from\":\"gpt\",\"value\":\"" + words(answer) +
             "\"},{\"from\":\"human\",\"value\":\"later\"}]}";
    };
    out << "[" << entry(10, 20) << "," << entry(3, 20)  // prompt under 4 tokens
        << "," << entry(10, 3)                          // answer under 4 tokens
        << "," << entry(1025, 10)                       // prompt over 1024
        << "," << entry(1000, 1049)                     // total over 2048
        << ",{\"id\":\"one turn\",\"conversations\":[{\"from\":\"human\",\"value\":\"alone\"}]}"
        << ",{\"id\":\"no conversations\"}," << entry(50, 60) << "]";
  }
  WordCodec codec;
  ShareGptOptions o;
  o.count = 10;
  o.seed = 7;
  auto d = sharegpt(p.string(), o, codec);
  ASSERT_EQ(d.items.size(), 2u);  // (10, 20) and (50, 60), in the seed's order
  std::set<int64_t> caps;
  for (const auto& item : d.items) caps.insert(item.max_tokens);
  EXPECT_EQ(caps, (std::set<int64_t>{20, 60}));  // max_tokens = the answer's length
  EXPECT_NE(
      d.summary.find(
          "2 requests from 8 entries (6 with two turns; of 6 tried, 2 too short and 2 too long"),
      std::string::npos)
      << d.summary;
  EXPECT_EQ(sharegpt(p.string(), o, codec).items[0].prompt,
            d.items[0].prompt);  // the seed decides the order
  // --sharegpt-output-len: every cap fixed, the short-answer filter off (vLLM's
  // skip_min_output_len_check).
  o.output_len = 5;
  d = sharegpt(p.string(), o, codec);
  EXPECT_EQ(d.items.size(), 4u);  // (10, 3) now qualifies; (1000, 1049) too: 1005 <= 2048
  for (const auto& item : d.items) EXPECT_EQ(item.max_tokens, 5);
  // Count: stops once enough passed.
  o.output_len = 0;
  o.count = 1;
  EXPECT_EQ(sharegpt(p.string(), o, codec).items.size(), 1u);
  // Nothing usable, or not ShareGPT at all: errors naming the file.
  {
    std::ofstream out(p);
    out << R"({"conversations": []})";
  }
  try {
    (void)sharegpt(p.string(), o, codec);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("expected a JSON array"), std::string::npos) << e.what();
  }
  {
    std::ofstream out(p);
    out << "["
        << "{\"conversations\":[{\"value\":\"a\"},{\"value\":\"b\"}]}"
        << "]";
  }
  try {
    (void)sharegpt(p.string(), o, codec);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "no usable conversation (1 entries, 1 with two turns; 1 too short"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)sharegpt("/nonexistent/sharegpt.json", o, codec), std::runtime_error);
  fs::remove(p);
}

// --multi-turn: whole conversations in file order, each exchange a turn with its answer's length;
// an empty question ends a conversation; max_turns caps them; count stops the reading.
TEST(ShareGpt, MultiTurnKeepsWholeConversations) {
  const std::string text =
      R"([{"conversations":[{"from":"human","value":"a b"},{"from":"gpt","value":"c d e"},{"from":"human","value":"f"},)"
      R"({"from":"gpt","value":"g h"},{"from":"human","value":"i"}]},)"
      R"({"conversations":[{"from":"human","value":"alone"}]},)"
      R"({"conversations":[{"from":"human","value":""},{"from":"gpt","value":"x"}]},)"
      R"({"conversations":[{"from":"human","value":"j"},{"from":"gpt","value":"k"},{"from":"human","value":""},{"from":"gpt","value":"l"}]}])";
  const simdjson::padded_string json(text);
  WordCodec codec;
  ShareGptOptions o;
  o.multi_turn = true;
  o.count = 10;
  auto d = sharegpt_from_json(json, "chats.json", o, codec);
  ASSERT_EQ(d.conversations.size(), 2u);
  EXPECT_EQ(d.conversations[0],
            std::make_pair(int64_t{0}, int64_t{2}));  // the dangling "i" has no answer
  EXPECT_EQ(d.conversations[1],
            std::make_pair(int64_t{2}, int64_t{1}));  // stops at the empty question
  ASSERT_EQ(d.items.size(), 3u);
  EXPECT_EQ(d.items[0].prompt, "a b");
  EXPECT_EQ(d.items[0].max_tokens, 3);
  EXPECT_EQ(d.items[1].prompt, "f");
  EXPECT_EQ(d.items[1].max_tokens, 2);
  o.max_turns = 1;
  d = sharegpt_from_json(json, "chats.json", o, codec);
  EXPECT_EQ(d.conversations[0].second, 1);
  o.max_turns = 0;
  o.count = 1;
  EXPECT_EQ(sharegpt_from_json(json, "chats.json", o, codec).conversations.size(), 1u);
}

TEST(Dataset, MissingFileAndBadSpec) {
  EXPECT_NE(error_of("qa:/nonexistent/x.jsonl").find("cannot open dataset '/nonexistent/x.jsonl'"),
            std::string::npos);
  EXPECT_NE(error_of("sharegpt:x").find("usage: --dataset sharegpt:x: built by the runner"),
            std::string::npos);
  EXPECT_NE(error_of("qa:").find("usage: --dataset"), std::string::npos);
  EXPECT_NE(error_of("qa:" + write_tmp("tb_empty.jsonl", "\n")).find("has no requests"),
            std::string::npos);
}

TEST(Dataset, Builtin) {
  const auto d = load("builtin");
  EXPECT_GE(d.items.size(), 8u);
  EXPECT_EQ(d.abbr, "builtin");
}

TEST(Dataset, Gsm8kFileEveryLineWithItsReference) {
  const fs::path p = testing::write_gsm8k_fixture(testing::test_dir() / "test.jsonl");
  const auto d = load("gsm8k:" + p.string());
  ASSERT_EQ(d.items.size(), static_cast<size_t>(testing::kGsm8kLines));
  EXPECT_EQ(d.abbr, "gsm8k");
  EXPECT_NE(d.items[0].prompt.find("Problem 0: Janet"), std::string::npos);
  for (size_t i = 0; i < d.items.size(); ++i) {
    ASSERT_EQ(d.items[i].key.kind, core::AnswerKey::Kind::Gsm8k) << i;
    EXPECT_EQ(d.items[i].key.reference, " " + testing::gsm8k_fixture_reference(static_cast<int>(i)))
        << i;
  }
}

// The real split's text: the shipped sample, or all of it where $TOKBENCH_GSM8K names it.
TEST(Dataset, RealGsm8kTestSplit) {
  const testing::Gsm8kSplit split = testing::gsm8k_split();
  const auto d = load("gsm8k:" + split.path.string());
  EXPECT_EQ(d.items.size(), static_cast<size_t>(split.lines));
  EXPECT_EQ(d.abbr, "gsm8k");
  EXPECT_NE(d.items[0].prompt.find("Janet"), std::string::npos);
  // Every line's reference: the text after its "####" (--check-answers).
  EXPECT_EQ(std::count_if(
                d.items.begin(), d.items.end(),
                [](const RequestSpec& s) { return s.key.kind == core::AnswerKey::Kind::Gsm8k; }),
            split.lines);
  EXPECT_EQ(d.items[0].key.reference, " 18");
}

// qa lines state their reference: a choice (by letter, index or text) or an exact answer; a bad
// one names the line and the fix.
TEST(Dataset, QaLinesCarryTheirReferenceAnswer) {
  std::istringstream in(R"({"question":"2+2?","choices":["3","4","5"],"answer":"B"}
{"question":"Capital?","choices":["Rome","Paris"],"answer":1}
{"question":"Pick","choices":["x","y","z"],"answer":"z"}
{"question":"Say hi","answer":"hi"}
{"question":"Count","answer":42}
{"question":"No reference"}
)");
  const auto d = parse_lines("qa", "mc.jsonl", in);
  ASSERT_EQ(d.items.size(), 6u);
  using K = core::AnswerKey::Kind;
  EXPECT_EQ(d.items[0].key.kind, K::Choice);
  EXPECT_EQ(d.items[0].key.reference, "B");
  EXPECT_EQ(d.items[0].key.choices, 3);
  EXPECT_EQ(d.items[1].key.reference, "B");  // index 1
  EXPECT_EQ(d.items[2].key.reference, "C");  // by its text
  EXPECT_EQ(d.items[3].key.kind, K::Exact);
  EXPECT_EQ(d.items[3].key.reference, "hi");
  EXPECT_EQ(d.items[4].key.reference, "42");
  EXPECT_EQ(d.items[5].key.kind, K::None);
  auto error_of = [](const std::string& line) {
    std::istringstream bad(line);
    try {
      (void)parse_lines("qa", "bad.jsonl", bad);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error_of(R"({"question":"q","choices":["a","b"],"answer":"D"})")
                .find("bad.jsonl:1: \"answer\" names no choice of the 2"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"question":"q","choices":["a","b"]})").find("without an \"answer\""),
            std::string::npos);
  EXPECT_NE(error_of(R"({"question":"q","choices":[1,2],"answer":0})").find("must list strings"),
            std::string::npos);
}

}  // namespace
}  // namespace tokbench::dataset

// ---- synthetic prompts of an exact token length ------------------------------------------------

namespace tokbench::dataset {
namespace {

class SyntheticDataset : public ::testing::TestWithParam<std::string> {};

TEST_P(SyntheticDataset, EveryPromptHasExactlyTheAskedLength) {
  const fs::path dir =
      fs::path(TOKBENCH_TOKENIZER_FIXTURES) / ("tokenizer-" + GetParam()) / "models";
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
      ASSERT_EQ(static_cast<int64_t>(ids.size()), n)
          << GetParam() << ": " << item.prompt.substr(0, 80);
      EXPECT_EQ(item.expected_input_tokens, n);
      EXPECT_EQ(item.max_tokens, 7);
      for (int32_t id : ids)
        ASSERT_FALSE(tok.is_special(id)) << "special token in a synthetic prompt";
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
  // An output range draws max_tokens in [M(1-R), M(1+R)] from its own stream: the prompts stay.
  o.output_len = 100;
  o.output_len_range = 0.5;
  const auto ranged = synthetic(o, *codec);
  std::set<int64_t> caps;
  for (size_t i = 0; i < ranged.items.size(); ++i) {
    EXPECT_EQ(ranged.items[i].prompt, d.items[i].prompt);
    EXPECT_GE(ranged.items[i].max_tokens, 50);
    EXPECT_LE(ranged.items[i].max_tokens, 150);
    caps.insert(ranged.items[i].max_tokens);
  }
  EXPECT_GT(caps.size(), 3u);
}

INSTANTIATE_TEST_SUITE_P(Families, SyntheticDataset,
                         ::testing::Values("deepseek_v3", "qwen3", "llama3", "llama2", "gemma3"),
                         [](const auto& info) { return info.param; });

// Mooncake traces: requests sharing leading hash_ids share exactly those prompt tokens; every
// prompt has its input_length as the tokenizer counts it (less what the server adds); the schedule
// is the timestamps, scaled by the speed; the implied cache share is computed from the hash ids.
TEST(Trace, SharedHashIdsAreSharedTokensAtExactLengths) {
  const fs::path dir = fs::path(TOKBENCH_TOKENIZER_FIXTURES) / "tokenizer-qwen3" / "models";
  ASSERT_TRUE(fs::exists(dir));
  const auto tok = tokenizer::Tokenizer::load(dir.string());
  auto codec = local_codec(tok);
  const fs::path p = testing::test_dir() / "trace.jsonl";
  {
    std::ofstream out(p);
    out << R"({"timestamp": 1000, "input_length": 40, "output_length": 5, "hash_ids": [1, 2, 3]})"
           "\n"
        << R"({"timestamp": 1500, "input_length": 36, "output_length": 7, "hash_ids": [1, 2, 9]})"
           "\n"
        << "\n"
        << R"({"timestamp": 1200.5, "input_length": 20, "output_length": 3, "hash_ids": [1, 4]})"
           "\n";
  }
  TraceOptions o;
  o.block_size = 16;
  o.speed = 2;
  o.overhead = 2;
  const auto d = trace(p.string(), o, *codec);
  ASSERT_EQ(d.items.size(), 3u);  // in time order: 1000, 1200.5, 1500
  EXPECT_EQ(d.schedule_ns,
            (std::vector<int64_t>{0, 100'250'000, 250'000'000}));  // (t - 1000) ms / 2
  const auto a = tok.encode(d.items[0].prompt, false), b = tok.encode(d.items[1].prompt, false),
             c = tok.encode(d.items[2].prompt, false);
  EXPECT_EQ(a.size(), 38u);  // 40 - the 2 the server adds
  EXPECT_EQ(b.size(), 18u);
  EXPECT_EQ(c.size(), 34u);
  EXPECT_TRUE(std::equal(a.begin(), a.begin() + 32, c.begin()));  // blocks 1, 2: the same 32 tokens
  EXPECT_TRUE(std::equal(a.begin(), a.begin() + 16, b.begin()));  // block 1 only
  EXPECT_NE(a[16], b[16]);
  EXPECT_EQ(d.items[0].max_tokens, 5);
  EXPECT_EQ(d.items[1].max_tokens, 3);
  EXPECT_EQ(d.items[0].expected_input_tokens, 40);
  // Full blocks of leading ids seen before: 0, then [1] (16 of 20), then [1, 2] (32 of 36): 48
  // / 96.
  EXPECT_DOUBLE_EQ(d.implied_cache_hit, 48.0 / 96.0);
  EXPECT_EQ(trace(p.string(), o, *codec).items[2].prompt, d.items[2].prompt);  // deterministic
  o.count = 2;
  EXPECT_EQ(trace(p.string(), o, *codec).items.size(), 2u);
  auto error = [&](const std::string& line) {
    std::ofstream(p) << line << "\n";
    try {
      (void)trace(p.string(), TraceOptions{}, *codec);
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error(R"({"timestamp": 0, "output_length": 5})")
                .find(":1: \"input_length\" must be an integer"),
            std::string::npos);
  EXPECT_NE(error(R"({"timestamp": -1, "input_length": 4, "output_length": 5})")
                .find("\"timestamp\" must be"),
            std::string::npos);
  EXPECT_NE(
      error(R"({"timestamp": 0, "input_length": 99999999, "output_length": 5})").find("from 1 to"),
      std::string::npos);
  EXPECT_NE(error(R"({"timestamp": 0, "input_length": 4, "output_length": 5, "hash_ids": ["a"]})")
                .find("must hold integers"),
            std::string::npos);
  EXPECT_NE(error("[1]").find("Mooncake's format"), std::string::npos);
  fs::remove(p);
  EXPECT_THROW((void)trace("/nonexistent/trace.jsonl", TraceOptions{}, *codec), std::runtime_error);
}

TEST(Trace, ImpliedHitCountsLeadingFullBlocksOnly) {
  // Block 16. [1,2] then [1,2,3] (3 is partial: 40 tokens = 2.5 blocks) then [5,2] (2 follows 5
  // this time: a chain hash id is not looked up past a miss).
  EXPECT_DOUBLE_EQ(implied_prefix_hit({{1, 2}, {1, 2, 3}, {5, 2}}, {32, 40, 32}, 16), 32.0 / 104.0);
  EXPECT_DOUBLE_EQ(implied_prefix_hit({{1}, {1}}, {10, 10}, 16), 0.0);  // no full block at all
}

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
    EXPECT_NE(std::string(e.what()).find("--input-len 4: the server adds 8 token(s)"),
              std::string::npos)
        << e.what();
  }
  o.overhead = 0;
  o.input_len_range = 1.5;
  EXPECT_THROW(synthetic(o, *codec), std::invalid_argument);
}

}  // namespace
}  // namespace tokbench::dataset
