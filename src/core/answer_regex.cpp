#include "core/answer_regex.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

namespace tokbench::core {

namespace {
struct Compiled {
  pcre2_code* code = nullptr;
  std::string error;
  explicit Compiled(std::string_view pattern) {
    int err = 0;
    PCRE2_SIZE at = 0;
    code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                         PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, &err, &at, nullptr);
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
}  // namespace

std::string regex_error(std::string_view pattern) { return Compiled(pattern).error; }

std::optional<std::string> regex_search(std::string_view pattern, std::string_view text) {
  const Compiled c(pattern);
  if (!c.code) return std::nullopt;
  pcre2_match_data* md = pcre2_match_data_create_from_pattern(c.code, nullptr);
  const int rc = pcre2_match(c.code, reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), 0, 0,
                             md, nullptr);
  std::optional<std::string> out;
  if (rc > 0) {
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md);
    out = std::string(text.substr(ov[0], ov[1] - ov[0]));
  }
  pcre2_match_data_free(md);
  return out;
}

}  // namespace tokbench::core
