#pragma once
// tokenizer/utf8: the few UTF-8 operations the tokenizer needs — code-point iteration, encoding,
// and lossy repair exactly like Rust's String::from_utf8_lossy (one U+FFFD per maximal invalid
// subpart), which is what HF tokenizers sees when it is handed bytes.
#include <cstdint>
#include <string>
#include <string_view>

namespace tokbench::tokenizer::utf8 {

/// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is not valid there.
size_t valid_sequence_length(std::string_view s, size_t i);

/// True when `s` is entirely valid UTF-8.
bool is_valid(std::string_view s);

/// `s` with every maximal invalid subpart replaced by U+FFFD.
std::string repair(std::string_view s);

/// Decodes the (valid) code point at s[i]; sets *len to its byte length.
char32_t decode(std::string_view s, size_t i, size_t* len);

/// Appends the UTF-8 encoding of `cp`.
void append(std::string& out, char32_t cp);

/// Unicode's White_Space property (what Rust's char::is_whitespace tests).
bool is_white_space(char32_t c);

/// Byte offsets [b, e) of `s` with White_Space characters trimmed from the left and/or right;
/// the trim never crosses `lo` on the left.
size_t skip_white_space(std::string_view s, size_t b, size_t e);
size_t trim_white_space_back(std::string_view s, size_t lo, size_t e);

}  // namespace tokbench::tokenizer::utf8
