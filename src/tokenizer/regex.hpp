#pragma once
// tokenizer/regex: HF pre-tokenizer patterns (written for Oniguruma) compiled with PCRE2 — UTF,
// UCP, MULTILINE, JIT — after the one rewrite that makes them agree: \s and \S become
// \p{White_Space} and \P{White_Space} (PCRE2's UCP \s also matches U+180E; Oniguruma's does not).
// Thread-safe: match data is per call site thread.
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tokbench::tokenizer {

class Regex {
 public:
  /// Compiles `pattern`; throws std::runtime_error with PCRE2's message and offset.
  explicit Regex(const std::string& pattern);
  ~Regex();
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;

  /// Every non-overlapping match in `text` (valid UTF-8), as byte ranges [start, end).
  std::vector<std::pair<size_t, size_t>> find_all(std::string_view text) const;

  /// The Oniguruma -> PCRE2 rewrite (exposed for tests).
  static std::string rewrite(const std::string& pattern);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tokbench::tokenizer
