#pragma once
// client/chunk_parser: what one OpenAI-style JSON payload means for timing — does it carry
// generated text, a finish reason, usage, an error? Used for SSE events (hot path, one reused
// simdjson parser per connection) and for non-streaming bodies. Extracts only what is counted.
#include <simdjson.h>

#include <string>
#include <string_view>

#include "record/record.hpp"

namespace tokbench::client {

struct ChunkInfo {
  record::ChunkKind kind = record::ChunkKind::Empty;
  int64_t text_bytes = 0;         ///< bytes of content + reasoning text + tool-call names and arguments
  std::string_view content;       ///< valid until the next parse
  std::string_view reasoning;     ///< valid until the next parse
  std::string_view tool_args;     ///< a tool call delta's `function.arguments` (the first call listed); valid until the next parse
  int64_t tool_bytes = 0;         ///< bytes of tool-call names and arguments (all calls of the event)
  int64_t prompt_tokens = -1;     ///< usage, when present
  int64_t completion_tokens = -1;
  int64_t cached_tokens = -1;
  std::string_view finish_reason;  ///< valid until the next parse
  std::string_view id;             ///< valid until the next parse
  std::string_view error;          ///< an `error` object's message; non-empty means failure
  int64_t choices = 0;             ///< choices this payload speaks for: highest `index` + 1 (a body: its count)
  int64_t choice = 0;              ///< `index` of the choice the text, finish and kind above are of (the first listed)
};

class ChunkParser {
 public:
  ChunkParser();
  /// Parses one JSON payload. Returns false (and sets *why) when it is not valid JSON.
  bool parse(std::string_view json, ChunkInfo& out, std::string* why);

 private:
  simdjson::dom::parser parser_;
  std::string padded_;  // reused copy with simdjson's padding: no allocation per event
};

}  // namespace tokbench::client
