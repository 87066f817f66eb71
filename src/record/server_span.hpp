#pragma once
// record/server_span: the server's own account of one request, from the span its OTLP exporter
// sent (--otlp-receive; vLLM's `llm_request`): when it arrived and ended on the server's wall
// clock, and its time in queue, prefill and decode. The run folder keeps them in
// performances/<model>/server_spans.jsonl — a header line (the client's clock on the wall, the
// receiver's counts), then one line per span — written once after the measured phase;
// metrics/waterfall joins them to the records by trace id (a record's traceparent).
#include <cstdint>
#include <string>
#include <unordered_map>

namespace tokbench::record {

struct ServerSpan {
  std::string trace_id, span_id, parent_span_id;       ///< hex, as traceparent spells them
  std::string name;                                    ///< "llm_request"
  std::string request_id;                              ///< gen_ai.request.id ("" = not said)
  int64_t start_unix_ns = 0, end_unix_ns = 0;          ///< the server's wall clock
  double queue_s = -1, prefill_s = -1, decode_s = -1;  ///< -1 = the span did not say
};

/// What the file says of itself.
struct ServerSpansHeader {
  /// The run's time 0 on the client's wall clock: a record's sent_ns + this is when it left, on
  /// the clock the server's span times are on (the same host's, or one synchronised with it).
  int64_t origin_unix_ns = 0;
  double client_share_budget = 10;  ///< % (--client-share-budget)
  std::string listen;               ///< where the receiver listened
  int64_t exports = 0, refused = 0, dropped = 0, spans = 0;
  std::string last_error;  ///< why the last refused export was refused
};

std::string to_json_line(const ServerSpansHeader& h);
std::string to_json_line(const ServerSpan& s);

/// The spans of a server_spans.jsonl by trace id (a trace's later span replaces an earlier one),
/// at most `max_spans`; false with why when the file cannot be read or its header is missing.
bool read_server_spans(const std::string& path, ServerSpansHeader& header,
                       std::unordered_map<std::string, ServerSpan>& by_trace, size_t max_spans,
                       std::string* why);

}  // namespace tokbench::record
