#pragma once
// mockapi/mock_answers: serve-mock --answers gsm8k:PATH — the simulator answers the questions of a
// GSM8K file with a known correctness, so --check-answers meets a known truth. Its answer to a
// question it knows begins " The answer is #### N." (then the usual filler words), N the line's
// reference or, when the question is drawn wrong, a different number (the reference + 1).
//
// Which questions are wrong is a seeded draw that is exact over the whole set: question q (its
// line, 0-based, of N) has the rank (q·a + b) mod N, a permutation (a coprime to N, a and b from
// --seed), and is answered wrong when its rank < p·N, p = --wrong-rate + --wrong-rate-per-running-
// request × the other requests running when it was admitted (clamped to [0, 1]). At a fixed p,
// exactly ⌈p·N⌉ of the N questions are wrong; under load p rises, and with it the wrong share.
// The same question at the same load always gets the same answer (greedy decoding's promise).
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "mockapi/mock_response.hpp"

namespace tokbench::mock {

class AnswerBook {
 public:
  /// Reads "gsm8k:PATH"; throws std::runtime_error naming the line or the fix.
  AnswerBook(const std::string& spec, uint64_t seed, double wrong_rate,
             double wrong_rate_per_running);

  /// The answer's words for the question `rendered` asks (a completion's prompt, or the last user
  /// turn of the chat template's rendering); empty when it asks no question of the file.
  /// `others_running`: requests already decoding when this one was admitted.
  std::vector<std::string> answer(std::string_view rendered, int64_t others_running);

  size_t questions() const { return numbers_.size(); }
  /// tokbench_mock_answers_total{verdict="right"|"wrong"} and the questions it did not know.
  std::string render(const std::string& model_labels) const;

 private:
  std::unordered_map<std::string, size_t> line_of_;  // question text -> its line
  std::vector<std::string> numbers_;                 // each line's reference number
  uint64_t a_ = 1, b_ = 0;
  double wrong_rate_, per_running_;
  std::atomic<uint64_t> right_{0}, wrong_{0}, unknown_{0};
};

/// An answered question ends (EOS, "stop") 8 to 16 words after its answer, as a model's answer
/// does, unless ignore_eos asked for the cap (or min_tokens for more): `plan` otherwise.
Plan answered_plan(Plan plan, const CompletionRequest& cr, size_t answer_words, uint64_t seq);

/// Output word j: the answer's words first, then the simulator's filler (token_text).
inline std::string_view word_at(const std::vector<std::string>& script, int64_t j) {
  return static_cast<size_t>(j) < script.size() ? std::string_view(script[static_cast<size_t>(j)])
                                                : token_text(static_cast<uint64_t>(j));
}

/// The question in a rendered prompt: the last ChatML user turn's text, else the whole prompt.
std::string_view asked_question(std::string_view rendered);

}  // namespace tokbench::mock
