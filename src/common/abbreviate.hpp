#pragma once
// common/abbreviate: a JSON text made fit for a console of 120 columns. The request body is shown
// on every run, and one prompt of a real dataset is thousands of characters (README run 2 printed
// a 13,930-column line): its long strings are shortened in place, and the text is wrapped and cut
// to a few lines; the whole body stays in the run folder (configs/request_audit.txt).
#include <cstddef>
#include <string>
#include <string_view>

namespace tokbench {

/// `json` with every string longer than `max_chars` characters (UTF-8 code points; an escape
/// counts as one) cut to its first `max_chars` and marked "… (+N chars)" (N the characters
/// dropped). Anything that is not a string is kept as written.
std::string abbreviate_json_strings(std::string_view json, size_t max_chars);

/// `text` as at most `max_lines` lines of at most `width` columns: the first after `lead` (already
/// on the line), the others indented by two spaces; past them, "… (N more characters)". A line
/// that goes on is broken after its last comma or space in its second half where it has one
/// (a JSON field or a word stays whole), else at the width; cuts fall on UTF-8 character
/// boundaries.
std::string wrap_lines(std::string_view text, size_t lead, size_t width, size_t max_lines);

/// `text` cut to at most `max_chars` characters for a one-line summary: at the last space before
/// the limit (within a character when there is none), then " …". Text that fits is returned as is.
std::string headline(std::string_view text, size_t max_chars);

/// `text` safe to print on a terminal: every control character (C0 but tab, DEL, and the C1
/// controls U+0080..U+009F) written as a visible escape ("\n", "\x1b", "\u009b"), so bytes from a
/// server or an exporter cannot move the cursor, retitle the window or colour the console.
std::string printable(std::string_view text);

inline constexpr size_t kConsoleWidth = 120;

/// A console line of prose fitted to `width` columns (a column per UTF-8 character): broken at
/// spaces, each continuation indented two more than the line's own leading spaces (a "- " or a
/// "label: " after them indents it further, to the text). A word longer than the room stays
/// whole, and so does a line of two words (a label and a path). No trailing newline; a line
/// that fits is returned as is.
std::string fit_line(std::string_view line, size_t width = kConsoleWidth);

}  // namespace tokbench
