// mockapi/mock_answers: the simulator's answers to a GSM8K file — exactly ceil(p·N) of N questions
// wrong at a fixed wrong rate, more as the batch grows, the same answer to the same question at the
// same load, the question found inside a chat template's rendering, and bad files named.
#include "mockapi/mock_answers.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "metrics/answers.hpp"
#include "support/temp_dir.hpp"

namespace tokbench::mock {
namespace {

namespace fs = std::filesystem;

class AnswerBookTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = testing::test_dir() / "answers.jsonl";
    std::ofstream out(path_);
    for (int q = 0; q < 10; ++q)
      out << "{\"question\": \"What is " << q << " + 1?\", \"answer\": \"" << q
          << " + 1 = " << q + 1 << "\\n#### " << q + 1 << "\"}\n";
  }
  void TearDown() override { fs::remove(path_); }
  // How many of the 10 questions come back wrong, read with the GSM8K rule tokbench scores by.
  int wrong_of(AnswerBook& book, int64_t others) {
    int wrong = 0;
    for (int q = 0; q < 10; ++q) {
      std::string text;
      for (const auto& w : book.answer("What is " + std::to_string(q) + " + 1?", others)) text += w;
      EXPECT_EQ(text.rfind(" The answer is #### ", 0), 0u) << text;
      wrong += metrics::gsm8k_answer(text) != std::to_string(q + 1);
    }
    return wrong;
  }
  fs::path path_;
};

TEST_F(AnswerBookTest, AFixedRateIsExactOverTheWholeSet) {
  AnswerBook book("gsm8k:" + path_.string(), 42, 0.3, 0);
  EXPECT_EQ(book.questions(), 10u);
  EXPECT_EQ(wrong_of(book, 0), 3);
  EXPECT_EQ(wrong_of(book, 50), 3);  // no per-request rate: load does not matter
  AnswerBook quarter("gsm8k:" + path_.string(), 7, 0.25, 0);
  EXPECT_EQ(wrong_of(quarter, 0), 3);  // ceil(2.5)
  const std::string metrics = book.render("model_name=\"m\"");
  EXPECT_NE(metrics.find("tokbench_mock_answers_total{model_name=\"m\",verdict=\"right\"} 14"),
            std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("verdict=\"wrong\"} 6"), std::string::npos) << metrics;
}

TEST_F(AnswerBookTest, TheWrongShareGrowsWithTheBatch) {
  AnswerBook book("gsm8k:" + path_.string(), 42, 0.1, 0.1);
  EXPECT_EQ(wrong_of(book, 0), 1);
  EXPECT_EQ(wrong_of(book, 4), 5);
  EXPECT_EQ(wrong_of(book, 20), 10);  // clamped at every question
  // The same question at the same load gets the same words (greedy decoding's promise).
  EXPECT_EQ(book.answer("What is 3 + 1?", 2), book.answer("What is 3 + 1?", 2));
}

TEST_F(AnswerBookTest, TheQuestionIsFoundInAChatTemplatesRendering) {
  AnswerBook book("gsm8k:" + path_.string(), 42, 0, 0);
  const std::string chat =
      "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nWhat is 4 + 1?<|im_end|>\n"
      "<|im_start|>assistant\n";
  EXPECT_EQ(asked_question(chat), "What is 4 + 1?");
  const auto words = book.answer(chat, 0);
  ASSERT_EQ(words.size(), 6u);
  EXPECT_EQ(words[4], " 5");
  EXPECT_TRUE(book.answer("What is 99 + 1?", 0).empty());  // not a question of the file
  EXPECT_NE(book.render("m=\"x\"").find("verdict=\"unknown_question\"} 1"), std::string::npos);
}

// An answered question ends a few words after its answer (a model's EOS), unless ignore_eos asked
// for the cap; a cap below that still cuts it.
TEST(AnsweredPlan, AnAnswerEndsSoonAfterItUnlessIgnoreEos) {
  CompletionRequest cr;
  const Plan drawn{300, "stop"};
  const Plan p = answered_plan(drawn, cr, 6, 5);
  EXPECT_EQ(p.tokens, 6 + 8 + 5);
  EXPECT_EQ(p.finish_reason, "stop");
  EXPECT_EQ(answered_plan(Plan{10, "length"}, cr, 6, 5).finish_reason,
            "length");                                    // the cap comes first
  EXPECT_EQ(answered_plan(drawn, cr, 0, 5).tokens, 300);  // no answer: as drawn
  cr.ignore_eos = true;
  EXPECT_EQ(answered_plan(drawn, cr, 6, 5).tokens, 300);
  cr.ignore_eos = false;
  cr.min_tokens = 100;
  EXPECT_EQ(answered_plan(drawn, cr, 6, 5).tokens, 100);
}

TEST_F(AnswerBookTest, BadInputIsNamed) {
  auto error = [](const std::string& spec) {
    try {
      AnswerBook("" + spec, 1, 0, 0);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error("qa:" + path_.string()).find("expected gsm8k:PATH"), std::string::npos);
  EXPECT_NE(error("gsm8k:/nonexistent.jsonl").find("cannot read '/nonexistent.jsonl'"),
            std::string::npos);
  std::ofstream(path_) << "{\"question\": \"q\", \"answer\": \"no marker\"}\n";
  EXPECT_NE(error("gsm8k:" + path_.string()).find("line 1: the answer has no number after ####"),
            std::string::npos);
}

}  // namespace
}  // namespace tokbench::mock
