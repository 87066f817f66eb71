#pragma once
// core/api_caps: what an API can do, as a noun below the client: validation, the dataset checks,
// the run folder's facts and the metrics ask these, never an API's name (client/api defines each
// API's; settings' caps_of() finds them by --endpoint).
#include <string_view>

namespace tokbench::core {

/// What an API can do; validation, the dataset checks and the metrics ask these, never a name.
struct ApiCaps {
  bool generates = true;   ///< answers with generated tokens (embeddings do not)
  bool streams = true;     ///< can answer as a stream of server-sent events
  bool whole_body = true;  ///< can answer as one JSON body (TGI's /generate_stream cannot)
  bool ndjson = false;     ///< streams newline-delimited JSON (Ollama's native API), not SSE
  /// takes vLLM's and SGLang's sampling extensions, ignore_eos and min_tokens (TGI has neither)
  bool sampling_extensions = true;
  bool conversation = false;  ///< takes chat messages with roles (rendered with a chat template)
  bool images = false;        ///< takes images in the conversation (--image, dataset images)
  bool documents = false;     ///< takes a query with documents to rank (rerank), and nothing else
  bool tools = false;         ///< takes tool definitions and answers with tool calls (--tools)
  bool json_schema = false;   ///< takes a response format of a JSON Schema (--json-schema)
  /// takes a history of tool calls and their results in OpenAI chat's shape (agent:FILE loops)
  bool tool_messages = false;
  bool stream_options =
      false;  ///< takes OpenAI's stream_options (include_usage, --continuous-usage)
  bool requires_cap =
      false;  ///< every request must carry an output cap (--max-tokens 0 is refused)
  bool per_token_counts =
      false;  ///< every event carries the cumulative output count (SGLang's per-token ITL split)
  /// The finish reasons the API defines, comma-separated: an answer ending with another is counted
  /// (metrics/quality). OpenAI's by default.
  std::string_view finish_reasons = "stop,length,tool_calls,content_filter,function_call";
  std::string_view cap_reason =
      "length";  ///< the finish reason that says the output cap cut the answer
};

}  // namespace tokbench::core
