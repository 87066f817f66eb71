#pragma once
// core/answer_regex: a qa line's "answer_regex" (PCRE2, UTF), the one rule both sides of an
// answer share: dataset/ refuses a pattern that does not compile when it loads the line, and
// metrics/ scores an output by it. Here, below both, so neither includes the other.
#include <optional>
#include <string>
#include <string_view>

namespace tokbench::core {

/// A qa line's "answer_regex" (PCRE2, UTF): PCRE2's message and offset when it does not
/// compile, "" when it does.
std::string regex_error(std::string_view pattern);
/// The first match of `pattern` in `text` (invalid UTF-8 in the text never matches); nullopt: none.
std::optional<std::string> regex_search(std::string_view pattern, std::string_view text);

}  // namespace tokbench::core
