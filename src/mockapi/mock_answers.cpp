#include "mockapi/mock_answers.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <numeric>
#include <stdexcept>

namespace tokbench::mock {

namespace {

uint64_t mix(uint64_t x) {  // splitmix64's finaliser
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

std::string_view trim(std::string_view s) {
  const size_t b = s.find_first_not_of(" \t\r\n");
  return b == std::string_view::npos ? std::string_view()
                                     : s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

// The reference's number as GSM8K writes it after "####" (commas dropped); "" when none.
std::string reference_number(std::string_view answer) {
  const size_t mark = answer.rfind("####");
  if (mark == std::string_view::npos) return {};
  std::string out;
  for (const char c : trim(answer.substr(mark + 4))) {
    if (c == ',') continue;
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '.')) break;
    out.push_back(c);
  }
  return out;
}

// A number other than `n`: n + 1 for an integer, else n with a digit appended.
std::string other_number(const std::string& n) {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), v);
  if (ec == std::errc() && end == n.data() + n.size()) return std::to_string(v + 1);
  return n + "1";
}

}  // namespace

Plan answered_plan(Plan plan, const CompletionRequest& cr, size_t answer_words, uint64_t seq) {
  if (answer_words == 0 || cr.ignore_eos) return plan;
  const int64_t eos =
      std::max<int64_t>(cr.min_tokens, static_cast<int64_t>(answer_words + 8 + seq % 9));
  if (eos < plan.tokens) {
    plan.tokens = eos;
    plan.finish_reason = "stop";
  }
  return plan;
}

std::string_view asked_question(std::string_view rendered) {
  static constexpr std::string_view kUser = "<|im_start|>user\n";
  const size_t at = rendered.rfind(kUser);
  if (at == std::string_view::npos) return trim(rendered);
  std::string_view turn = rendered.substr(at + kUser.size());
  turn = turn.substr(0, turn.find("<|im_end|>"));
  return trim(turn);
}

AnswerBook::AnswerBook(const std::string& spec, uint64_t seed, double wrong_rate,
                       double wrong_rate_per_running)
    : wrong_rate_(wrong_rate), per_running_(wrong_rate_per_running) {
  if (!spec.starts_with("gsm8k:"))
    throw std::runtime_error(
        fmt::format("--answers: bad value '{}' (expected gsm8k:PATH, a GSM8K jsonl file)", spec));
  const std::string path = spec.substr(6);
  std::ifstream in(path);
  if (!in)
    throw std::runtime_error(
        fmt::format("--answers: cannot read '{}' (expected a GSM8K jsonl file)", path));
  simdjson::dom::parser parser;
  std::string line;
  for (size_t n = 1; std::getline(in, line); ++n) {
    if (trim(line).empty()) continue;
    simdjson::dom::element doc;
    std::string_view q, a;
    if (parser.parse(line).get(doc) || doc["question"].get_string().get(q) ||
        doc["answer"].get_string().get(a))
      throw std::runtime_error(fmt::format(
          "--answers {} line {}: expected {{\"question\": ..., \"answer\": \"... #### N\"}}", path,
          n));
    std::string number = reference_number(a);
    if (number.empty())
      throw std::runtime_error(
          fmt::format("--answers {} line {}: the answer has no number after ####", path, n));
    line_of_.emplace(std::string(trim(q)), numbers_.size());
    numbers_.push_back(std::move(number));
  }
  if (numbers_.empty())
    throw std::runtime_error(fmt::format("--answers {}: no question in the file", path));
  const uint64_t n = numbers_.size();
  a_ = mix(seed) % n;
  while (std::gcd(a_, n) != 1) a_ = (a_ + 1) % n;  // 1 is coprime to every n: the search ends
  b_ = mix(seed ^ 0xA5A5) % n;
}

std::vector<std::string> AnswerBook::answer(std::string_view rendered, int64_t others_running) {
  const auto it = line_of_.find(std::string(asked_question(rendered)));
  if (it == line_of_.end()) {
    ++unknown_;
    return {};
  }
  const uint64_t n = numbers_.size();
  const uint64_t rank = (it->second * a_ + b_) % n;
  const double p =
      std::clamp(wrong_rate_ + per_running_ * static_cast<double>(others_running), 0.0, 1.0);
  const bool wrong = static_cast<double>(rank) < p * static_cast<double>(n);
  ++(wrong ? wrong_ : right_);
  const std::string& ref = numbers_[it->second];
  return {" The", " answer", " is", " ####", " " + (wrong ? other_number(ref) : ref), "."};
}

std::string AnswerBook::render(const std::string& model_labels) const {
  std::string out =
      "# HELP tokbench_mock_answers_total Answers the simulator gave to --answers questions, by "
      "correctness.\n"
      "# TYPE tokbench_mock_answers_total counter\n";
  out += fmt::format("tokbench_mock_answers_total{{{},verdict=\"right\"}} {}\n", model_labels,
                     right_.load());
  out += fmt::format("tokbench_mock_answers_total{{{},verdict=\"wrong\"}} {}\n", model_labels,
                     wrong_.load());
  out += fmt::format("tokbench_mock_answers_total{{{},verdict=\"unknown_question\"}} {}\n",
                     model_labels, unknown_.load());
  return out;
}

}  // namespace tokbench::mock
