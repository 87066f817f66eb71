// metrics/answers: the GSM8K and multiple-choice rules on outputs written the ways models write
// them, the Wilson interval against hand-computed values, and the integrity checks.
#include "metrics/answers.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <string>

#include "core/answer_regex.hpp"
#include "support/gsm8k_fixture.hpp"
#include "support/temp_dir.hpp"

namespace tokbench::metrics {
namespace {

TEST(Gsm8k, TheReferenceIsTheNumberAfterHashes) {
  EXPECT_EQ(gsm8k_reference("She makes 9 * 2 = $<<9*2=18>>18 every day.\n#### 18"), "18");
  EXPECT_EQ(gsm8k_reference("... #### 1,234"), "1234");
  EXPECT_EQ(gsm8k_reference("#### -5"), "-5");
  EXPECT_EQ(gsm8k_reference("no marker 42"), std::nullopt);
}

TEST(Gsm8k, TheAnswerIsAfterHashesElseTheLastNumber) {
  EXPECT_EQ(gsm8k_answer("16 - 3 - 4 = 9 eggs, 9 * 2 = 18.\n#### 18"), "18");
  EXPECT_EQ(gsm8k_answer("#### 18 dollars, since 9 * 2 = 18"), "18");  // the first after its ####
  EXPECT_EQ(gsm8k_answer("So she makes $18.00 every day."), "18");
  EXPECT_EQ(gsm8k_answer("The total is 1,234 apples."), "1234");
  EXPECT_EQ(gsm8k_answer("It drops by -3.50 degrees."), "-3.5");
  EXPECT_EQ(gsm8k_answer("First 3, then 4, so the answer is 7."), "7");
  EXPECT_EQ(gsm8k_answer("I cannot tell."), std::nullopt);
  EXPECT_EQ(gsm8k_answer(""), std::nullopt);
  EXPECT_EQ(normalise_number("0018"), "18");
  EXPECT_EQ(normalise_number("0.50"), "0.5");
  EXPECT_EQ(normalise_number("-0.0"), "0");
  EXPECT_EQ(normalise_number("1.2.3"), std::nullopt);
  EXPECT_EQ(normalise_number("abc"), std::nullopt);
}

// Every reference of a GSM8K-format file reads as the number after its "####" (commas dropped).
TEST(Gsm8k, EveryReferenceOfAGsm8kFileReads) {
  const auto path = testing::write_gsm8k_fixture(testing::test_dir() / "test.jsonl");
  std::ifstream in(path);
  simdjson::dom::parser parser;
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    std::string_view answer = parser.parse(line)["answer"].get_string().value();
    std::string want = testing::gsm8k_fixture_reference(n);
    want.erase(std::remove(want.begin(), want.end(), ','), want.end());
    EXPECT_EQ(gsm8k_reference(answer), want) << answer;
    ++n;
  }
  EXPECT_EQ(n, testing::kGsm8kLines);
}

// Every reference in the real GSM8K test split has a number after its "####" (the shipped sample,
// or the whole split where $TOKBENCH_GSM8K names it).
TEST(Gsm8k, EveryReferenceOfTheTestSplitReads) {
  const testing::Gsm8kSplit split = testing::gsm8k_split();
  std::ifstream in(split.path);
  ASSERT_TRUE(in) << split.path;
  simdjson::dom::parser parser;
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    std::string_view answer = parser.parse(line)["answer"].get_string().value();
    ASSERT_TRUE(gsm8k_reference(answer)) << answer;
    ++n;
  }
  EXPECT_EQ(n, split.lines);
}

TEST(MultipleChoice, TheLetterByTheStatedRule) {
  EXPECT_EQ(choice_letter("The answer is (C).", 4), 'C');
  EXPECT_EQ(choice_letter("Answer: **b**", 4), 'B');
  EXPECT_EQ(choice_letter("B", 4), 'B');
  EXPECT_EQ(choice_letter("(D)", 4), 'D');
  EXPECT_EQ(choice_letter("A is wrong because ..., so I pick D here", 4),
            'D');                                                   // the last standalone choice
  EXPECT_EQ(choice_letter("E", 4), std::nullopt);                   // not a choice
  EXPECT_EQ(choice_letter("Apples and Bananas", 4), std::nullopt);  // letters inside words
  EXPECT_EQ(choice_letter("The answer is A, not B", 4), 'A');       // the cue wins
}

TEST(Score, EachKindByItsRuleAndNoReferenceIsUnscored) {
  using K = core::AnswerKey::Kind;
  const core::AnswerKey gsm{K::Gsm8k, " 18", 0};
  EXPECT_TRUE(score_answer(gsm, "so $18.00 a day")->right);
  EXPECT_FALSE(score_answer(gsm, "#### 19")->right);
  const auto none_read = score_answer(gsm, "no idea");
  EXPECT_FALSE(none_read->extracted);  // unscored: the rule read nothing
  const core::AnswerKey mc{K::Choice, "B", 4};
  EXPECT_TRUE(score_answer(mc, "The answer is (B).")->right);
  EXPECT_EQ(score_answer(mc, "A")->extracted, "A");
  EXPECT_FALSE(score_answer(mc, "A")->right);
  const core::AnswerKey exact{K::Exact, "Paris", 0};
  EXPECT_TRUE(score_answer(exact, "  Paris\n")->right);
  EXPECT_FALSE(score_answer(exact, "Paris, France")->right);
  EXPECT_FALSE(score_answer(core::AnswerKey{}, "anything"));
}

// A backtracking answer_regex is bounded: exponential ("(a+)+$") stops at the match limit, and one
// whose every start position stays under it (quadratic, "a*a*b\d": 9 minutes on 20,000 characters
// unbounded) at the time budget; both are unscored, never "wrong", and a plain one still matches.
TEST(Score, ARegexPastItsBoundsIsUnscoredNotWrong) {
  using K = core::AnswerKey::Kind;
  const std::string long_run = std::string(200'000, 'a') + "b";
  const auto exponential = score_answer({K::Regex, "(a+)+$", 0}, long_run);
  EXPECT_TRUE(exponential->regex_limit);
  EXPECT_FALSE(exponential->extracted);
  EXPECT_FALSE(exponential->right);
  const auto t0 = std::chrono::steady_clock::now();
  const auto quadratic = core::regex_search("a*a*b\\d", std::string(20'000, 'a') + "b", 100);
  EXPECT_EQ(quadratic.status, core::RegexFound::Status::Limit);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10.0);
  const auto found = score_answer({K::Regex, "\\b(\\d+) apples", 0}, "I have 12 apples");
  EXPECT_TRUE(found->right);
  EXPECT_EQ(found->extracted, "12 apples");
  EXPECT_FALSE(found->regex_limit);
  EXPECT_EQ(score_answer({K::Regex, "pears", 0}, long_run)->extracted, "");  // no match: wrong
  // Leading verbs and comments are searched as written.
  EXPECT_TRUE(score_answer({K::Regex, "(*UTF)caf\u00e9", 0}, "un caf\u00e9")->right);
  EXPECT_TRUE(score_answer({K::Regex, "(?x) \\d+ # a comment", 0}, "it is 42")->right);
  EXPECT_FALSE(score_answer({K::Regex, "a)(b", 0}, "a)(b")->right);  // invalid: never matches
}

TEST(Wilson, MatchesHandComputedIntervals) {
  // 8 of 10 at 95%: centre (0.8 + 1.92/10) / 1.384, half 1.96/1.384 * sqrt(0.016 + 0.00960) =
  // 0.4902.
  const auto w = wilson_interval(8, 10);
  EXPECT_DOUBLE_EQ(w.p, 0.8);
  EXPECT_NEAR(w.low, 0.4902, 1e-4);
  EXPECT_NEAR(w.high, 0.9433, 1e-4);
  const auto all = wilson_interval(50, 50);
  EXPECT_DOUBLE_EQ(all.high, 1.0);
  EXPECT_NEAR(all.low, 0.9287, 1e-4);
  const auto none = wilson_interval(0, 0);
  EXPECT_EQ(none.p, 0);
}

TEST(Integrity, Utf8AndRunawayRepetition) {
  EXPECT_TRUE(valid_utf8("plain, 中文, emoji \xF0\x9F\x98\x80"));
  EXPECT_FALSE(valid_utf8("cut \xE4\xB8"));  // a sequence cut short
  EXPECT_FALSE(valid_utf8("overlong \xC0\xAF"));
  EXPECT_FALSE(valid_utf8("surrogate \xED\xA0\x80"));
  std::string loop = "Let me think.";
  for (int i = 0; i < 4; ++i) loop += " I will check the sum again.";  // 6 words x 4 = 24
  EXPECT_TRUE(runaway_repetition(loop));
  std::string same = "so";
  for (int i = 0; i < 15; ++i) same += " the";
  EXPECT_FALSE(runaway_repetition(same));  // 15 words of "the": under 16
  EXPECT_TRUE(runaway_repetition(same + " the"));
  EXPECT_FALSE(runaway_repetition("1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20"));
  EXPECT_FALSE(runaway_repetition("a b a b a b"));  // a loop, but 6 words
}

}  // namespace
}  // namespace tokbench::metrics
