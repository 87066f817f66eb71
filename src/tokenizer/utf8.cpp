#include "tokenizer/utf8.hpp"

namespace tokbench::tokenizer::utf8 {

size_t valid_sequence_length(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) return 1;
  size_t n;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte (Unicode table 3-7)
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k)
    if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
  return n;
}

bool is_valid(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    const size_t n = valid_sequence_length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string repair(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 8);
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  for (size_t i = 0; i < s.size();) {
    if (const size_t n = valid_sequence_length(s, i)) {
      out.append(s.substr(i, n));
      i += n;
      continue;
    }
    // Maximal invalid subpart: the lead byte plus the continuation bytes that were still valid
    // for it (so "\xE2\x82" is one replacement, "\xE2\x41" is one plus 'A').
    const unsigned char c = b(i);
    size_t skip = 1;
    size_t n = c >= 0xC2 && c <= 0xDF   ? 2
               : c >= 0xE0 && c <= 0xEF ? 3
               : c >= 0xF0 && c <= 0xF4 ? 4
                                        : 0;
    if (n > 0) {
      unsigned char lo = 0x80, hi = 0xBF;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
      for (size_t k = 1; k < n && i + k < s.size(); ++k) {
        const unsigned char x = b(i + k);
        if (k == 1 ? (x < lo || x > hi) : (x < 0x80 || x > 0xBF)) break;
        ++skip;
      }
    }
    out += "\xEF\xBF\xBD";
    i += skip;
  }
  return out;
}

char32_t decode(std::string_view s, size_t i, size_t* len) {
  const auto b = [&](size_t k) { return static_cast<char32_t>(static_cast<unsigned char>(s[k])); };
  const char32_t c = b(i);
  if (c < 0x80) {
    *len = 1;
    return c;
  }
  if (c < 0xE0) {
    *len = 2;
    return ((c & 0x1F) << 6) | (b(i + 1) & 0x3F);
  }
  if (c < 0xF0) {
    *len = 3;
    return ((c & 0x0F) << 12) | ((b(i + 1) & 0x3F) << 6) | (b(i + 2) & 0x3F);
  }
  *len = 4;
  return ((c & 0x07) << 18) | ((b(i + 1) & 0x3F) << 12) | ((b(i + 2) & 0x3F) << 6) |
         (b(i + 3) & 0x3F);
}

void append(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

bool is_white_space(char32_t c) {
  switch (c) {
    case 0x09:
    case 0x0A:
    case 0x0B:
    case 0x0C:
    case 0x0D:
    case 0x20:
    case 0x85:
    case 0xA0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202F:
    case 0x205F:
    case 0x3000:
      return true;
    default:
      return c >= 0x2000 && c <= 0x200A;
  }
}

size_t skip_white_space(std::string_view s, size_t b, size_t e) {
  for (size_t n = 0; b < e && is_white_space(decode(s, b, &n)); b += n) {
  }
  return b;
}

size_t trim_white_space_back(std::string_view s, size_t lo, size_t e) {
  while (e > lo) {
    size_t k = e - 1;
    while (k > lo && (static_cast<unsigned char>(s[k]) & 0xC0) == 0x80)
      --k;  // start of the last character
    size_t n = 0;
    if (!is_white_space(decode(s, k, &n))) break;
    e = k;
  }
  return e;
}

}  // namespace tokbench::tokenizer::utf8
