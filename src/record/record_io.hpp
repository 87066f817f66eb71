#pragma once
// record/record_io: the on-disk JSON Lines form of RequestRecord, one request per line, and an
// appender that makes each finished request durable at once (a crash or Ctrl-C loses nothing
// already finished). The line keeps AISBench's details field names where they exist
// (data_abbr, id, success, error_info, input_tokens, output_tokens) and adds our timestamps.
#include <simdjson.h>

#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "record/record.hpp"

namespace tokbench::record {

/// Serializes one record as a single JSON line (no trailing newline).
std::string to_json_line(const RequestRecord& r, std::string_view data_abbr);

/// Parses one line written by to_json_line. Throws std::runtime_error naming what is wrong.
RequestRecord from_json_line(std::string_view line);
/// The same with a caller's parser, reused across lines (read_details parses whole files).
RequestRecord from_json_line(std::string_view line, simdjson::dom::parser& parser);

/// Reads a whole details file; errors name the file and line number.
std::vector<RequestRecord> read_details(const std::string& path);

/// Appends lines to a file and flushes each one. Thread-safe.
class LineAppender {
 public:
  /// Opens (creating or truncating) `path`. Throws if it cannot be opened.
  explicit LineAppender(const std::string& path);
  ~LineAppender();
  LineAppender(const LineAppender&) = delete;
  LineAppender& operator=(const LineAppender&) = delete;

  void append(const std::string& line);

 private:
  std::FILE* file_ = nullptr;
  std::mutex mu_;
};

}  // namespace tokbench::record
