#pragma once
// record/record_io: the on-disk JSON Lines form of RequestRecord, one request per line, and an
// appender that makes each finished request durable at once (a crash or Ctrl-C loses nothing
// already finished). The line keeps AISBench's details field names where they exist
// (data_abbr, id, success, error_info, input_tokens, output_tokens) and adds our timestamps.
#include <simdjson.h>

#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "common/json_writer.hpp"
#include "record/record.hpp"

namespace tokbench::record {

/// --check-answers' two fields, "answer" (null: nothing read) and "right" (null: unscored), when
/// the record was scored; nothing otherwise (the details line and the outputs file both use it).
void write_answer_fields(JsonWriter& w, const RequestRecord& r);

/// The tool calls' object, "tools": {"calls": [{"name", "arguments"}], "check", "why",
/// "matched", "cut"}, when the body offered tools; nothing otherwise
/// (record/tool_fields.cpp).
void write_tool_fields(JsonWriter& w, const RequestRecord& r);
/// Reads what write_tool_fields wrote; throws std::runtime_error naming the field.
void read_tool_fields(simdjson::dom::element tools, RequestRecord& r);
/// --json-schema's verdict, "structured": {"check", "why"}, when the answer was held to one.
void write_structured_fields(JsonWriter& w, const RequestRecord& r);
void read_structured_fields(simdjson::dom::element structured, RequestRecord& r);

/// Serializes one record as a single JSON line (no trailing newline).
std::string to_json_line(const RequestRecord& r, std::string_view data_abbr);

/// Parses one line written by to_json_line. Throws std::runtime_error naming what is wrong.
RequestRecord from_json_line(std::string_view line);
/// The same with a caller's parser, reused across lines (read_details parses whole files).
RequestRecord from_json_line(std::string_view line, simdjson::dom::parser& parser);

/// What a pass over a details file found.
struct DetailsScan {
  int64_t records = 0;  ///< lines parsed and handed over
  std::string warning;  ///< e.g. a torn last line that was skipped; empty when none
};

/// Streams a details file one record at a time, in file order (parsed a few hundred lines ahead
/// on a thread of its own: memory stays bounded; `fn` runs on the calling thread).
/// A last line that does not parse (a write cut short by a kill) is skipped and named in
/// `warning`; any other bad line throws std::runtime_error naming file:line.
DetailsScan for_each_detail(const std::string& path,
                            const std::function<void(RequestRecord&&)>& fn);

/// Reads a whole details file into memory (tests and small runs; prefer for_each_detail).
std::vector<RequestRecord> read_details(const std::string& path);

/// Appends lines to a file, each with a single write(2) of the line and its newline on an
/// O_APPEND descriptor, so that a kill at any instant leaves whole lines and at most one torn
/// last line. Thread-safe.
class LineAppender {
 public:
  /// Opens (creating or truncating) `path`. Throws if it cannot be opened.
  explicit LineAppender(const std::string& path);
  ~LineAppender();
  LineAppender(const LineAppender&) = delete;
  LineAppender& operator=(const LineAppender&) = delete;

  /// Appends `line` (without its newline). Throws std::runtime_error when the disk refuses it.
  void append(std::string_view line);

 private:
  std::string path_;
  int fd_ = -1;
  std::string buf_;
  std::mutex mu_;
};

}  // namespace tokbench::record
