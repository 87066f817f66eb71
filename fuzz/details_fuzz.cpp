// Fuzz target: record/record_io — a details line, any bytes: a record or an error; a record read
// back must write and read again to the same line.
#include <simdjson.h>

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "record/record_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static simdjson::dom::parser parser;
  try {
    const auto r = tokbench::record::from_json_line(
        std::string_view(reinterpret_cast<const char*>(data), size), parser);
    const std::string line = tokbench::record::to_json_line(r, "x");
    const auto again = tokbench::record::from_json_line(line, parser);
    if (tokbench::record::to_json_line(again, "x") != line)
      std::abort();  // the round trip is stable
  } catch (const std::runtime_error&) {
  }
  return 0;
}
