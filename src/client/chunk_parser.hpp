#pragma once
// client/chunk_parser: what one JSON payload means for timing — does it carry generated text, a
// finish reason, usage, an error, the end of the stream? The words of each wire format are its
// API adapter's (client/api.hpp, one file per API under client/api/); this holds what every
// format shares: the simdjson scratch, the per-response memory, the checks before a dialect reads.
// Used for SSE events (hot path, one reused simdjson parser per connection) and for non-streaming
// bodies. Extracts only what is counted.
#include <simdjson.h>

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "record/record.hpp"

namespace tokbench::client {

class ApiAdapter;

/// One tool call's piece in a payload: which call (its `index`), its name when this piece names it,
/// and the arguments' text it adds (a stream's deltas; a body's whole calls).
struct ToolDelta {
  int64_t index = 0;
  std::string_view name, arguments;
};
inline constexpr size_t kMaxToolDeltas = 8;  ///< per payload; more are dropped and said

struct ChunkInfo {
  record::ChunkKind kind = record::ChunkKind::Empty;
  int64_t text_bytes =
      0;  ///< bytes of new content + reasoning text + tool-call names and arguments
  std::string_view content;    ///< valid until the next parse
  std::string_view reasoning;  ///< valid until the next parse
  std::string_view tool_args;  ///< a tool call delta's `function.arguments` (the first call
                               ///< listed); valid until the next parse
  int64_t tool_bytes = 0;      ///< bytes of tool-call names and arguments (all calls of the event)
  std::array<ToolDelta, kMaxToolDeltas> tool_deltas;  ///< the first tool_delta_count are set
  uint8_t tool_delta_count = 0;
  bool tool_deltas_dropped = false;  ///< the payload held more than kMaxToolDeltas pieces
  int64_t prompt_tokens = -1;        ///< usage, when present
  int64_t completion_tokens = -1;
  int64_t cached_tokens = -1;
  /// The server's own times of the answer (llama.cpp's `timings`, in its last chunk; Ollama's
  /// durations, its load_duration as server_load_ms; TGI's /generate headers); < 0: none.
  double server_prompt_ms = -1, server_predicted_ms = -1, server_load_ms = -1, server_queue_ms = -1;
  int64_t server_predicted_n = -1;
  std::string_view finish_reason;  ///< valid until the next parse
  std::string_view id;             ///< valid until the next parse
  std::string_view error;          ///< an `error` object's message; non-empty means failure
  int64_t choices =
      0;  ///< choices this payload speaks for: highest `index` + 1 (a body: its count)
  int64_t choice =
      0;  ///< `index` of the choice the text, finish and kind above are of (the first listed)
  bool end = false;  ///< the stream's own end event (Anthropic's message_stop): nothing follows
  bool last =
      false;  ///< a chunk that is also the stream's last (TGI's last token): nothing follows
};

/// What one response has said so far, for dialects whose events depend on the ones before
/// (SGLang's cumulative text is compared with what came before it). Per choice: how much text
/// came, and its last bytes, which tell cumulative text from deltas at the second event without
/// keeping the answer.
struct StreamMemory {
  struct Seen {
    int64_t bytes = 0;
    std::string tail;
    enum Mode : uint8_t { Unknown, Cumulative, Incremental } mode = Unknown;
  };
  std::vector<Seen> seen;
  /// A server's own per-token times sent event by event (MindIE's decode_time), summed: ms and
  /// how many.
  double server_ms = 0;
  int64_t server_n = 0;
  /// Text a dialect made rather than read (a body's tool input re-serialised), so that a
  /// ChunkInfo view can point at it until the response ends; a deque: views stay valid.
  std::deque<std::string> owned;
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
  /// `api` null: OpenAI's chat completions.
  explicit ChunkParser(const ApiAdapter* api = nullptr);
  /// Parse through `scratch` (owned by the caller, outliving this parser) instead of an own one.
  void share(JsonScratch* scratch) { shared_ = scratch; }
  void set_api(const ApiAdapter* api);
  const ApiAdapter& api() const { return *api_; }
  /// A new response begins: forgets the last one's text (SGLang's cumulative text is compared
  /// with what came before it).
  void begin_response() {
    memory_.seen.clear();  // keeps its capacity: no allocation per response
    memory_.server_ms = 0;
    memory_.server_n = 0;
    memory_.owned.clear();
  }
  /// Parses one JSON payload. Returns false (and sets *why) when it is not valid JSON. The views
  /// in `out` are valid until the next parse through the same scratch.
  bool parse(std::string_view json, ChunkInfo& out, std::string* why);

 private:
  JsonScratch& scratch();

  const ApiAdapter* api_;
  StreamMemory memory_;
  JsonScratch* shared_ = nullptr;
  std::unique_ptr<JsonScratch> own_;  // made at the first parse when nothing is shared
};

}  // namespace tokbench::client
