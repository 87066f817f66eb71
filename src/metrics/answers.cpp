#include "metrics/answers.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <vector>

#include "core/answer_regex.hpp"

namespace tokbench::metrics {

namespace {

bool digit(char c) { return c >= '0' && c <= '9'; }
bool alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// The first (or last) number of `text`: an optional '-' or '$', then digits with commas and at
// most one '.' followed by a digit.
std::optional<std::string_view> find_number(std::string_view text, bool first) {
  std::optional<std::string_view> found;
  for (size_t i = 0; i < text.size();) {
    if (!digit(text[i])) {
      ++i;
      continue;
    }
    size_t b = i;
    while (b > 0 && (text[b - 1] == '-' || text[b - 1] == '$')) --b;
    size_t e = i;
    bool dot = false;
    while (e < text.size() &&
           (digit(text[e]) || text[e] == ',' ||
            (text[e] == '.' && !dot && e + 1 < text.size() && digit(text[e + 1])))) {
      dot |= text[e] == '.';
      ++e;
    }
    found = text.substr(b, e - b);
    if (first) return found;
    i = e;
  }
  return found;
}

std::optional<std::string_view> last_number(std::string_view text) {
  return find_number(text, false);
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::optional<std::string> normalise_number(std::string_view text) {
  std::string s;
  for (char c : text)
    if (c != ',' && c != '$' && !std::isspace(static_cast<unsigned char>(c))) s.push_back(c);
  while (!s.empty() && s.back() == '.') s.pop_back();
  bool negative = false;
  while (!s.empty() && s.front() == '-') {
    negative = !negative;
    s.erase(0, 1);
  }
  if (s.empty() || !std::all_of(s.begin(), s.end(), [](char c) { return digit(c) || c == '.'; }) ||
      std::count(s.begin(), s.end(), '.') > 1)
    return std::nullopt;
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  size_t lead = 0;
  while (lead + 1 < s.size() && s[lead] == '0' && s[lead + 1] != '.') ++lead;
  s.erase(0, lead);
  if (s.empty() || s == "0") return "0";  // -0 is 0
  if (s.front() == '.') s = "0" + s;
  return negative ? "-" + s : s;
}

std::optional<std::string> gsm8k_reference(std::string_view answer_field) {
  const size_t mark = answer_field.rfind("####");
  if (mark == std::string_view::npos) return std::nullopt;
  const auto n = find_number(answer_field.substr(mark + 4), true);
  return n ? normalise_number(*n) : std::nullopt;
}

std::optional<std::string> gsm8k_answer(std::string_view text) {
  if (const size_t mark = text.rfind("####"); mark != std::string_view::npos) {
    // The number right after the model's own "####" (the first on that line).
    std::string_view after = text.substr(mark + 4);
    if (const auto n = find_number(after.substr(0, after.find('\n')), true); n)
      return normalise_number(*n);
  }
  const auto n = last_number(text);
  return n ? normalise_number(*n) : std::nullopt;
}

std::optional<char> choice_letter(std::string_view text, int choices) {
  if (choices <= 0 || choices > 26) return std::nullopt;
  const char last = static_cast<char>('A' + choices - 1);
  auto is_choice = [&](char c) { return c >= 'A' && c <= last; };
  const std::string low = lower(text);
  size_t at = std::string::npos;
  for (const char* cue : {"answer is", "answer:"}) {
    const size_t p = low.rfind(cue);
    if (p != std::string::npos && (at == std::string::npos || p > at))
      at = p + std::string_view(cue).size();
  }
  if (at != std::string::npos) {
    size_t i = at;
    while (i < text.size() &&
           (std::isspace(static_cast<unsigned char>(text[i])) || text[i] == '(' || text[i] == '[' ||
            text[i] == '*' || text[i] == ':'))
      ++i;
    if (i < text.size()) {
      const char c = static_cast<char>(std::toupper(static_cast<unsigned char>(text[i])));
      if (is_choice(c) && (i + 1 == text.size() || !alnum(text[i + 1]))) return c;
    }
  }
  // The whole text one letter: "B", "(B)", "B.".
  std::string bare;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c)) && c != '(' && c != ')' && c != '.' &&
        c != '*')
      bare.push_back(c);
  if (bare.size() == 1) {
    const char c = static_cast<char>(std::toupper(static_cast<unsigned char>(bare[0])));
    if (is_choice(c)) return c;
  }
  for (size_t i = text.size(); i-- > 0;) {
    if (!is_choice(text[i])) continue;
    const bool alone =
        (i == 0 || !alnum(text[i - 1])) && (i + 1 == text.size() || !alnum(text[i + 1]));
    if (alone) return text[i];
  }
  return std::nullopt;
}

std::optional<ScoredAnswer> score_answer(const core::AnswerKey& key, std::string_view output) {
  using K = core::AnswerKey::Kind;
  ScoredAnswer s;
  switch (key.kind) {
    case K::None:
      return std::nullopt;
    case K::Gsm8k: {
      const auto want = gsm8k_reference("####" + key.reference);
      s.extracted = gsm8k_answer(output);
      s.right = want && s.extracted && *want == *s.extracted;
      return s;
    }
    case K::Choice: {
      if (const auto letter = choice_letter(output, key.choices))
        s.extracted = std::string(1, *letter);
      s.right = s.extracted && *s.extracted == key.reference;
      return s;
    }
    case K::Regex: {  // right when the output matches; what matched is the answer ("" = no match:
                      // wrong)
      using Status = core::RegexFound::Status;
      const core::RegexFound found = core::regex_search(key.reference, output);
      s.regex_limit = found.status == Status::Limit;
      if (!s.regex_limit) s.extracted = found.text;
      s.right = found.status == Status::Match;
      return s;
    }
    case K::Exact: {
      auto trim = [](std::string_view v) {
        const size_t b = v.find_first_not_of(" \t\r\n");
        return b == std::string_view::npos ? std::string_view()
                                           : v.substr(b, v.find_last_not_of(" \t\r\n") - b + 1);
      };
      const std::string_view got = trim(output);
      if (!got.empty()) s.extracted = std::string(got);
      s.right = got == trim(key.reference);
      return s;
    }
  }
  return std::nullopt;
}

WilsonInterval wilson_interval(int64_t right, int64_t n, double z) {
  WilsonInterval w;
  if (n <= 0) return w;
  const double nn = static_cast<double>(n);
  w.p = static_cast<double>(right) / nn;
  const double z2 = z * z;
  const double centre = (w.p + z2 / (2 * nn)) / (1 + z2 / nn);
  const double half = z / (1 + z2 / nn) * std::sqrt(w.p * (1 - w.p) / nn + z2 / (4 * nn * nn));
  w.low = std::max(0.0, centre - half);
  w.high = std::min(1.0, centre + half);
  return w;
}

bool valid_utf8(std::string_view text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  for (size_t i = 0; i < n;) {
    const unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF)
      len = 2, cp = c & 0x1F;
    else if (c >= 0xE0 && c <= 0xEF)
      len = 3, cp = c & 0x0F;
    else if (c >= 0xF0 && c <= 0xF4)
      len = 4, cp = c & 0x07;
    else
      return false;
    if (i + len > n) return false;
    for (size_t k = 1; k < len; ++k) {
      if ((s[i + k] & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF))
      return false;
    i += len;
  }
  return true;
}

bool runaway_repetition(std::string_view text) {
  std::vector<std::string_view> words;
  for (size_t i = 0; i < text.size();) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    const size_t b = i;
    while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i > b) words.push_back(text.substr(b, i - b));
  }
  const size_t n = words.size();
  for (size_t p = 1; p <= 32 && 4 * p <= n; ++p) {
    size_t same = 0;  // words from the end that repeat the word p before them
    while (same + p < n && words[n - 1 - same] == words[n - 1 - same - p]) ++same;
    const size_t covered = same + p;  // the loop's words, its first copy included
    if (covered >= 4 * p && covered >= 16) return true;
  }
  return false;
}

}  // namespace tokbench::metrics
