#pragma once
// core/answer_regex: a qa line's "answer_regex" (PCRE2, UTF), the one rule both sides of an
// answer share: dataset/ refuses a pattern that does not compile when it loads the line, and
// metrics/ scores an output by it. Here, below both, so neither includes the other.
//
// A search is bounded, since a backtracking pattern ("(a+)+$") on a long output can run for
// hours and hold gigabytes: PCRE2's match limit (kRegexMatchLimit backtracking steps at one start
// position) and heap limit (kRegexHeapKiB of backtracking frames), and a
// time budget for the whole search (kRegexBudgetMs, checked through PCRE2's automatic callouts,
// which also stop the rescans the match limit does not count). Hitting either is Limit, never
// "no match".
#include <cstdint>
#include <string>
#include <string_view>

namespace tokbench::core {

inline constexpr unsigned kRegexMatchLimit = 1'000'000;  ///< PCRE2's default is 10,000,000
inline constexpr uint32_t kRegexHeapKiB = 8192;          ///< 8 MiB of backtracking frames
inline constexpr int kRegexBudgetMs = 250;

/// A qa line's "answer_regex" (PCRE2, UTF): PCRE2's message and offset when it does not
/// compile, "" when it does.
std::string regex_error(std::string_view pattern);

struct RegexFound {
  enum class Status : char { Match, NoMatch, Limit } status = Status::NoMatch;
  std::string text;  ///< Match: what matched
};
/// The first match of `pattern` in `text` (invalid UTF-8 in the text never matches). `budget_ms`
/// bounds the search's time (tests pass less).
RegexFound regex_search(std::string_view pattern, std::string_view text,
                        int budget_ms = kRegexBudgetMs);

}  // namespace tokbench::core
