#include "common/abbreviate.hpp"

#include <fmt/format.h>

namespace tokbench {

namespace {

bool continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// The length in bytes of the character (or JSON escape) at `at` of a string's body.
size_t unit_at(std::string_view s, size_t at) {
  if (s[at] == '\\') {
    if (at + 1 < s.size() && s[at + 1] == 'u') return std::min<size_t>(6, s.size() - at);
    return std::min<size_t>(2, s.size() - at);
  }
  size_t n = 1;
  while (at + n < s.size() && continuation(s[at + n])) ++n;
  return n;
}

}  // namespace

std::string abbreviate_json_strings(std::string_view json, size_t max_chars) {
  std::string out;
  out.reserve(std::min(json.size(), size_t{4096}));
  size_t i = 0;
  while (i < json.size()) {
    if (json[i] != '"') {
      out += json[i++];
      continue;
    }
    // A string: its body runs to the next quote that no backslash escapes.
    size_t end = i + 1, chars = 0, kept_end = i + 1;
    while (end < json.size() && json[end] != '"') {
      const size_t unit = unit_at(json, end);
      if (++chars <= max_chars) kept_end = end + unit;
      end += unit;
    }
    if (chars <= max_chars) {
      out.append(json.substr(i, end + 1 - i));
    } else {
      out.append(json.substr(i, kept_end - i));
      out += fmt::format("…+{}\"", chars - max_chars);
    }
    i = end + 1;
  }
  return out;
}

std::string wrap_lines(std::string_view text, size_t lead, size_t width, size_t max_lines) {
  std::string out;
  size_t at = 0;
  for (size_t line = 0; line < max_lines && at < text.size(); ++line) {
    const size_t room = line == 0 ? (width > lead ? width - lead : 1) : width - 2;
    if (line > 0) out += "\n  ";
    size_t cols = 0, end = at;
    while (end < text.size() && cols < room) {  // a column per character
      size_t n = 1;
      while (end + n < text.size() && continuation(text[end + n])) ++n;
      end += n;
      ++cols;
    }
    out.append(text.substr(at, end - at));
    at = end;
  }
  if (at < text.size()) {
    size_t rest = 0;
    for (size_t k = at; k < text.size(); ++k) rest += !continuation(text[k]);
    out += fmt::format(" … ({} more characters)", rest);
  }
  return out;
}

}  // namespace tokbench
