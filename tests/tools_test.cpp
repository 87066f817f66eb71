// core/tools and mockapi/mock_tools: tool definitions read in the three shapes and refused with a
// fix; the schema subset (each keyword passing and failing, unknown keywords never valid); BFCL's
// value equality; a request's calls judged by their worst; the simulator's arguments valid
// against their schema, its pieces rejoining byte for byte, and its drawn worth exact.
#include "core/tools.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "mockapi/mock_tools.hpp"
#include "support/temp_dir.hpp"

namespace tokbench {
namespace {

using core::ToolCheck;

constexpr const char* kWeather =
    R"({"type":"object","properties":{"city":{"type":"string","minLength":2},)"
    R"("unit":{"type":"string","enum":["c","f"]},"days":{"type":"integer","minimum":1,)"
    R"("maximum":7},"tags":{"type":"array","items":{"type":"string"},"maxItems":2}},)"
    R"("required":["city"],"additionalProperties":false})";

TEST(Tools, ReadsTheThreeShapesAndRefusesWithAFix) {
  const core::ToolSet set = core::parse_tools(
      R"([{"type":"function","function":{"name":"a","description":"d","parameters":{"type":"object"}}},)"
      R"({"type":"function","name":"b","parameters":{"type":"object"}},)"
      R"({"name":"c","input_schema":{"type":"object","required":["x"]}}])",
      "t");
  ASSERT_EQ(set.tools.size(), 3u);
  EXPECT_EQ(set.tools[0].description, "d");
  EXPECT_EQ(set.tools[1].parameters, R"({"type":"object"})");
  EXPECT_EQ(set.tools[2].parameters, R"({"type":"object","required":["x"]})");
  EXPECT_EQ(set.find("c"), &set.tools[2]);
  EXPECT_EQ(set.find("z"), nullptr);
  for (const char* bad : {"{", "[]", "{}", R"([{"type":"function"}])",
                          R"([{"name":"a"},{"name":"a"}])", R"([{"name":"a","parameters":3}])"}) {
    try {
      core::parse_tools(bad, "--tools f.json");
      ADD_FAILURE() << bad;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("--tools f.json"), std::string::npos) << e.what();
    }
  }
}

TEST(Tools, TheSchemaSubsetPassesAndFailsEachKeyword) {
  std::string why;
  EXPECT_EQ(core::check_schema(R"({"city":"Paris"})", kWeather), ToolCheck::Valid);
  EXPECT_EQ(core::check_schema(R"({"city":"Paris","unit":"c","days":7,"tags":["a"]})", kWeather),
            ToolCheck::Valid);
  EXPECT_EQ(core::check_schema(R"({"city":"Paris","days":2.0})", kWeather), ToolCheck::Valid);
  const char* invalid[] = {
      R"({})",                                     // required
      R"({"city":"P"})",                           // minLength
      R"({"city":3})",                             // type
      R"({"city":"Paris","unit":"k"})",            // enum
      R"({"city":"Paris","days":0})",              // minimum
      R"({"city":"Paris","days":8})",              // maximum
      R"({"city":"Paris","days":1.5})",            // integer
      R"({"city":"Paris","tags":[1]})",            // items
      R"({"city":"Paris","tags":["a","b","c"]})",  // maxItems
      R"({"city":"Paris","extra":1})",             // additionalProperties
  };
  for (const char* v : invalid) {
    EXPECT_EQ(core::check_schema(v, kWeather, &why), ToolCheck::Invalid) << v;
    EXPECT_FALSE(why.empty()) << v;
  }
  EXPECT_EQ(core::check_schema(R"({"city":)", kWeather), ToolCheck::BadJson);
  EXPECT_EQ(core::check_schema(R"([1])", kWeather), ToolCheck::BadJson);  // not an object
  // Branches: anyOf needs one, oneOf exactly one; const and exclusive bounds.
  const char* branches =
      R"({"type":"object","properties":{"v":{"anyOf":[{"type":"string"},{"type":"integer"}]},)"
      R"("o":{"oneOf":[{"type":"number"},{"type":"integer"}]},"k":{"const":"x"},)"
      R"("e":{"type":"number","exclusiveMinimum":0}}})";
  EXPECT_EQ(core::check_schema(R"({"v":"s","o":1.5,"k":"x","e":0.1})", branches), ToolCheck::Valid);
  EXPECT_EQ(core::check_schema(R"({"v":true})", branches), ToolCheck::Invalid);
  EXPECT_EQ(core::check_schema(R"({"o":2})", branches), ToolCheck::Invalid);  // both branches
  EXPECT_EQ(core::check_schema(R"({"k":"y"})", branches), ToolCheck::Invalid);
  EXPECT_EQ(core::check_schema(R"({"e":0})", branches), ToolCheck::Invalid);
  // A keyword tokbench does not check: never valid; a known failure beside it still fails.
  const char* pattern = R"({"type":"object","properties":{"s":{"type":"string","pattern":"^a"}}})";
  EXPECT_EQ(core::check_schema(R"({"s":"b"})", pattern, &why), ToolCheck::Unchecked);
  EXPECT_NE(why.find("pattern"), std::string::npos) << why;
  EXPECT_EQ(core::check_schema(R"({"s":1})", pattern), ToolCheck::Invalid);
  // Annotations constrain nothing; no schema takes any object.
  EXPECT_EQ(core::check_schema(R"({"s":"b"})",
                               R"({"type":"object","description":"d","title":"t","$schema":"x"})"),
            ToolCheck::Valid);
  EXPECT_EQ(core::check_schema(R"({"s":"b"})", ""), ToolCheck::Valid);
}

TEST(Tools, CallsAreJudgedByTheirWorstAndMatchedAsValues) {
  const core::ToolSet set = core::parse_tools(
      std::string(R"([{"name":"w","parameters":)") + kWeather + R"(},{"name":"n"}])", "t");
  std::string why;
  EXPECT_EQ(core::check_calls({{"w", R"({"city":"Rome"})"}, {"n", "{}"}}, set), ToolCheck::Valid);
  EXPECT_EQ(core::check_calls({{"w", R"({"city":"Rome"})"}, {"x", "{}"}}, set, &why),
            ToolCheck::UnknownTool);
  EXPECT_NE(why.find("\"x\""), std::string::npos) << why;
  EXPECT_EQ(core::check_calls({{"x", "{}"}, {"w", "{"}}, set), ToolCheck::BadJson);
  EXPECT_EQ(core::check_calls({{"w", "{}"}, {"n", "{}"}}, set), ToolCheck::Invalid);
  EXPECT_EQ(core::check_calls({}, set), ToolCheck::None);

  EXPECT_TRUE(core::json_equal(R"({"a":2,"b":[1,"x"]})", R"({ "b":[1, "x"], "a":2.0 })"));
  EXPECT_FALSE(core::json_equal(R"({"a":2})", R"({"a":"2"})"));
  EXPECT_FALSE(core::json_equal(R"({"a":2})", R"({"a":2,"b":null})"));
  EXPECT_FALSE(core::json_equal(R"({"a":2})", R"({"a":)"));
  const core::ToolCall ref{"w", R"({"city":"Rome"})"};
  EXPECT_TRUE(core::calls_match({{"w", R"({ "city": "Rome" })"}}, ref));
  EXPECT_FALSE(core::calls_match({{"n", R"({"city":"Rome"})"}}, ref));
  EXPECT_FALSE(core::calls_match({{"w", R"({"city":"Roma"})"}}, ref));
  EXPECT_FALSE(core::calls_match({ref, ref}, ref));  // exactly one call
  EXPECT_FALSE(core::calls_match({}, ref));
}

TEST(MockTools, ArgumentsSatisfyTheirSchemaAndPiecesRejoin) {
  for (uint64_t seed = 0; seed < 20; ++seed) {
    const std::string args = mock::arguments_for(kWeather, seed);
    EXPECT_EQ(core::check_schema(args, kWeather), ToolCheck::Valid) << args;
    std::string joined;
    for (const auto& p : mock::argument_pieces(args)) {
      EXPECT_LE(p.size(), 4u);
      joined += p;
    }
    EXPECT_EQ(joined, args);
  }
  EXPECT_EQ(mock::arguments_for("", 1), "{}");
  // Every property when none is required; bounds and lengths kept.
  const char* all = R"({"type":"object","properties":{"n":{"type":"integer","minimum":5},)"
                    R"("s":{"type":"string","minLength":9},"b":{"type":"boolean"}}})";
  const std::string args = mock::arguments_for(all, 3);
  EXPECT_EQ(core::check_schema(args, all), ToolCheck::Valid) << args;
  EXPECT_NE(args.find("\"n\":5"), std::string::npos) << args;
  // A character is never split between pieces.
  for (const auto& p : mock::argument_pieces(R"({"c":"日本語"})"))
    EXPECT_NE(static_cast<unsigned char>(p.front()) & 0xC0, 0x80) << p;
}

// The drawn worth is exact over a file's questions: ceil(invalid·N) invalid, then the wrong
// share, the rest right; the same question always gets the same call.
TEST(MockTools, KnownQuestionsGetTheirReferenceOfADrawnWorth) {
  const auto path = testing::test_dir() / "tool_answers.jsonl";
  {
    std::ofstream out(path);
    for (int q = 0; q < 40; ++q)
      out << R"({"question":"Weather in town )" << q
          << R"(?","tool_call":{"name":"w","arguments":{"city":"Town)" << q << R"("}}})"
          << "\n";
  }
  mock::ToolCaller caller("tools:" + path.string(), 7, 0.25, 0.125);
  EXPECT_EQ(caller.questions(), 40u);
  mock::CompletionRequest cr;
  cr.tools.push_back({"w", "", kWeather});
  int right = 0, wrong = 0, bad = 0, invalid = 0;
  for (int q = 0; q < 40; ++q) {
    cr.rendered = "<|im_start|>user\nWeather in town " + std::to_string(q) +
                  "?<|im_end|>\n<|im_start|>assistant\n";
    const auto call = caller.call(cr, static_cast<uint64_t>(q + 1));
    ASSERT_TRUE(call);
    EXPECT_EQ(call->name, "w");
    const core::ToolCall ref{"w", "{\"city\":\"Town" + std::to_string(q) + "\"}"};
    const ToolCheck c = core::check_schema(call->arguments, kWeather);
    if (core::calls_match({*call}, ref)) {
      ++right;
    } else if (c == ToolCheck::Valid) {
      ++wrong;
      EXPECT_NE(call->arguments.find("(wrong)"), std::string::npos) << call->arguments;
    } else {
      (c == ToolCheck::BadJson ? bad : invalid) += 1;
      EXPECT_TRUE(c == ToolCheck::BadJson || c == ToolCheck::Invalid) << call->arguments;
    }
    EXPECT_EQ(caller.call(cr, 99)->arguments, call->arguments);  // asked again: the same call
  }
  // Asked twice each: the simulator's counts are doubled.
  EXPECT_EQ(right + wrong + bad + invalid, 40);
  EXPECT_EQ(bad + invalid, 10);
  EXPECT_EQ(wrong, 5);
  EXPECT_GT(bad, 0);
  EXPECT_GT(invalid, 0);  // the schema requires "city": half the invalid calls leave it out
  const std::string metrics = caller.render("model_name=\"m\"");
  EXPECT_NE(metrics.find("verdict=\"wrong\"} 10"), std::string::npos) << metrics;
  // tool_choice none never calls; an unknown question under auto answers with text.
  cr.tool_choice_none = true;
  EXPECT_FALSE(caller.call(cr, 1));
  cr.tool_choice_none = false;
  cr.rendered = "something else";
  EXPECT_FALSE(caller.call(cr, 1));
  cr.tool_name = "w";  // "required": a call made from the schema
  const auto made = caller.call(cr, 1);
  ASSERT_TRUE(made);
  EXPECT_EQ(made->name, "w");
  EXPECT_THROW(mock::ToolCaller("tools:/nonexistent/x.jsonl", 1, 0, 0), std::runtime_error);
  std::filesystem::remove(path);
}

// Calls made from a schema: floor(rate·K) of the first K invalid.
TEST(MockTools, SchemaCallsAreInvalidAtTheirRate) {
  mock::ToolCaller caller("", 1, 0.3, 0);
  mock::CompletionRequest cr;
  cr.tools.push_back({"w", "", kWeather});
  cr.tool_name = "w";
  int invalid = 0;
  for (int k = 1; k <= 50; ++k)
    invalid += core::check_schema(caller.call(cr, static_cast<uint64_t>(k))->arguments, kWeather) !=
               ToolCheck::Valid;
  EXPECT_EQ(invalid, 15);
}

}  // namespace
}  // namespace tokbench
