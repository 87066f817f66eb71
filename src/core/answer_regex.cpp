#include "core/answer_regex.hpp"

#include <chrono>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

namespace tokbench::core {

namespace {
struct Compiled {
  pcre2_code* code = nullptr;
  std::string error;
  Compiled(std::string_view pattern, uint32_t extra) {
    int err = 0;
    PCRE2_SIZE at = 0;
    code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                         PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | extra, &err, &at, nullptr);
    if (!code) {
      PCRE2_UCHAR msg[256];
      pcre2_get_error_message(err, msg, sizeof msg);
      error = std::string(reinterpret_cast<const char*>(msg)) + " at offset " + std::to_string(at);
    }
  }
  ~Compiled() { pcre2_code_free(code); }
  Compiled(const Compiled&) = delete;
  Compiled& operator=(const Compiled&) = delete;
};

using Clock = std::chrono::steady_clock;

struct Budget {
  Clock::time_point deadline;
  uint32_t calls = 0;
};

// PCRE2_AUTO_CALLOUT calls this before each item of the pattern is tried, so a search whose
// every step is cheap but whose steps are many ("a*a*b\d": each backtrack of the first a* rescans
// the rest, which PCRE2's match limit does not count) is still stopped; the clock is read every
// 16th call, as one call costs a few nanoseconds.
int past_budget(pcre2_callout_block*, void* data) {
  auto* b = static_cast<Budget*>(data);
  return (++b->calls & 15) == 0 && Clock::now() > b->deadline ? PCRE2_ERROR_CALLOUT : 0;
}

struct MatchContext {
  pcre2_match_context* mc = pcre2_match_context_create(nullptr);
  pcre2_match_data* md = nullptr;
  ~MatchContext() {
    pcre2_match_data_free(md);
    pcre2_match_context_free(mc);
  }
};
}  // namespace

std::string regex_error(std::string_view pattern) { return Compiled(pattern, 0).error; }

RegexFound regex_search(std::string_view pattern, std::string_view text, int budget_ms) {
  RegexFound out;
  const Compiled c(pattern, PCRE2_AUTO_CALLOUT);
  if (!c.code) return out;
  MatchContext m;
  m.md = pcre2_match_data_create_from_pattern(c.code, nullptr);
  Budget budget{Clock::now() + std::chrono::milliseconds(budget_ms)};
  pcre2_set_match_limit(m.mc, kRegexMatchLimit);
  pcre2_set_heap_limit(m.mc, kRegexHeapKiB);  // its backtracking frames: PCRE2's default is 20 GB
  pcre2_set_callout(m.mc, past_budget, &budget);
  const int rc =
      pcre2_match(c.code, reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), 0, 0, m.md, m.mc);
  if (rc > 0) {
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(m.md);
    out.status = RegexFound::Status::Match;
    out.text = std::string(text.substr(ov[0], ov[1] - ov[0]));
  } else if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT ||
             rc == PCRE2_ERROR_HEAPLIMIT || rc == PCRE2_ERROR_CALLOUT) {
    out.status = RegexFound::Status::Limit;
  }
  return out;
}

}  // namespace tokbench::core
