#pragma once
// dataset/json_lines: the loop every JSON-lines reader of dataset/ shares (qa and gsm8k files,
// Mooncake traces, agent tasks, recorded agent sessions): blank lines skipped, every other line
// parsed as one JSON value and handed over with its file:line, a line that does not parse named
// with what a line of that file must be.
#include <simdjson.h>

#include <cstddef>
#include <functional>
#include <istream>
#include <string>
#include <string_view>

namespace tokbench::dataset {

struct JsonLine {
  simdjson::dom::element doc;  ///< valid until the next line
  size_t number = 0;           ///< 1-based, blank lines counted
  std::string where;           ///< "PATH:NUMBER", for the caller's own errors
};

/// Calls `fn` with each non-blank line of `in` parsed. Throws std::runtime_error "PATH:N: not
/// valid JSON (why); A_LINE_IS" on the first line that does not parse.
void for_each_json_line(std::istream& in, std::string_view path, std::string_view a_line_is,
                        const std::function<void(const JsonLine&)>& fn);

}  // namespace tokbench::dataset
