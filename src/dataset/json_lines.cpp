#include "dataset/json_lines.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace tokbench::dataset {

void for_each_json_line(std::istream& in, std::string_view path, std::string_view a_line_is,
                        const std::function<void(const JsonLine&)>& fn) {
  simdjson::dom::parser parser;
  std::string text;
  JsonLine line;
  while (std::getline(in, text)) {
    ++line.number;
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    line.where = fmt::format("{}:{}", path, line.number);
    if (auto err = parser.parse(text).get(line.doc))
      throw std::runtime_error(fmt::format("{}: not valid JSON ({}); {}", line.where,
                                           simdjson::error_message(err), a_line_is));
    fn(line);
  }
}

}  // namespace tokbench::dataset
