#pragma once
// metrics/answers: --check-answers — what an answer says, and whether it is right, by rules a
// reader can apply by hand (docs/METRICS.md, "Answer checking"), plus the integrity checks every
// output gets with or without a reference, and the accuracy's Wilson interval.
//
// GSM8K (the seeds' dataset; AISBench and lm-eval read it the same way): the reference is the
// number after the reference answer's last "####". The model's answer is the first number after
// its own last "####" on that line when it wrote one (lm-eval's strict match), else the last
// number in its text (lm-eval's flexible extract; OpenCompass's gsm8k_postprocess:
// a run of digits with optional sign, thousands commas and decimals). Both are normalised before
// they are compared: '$', thousands commas and a trailing '.' dropped, trailing zeros after a
// decimal point dropped ("18.00" is 18), leading zeros dropped; they must then be equal as text.
//
// Multiple choice (a qa line with "choices" and "answer"): the letter after the last "answer is"
// or "answer:" (any case; brackets, '*' and spaces skipped), else the whole text when it is one
// letter (optionally bracketed or followed by '.'), else the last standalone capital letter among
// the choices (no letter or digit on either side). The reference may be the letter or the
// choice's index.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/request.hpp"

namespace tokbench::metrics {

/// GSM8K: the model's final number, normalised; nullopt when the text has none.
std::optional<std::string> gsm8k_answer(std::string_view text);
/// GSM8K: the reference answer's number (after its last "####"), normalised; nullopt: none.
std::optional<std::string> gsm8k_reference(std::string_view answer_field);
/// A number as the rules compare it ("$1,234.50" -> "1234.5", "-0.0" -> "0"); nullopt: not a
/// number.
std::optional<std::string> normalise_number(std::string_view text);

/// Multiple choice: the letter ('A' + k, k < choices) the text answers with; nullopt: none.
std::optional<char> choice_letter(std::string_view text, int choices);

/// One output scored against its line's reference: what was read from it (nullopt: nothing the
/// rule could read, so the request counts as unscored, neither right nor wrong) and whether it
/// is right. Exact: the output and the reference compared whole after trimming white space.
struct ScoredAnswer {
  std::optional<std::string> extracted;
  bool right = false;
  bool regex_limit = false;  ///< the answer_regex hit its match limit or time budget: unscored
};
/// Regex: right when the output matches the pattern anywhere; what matched is the answer, and a
/// text that does not match is wrong (its answer ""); a search stopped by its bounds
/// (core/answer_regex) is unscored, never wrong.
/// nullopt when the key is None (no reference: not scored).
std::optional<ScoredAnswer> score_answer(const core::AnswerKey& key, std::string_view output);

/// The accuracy's interval: Wilson's score interval for k right of n at the given z (1.96 for 95%).
struct WilsonInterval {
  double p = 0, low = 0, high = 0;
};
WilsonInterval wilson_interval(int64_t right, int64_t n, double z = 1.959963984540054);

/// Integrity, with or without a reference.
/// Whether `text` is well-formed UTF-8 (no overlongs, surrogates or code points past U+10FFFF).
bool valid_utf8(std::string_view text);
/// Runaway repetition: the text ends in a sequence of 1 to 32 words repeated back to back at least
/// 4 times and over at least 16 words ("the the the ..." needs 16; a 4-word loop 4 times).
bool runaway_repetition(std::string_view text);

}  // namespace tokbench::metrics
