// Fuzz target: record/record_io — a details line, any bytes: a record or an error; a record read
// back must write and read again to the same line. And the writer's side: any bytes a server sends
// (an error body, a finish reason, an id, an answer) written into a record give a line that reads
// back (issue 41: one Latin-1 byte in an error body lost a whole run).
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
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  tokbench::record::RequestRecord r;
  r.outcome = tokbench::record::Outcome::HttpStatus;
  r.http_status = 502;
  r.error = std::string(bytes);
  r.finish_reason = std::string(bytes.substr(0, 64));
  r.request_id = std::string(bytes.substr(size / 2));
  r.answer = std::string(bytes.substr(0, size / 3));
  try {
    (void)tokbench::record::from_json_line(tokbench::record::to_json_line(r, "x"), parser);
  } catch (const std::runtime_error&) {
    std::abort();  // what tokbench writes, it reads back, whatever the bytes were
  }
  return 0;
}
