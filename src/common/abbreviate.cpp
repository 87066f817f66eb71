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
      out += fmt::format("… (+{} chars)\"", chars - max_chars);
    }
    i = end + 1;
  }
  return out;
}

std::string headline(std::string_view text, size_t max_chars) {
  size_t end = 0, chars = 0, last_space = std::string_view::npos;
  while (end < text.size() && chars < max_chars) {
    if (text[end] == ' ') last_space = end;
    size_t n = 1;
    while (end + n < text.size() && continuation(text[end + n])) ++n;
    end += n;
    ++chars;
  }
  if (end >= text.size()) return std::string(text);
  if (last_space != std::string_view::npos && last_space > 0) end = last_space;
  return std::string(text.substr(0, end)) + " …";
}

std::string wrap_lines(std::string_view text, size_t lead, size_t width, size_t max_lines) {
  std::string out;
  size_t at = 0;
  for (size_t line = 0; line < max_lines && at < text.size(); ++line) {
    const size_t room = line == 0 ? (width > lead ? width - lead : 1) : width - 2;
    if (line > 0) out += "\n  ";
    size_t cols = 0, end = at, last_break = std::string_view::npos;
    while (end < text.size() && cols < room) {  // a column per character
      size_t n = 1;
      while (end + n < text.size() && continuation(text[end + n])) ++n;
      end += n;
      ++cols;
      // After a comma or a space in the line's second half: where a line of JSON or prose reads
      // best broken (a field or a word whole on the next line, not "param" / "eters").
      if ((text[end - n] == ',' || text[end - n] == ' ') && cols >= room / 2) last_break = end;
    }
    if (end < text.size() && line + 1 < max_lines && last_break != std::string_view::npos)
      end = last_break;
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

namespace {

size_t columns(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += !continuation(c);
  return n;
}

}  // namespace

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if ((c < 0x20 && c != '\t') || c == 0x7F) {
      out += fmt::format("\\x{:02x}", c);
    } else if (c == 0xC2 && i + 1 < text.size() &&
               static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(text[i + 1]) <= 0x9F) {  // a C1 control, as UTF-8
      out += fmt::format("\\u{:04x}", static_cast<unsigned char>(text[++i]));
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string fit_line(std::string_view line, size_t width) {
  if (columns(line) <= width) return std::string(line);
  const size_t indent = line.find_first_not_of(' ');
  if (indent == std::string_view::npos) return std::string(line);
  // "  log:     outputs/…/run.log": a label and one long word (a path to copy) stay on one line.
  const size_t label_end = line.find(' ', indent);
  if (label_end == std::string_view::npos ||
      line.find(' ', line.find_first_not_of(' ', label_end)) == std::string_view::npos)
    return std::string(line);
  size_t lead = indent;
  if (line.substr(indent).starts_with("- ")) lead += 2;  // a list item: continued under its text
  const size_t hang = std::min<size_t>(lead + 2, width / 3);
  std::string out(line.substr(0, indent));
  size_t used = indent, at = indent;
  bool empty = true;  // no word yet on the output line
  while (at < line.size()) {
    const size_t gap_at = at;
    while (at < line.size() && line[at] == ' ') ++at;
    if (at == line.size()) break;
    size_t end = line.find(' ', at);
    if (end == std::string_view::npos) end = line.size();
    const std::string_view word = line.substr(at, end - at);
    const std::string_view gap = line.substr(gap_at, at - gap_at);  // kept when no break falls
    const size_t cols = columns(word);
    if (!empty && used + gap.size() + cols > width) {
      out += '\n';
      out.append(hang, ' ');
      used = hang;
      empty = true;
    }
    if (!empty) {
      out += gap;
      used += gap.size();
    }
    out += word;
    used += cols;
    empty = false;
    at = end;
  }
  return out;
}

}  // namespace tokbench
