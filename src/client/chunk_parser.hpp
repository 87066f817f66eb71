#pragma once
// client/chunk_parser: what one JSON payload means for timing — does it carry generated text, a
// finish reason, usage, an error, the end of the stream? Three wire formats: OpenAI's
// (chat/completions, completions, embeddings; vLLM, SGLang, gateways), Anthropic's Messages API
// (typed events, message_stop ends the stream) and SGLang's native /generate (cumulative text,
// meta_info). Used for SSE events (hot path, one reused simdjson parser per connection) and for
// non-streaming bodies. Extracts only what is counted.
#include <simdjson.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "record/record.hpp"

namespace tokbench::client {

/// Which API's payloads these are.
enum class Wire : uint8_t {
  OpenAI,          ///< /v1/chat/completions, /v1/completions, /v1/embeddings; a stream ends with data: [DONE]
  Anthropic,       ///< /v1/messages: message_start, content_block_delta, message_delta, message_stop
  SglangGenerate,  ///< SGLang's /generate: {"text", "meta_info"}; text is the whole answer so far
};

/// How a stream of this wire format says it is complete (for errors that name what was missing).
const char* end_of_stream_name(Wire wire);

struct ChunkInfo {
  record::ChunkKind kind = record::ChunkKind::Empty;
  int64_t text_bytes = 0;         ///< bytes of new content + reasoning text + tool-call names and arguments
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
  bool end = false;                ///< the stream's own end event (Anthropic's message_stop): nothing follows
};

/// The simdjson parser and padded copy that parsing needs. One thread's chunk parsers share
/// one (ChunkParser::share): one parser's buffers per worker instead of one per stream. What a
/// parse returns stays valid only until the next parse through the same scratch.
struct JsonScratch {
  simdjson::dom::parser parser;
  std::string padded;
};

class ChunkParser {
 public:
  explicit ChunkParser(Wire wire = Wire::OpenAI);
  /// Parse through `scratch` (owned by the caller, outliving this parser) instead of an own one.
  void share(JsonScratch* scratch) { shared_ = scratch; }
  void set_wire(Wire wire) { wire_ = wire; }
  Wire wire() const { return wire_; }
  /// A new response begins: forgets the last one's text (SGLang's cumulative text is compared
  /// with what came before it).
  void begin_response() { seen_.clear(); }
  /// Parses one JSON payload. Returns false (and sets *why) when it is not valid JSON. The views
  /// in `out` are valid until the next parse through the same scratch.
  bool parse(std::string_view json, ChunkInfo& out, std::string* why);

 private:
  void openai(simdjson::dom::element doc, ChunkInfo& out);
  void openai_choice(simdjson::dom::element choice, ChunkInfo& out, std::string_view& role);
  void anthropic(simdjson::dom::element doc, ChunkInfo& out);
  void sglang(simdjson::dom::element doc, ChunkInfo& out);
  std::string_view new_text(int64_t choice, std::string_view text);

  // SGLang streams the whole answer so far in every event (unless the server was started with
  // --incremental-streaming-output). Per choice: how much text came, and its last bytes, which
  // tell the two modes apart at the second event without keeping the answer.
  struct Seen {
    int64_t bytes = 0;
    std::string tail;
    enum Mode : uint8_t { Unknown, Cumulative, Incremental } mode = Unknown;
  };
  JsonScratch& scratch();

  Wire wire_;
  std::vector<Seen> seen_;
  JsonScratch* shared_ = nullptr;
  std::unique_ptr<JsonScratch> own_;  // made at the first parse when nothing is shared
};

}  // namespace tokbench::client
