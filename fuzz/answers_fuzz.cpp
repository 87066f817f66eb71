// Fuzz target: metrics/answers — a server's output text read by every rule (GSM8K, a choice
// letter, exact, a regex), the UTF-8 and repetition checks; the first byte picks the number of
// choices. What a rule reads must come from the text, and a right answer must equal the reference.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "metrics/answers.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  using namespace tokbench;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  const int choices = 1 + data[0] % 26;
  (void)metrics::gsm8k_answer(text);
  if (const auto letter = metrics::choice_letter(text, choices);
      letter && (*letter < 'A' || *letter >= 'A' + choices))
    std::abort();  // a letter outside the choices
  core::AnswerKey key;
  key.kind = core::AnswerKey::Kind::Gsm8k;
  key.reference = "18";
  if (const auto s = metrics::score_answer(key, text); s && s->right && s->extracted != "18")
    std::abort();
  key.kind = core::AnswerKey::Kind::Regex;
  key.reference = "[0-9]+(\\.[0-9]+)?";
  if (const auto s = metrics::score_answer(key, text);
      s && s->right && text.find(*s->extracted) == std::string_view::npos)
    std::abort();  // the match must be text the output holds
  (void)metrics::valid_utf8(text);
  (void)metrics::runaway_repetition(text);
  return 0;
}
