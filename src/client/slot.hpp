#pragma once
// client/slot (internal to the engine): one request in flight and what its response has said so
// far — the record being filled, the SSE framer and the chunk parser (reused across requests, so
// the hot path allocates nothing per event). Both transports (libcurl, plain sockets) hand it the
// same things: a status, headers, body bytes stamped once per read; it never touches the network.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string>
#include <string_view>

#include "client/api.hpp"
#include "client/chunk_parser.hpp"
#include "client/sse.hpp"
#include "common/clock.hpp"
#include "core/draw.hpp"
#include "core/request.hpp"
#include "net/http1.hpp"
#include "record/record.hpp"

namespace tokbench::client {

inline constexpr size_t kErrorBodyLimit = 1024;  // first KiB of a failing server's body is kept

/// --trace-context: the seed of a lane's trace ids, from its run id (FNV-1a; never 0).
inline uint64_t trace_seed_of(std::string_view run_id) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : run_id) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  return h | 1;
}

/// The W3C traceparent of attempt `attempt` of request `index` (a warm-up's apart): its trace id
/// one per request, its span id (the parent of the server's spans) one per attempt; drawn, so no
/// two requests of a run share a trace, and neither id is all zeros as the format forbids.
inline std::string traceparent(uint64_t seed, int64_t index, bool warmup, int attempt) {
  const int64_t key = index * 2 + (warmup ? 1 : 0);
  return fmt::format("00-{:016x}{:016x}-{:016x}-01", core::seeded_draw(seed, key, 0),
                     core::seeded_draw(seed, key, 1) | 1,
                     core::seeded_draw(seed, key, 2 + static_cast<uint64_t>(attempt)) | 1);
}

/// The W3C tracestate beside it: tokbench's entry, the request's id (--request-id-header's
/// value: letters, digits, '_', '-', '.', as a tracestate value may hold), so a span store finds
/// the request by the id the details and the server's log name it by.
inline std::string tracestate(std::string_view client_request_id) {
  return fmt::format("tokbench={}", client_request_id);
}

struct Slot {
  size_t id = 0;  // its place in the worker's slots (the transports keep their own state by it)
  bool active = false;
  core::PlannedRequest req;  // kept for a retry: same body, same intended time
  int64_t origin_ns = 0;
  bool stream = true;
  bool keep_text = false;
  bool keep_content = false;  ///< content_text too (agent loops only)
  uint64_t trace_seed = 0;    // --trace-context: each request's trace id drawn from it (0: none)
  std::string id_prefix;  // "<run id>-": each request's id is this and its index ("" = none sent)
  size_t max_body = 0, max_events = 0;
  std::string too_large;     // why the response passed a cap ("" = it did not)
  std::string content_type;  // of the response, lower-cased ("" = none sent)
  std::string head;  // the first KiB of a 2xx body, to show what came when it is not what was asked
  int64_t retry_after_ms = -1;          // the server's Retry-After, in ms (-1 = none)
  int64_t retry_at_ns = record::kNone;  // waiting to retry until then (the slot stays taken)
  record::RequestRecord rec;
  SseFramer framer;
  ChunkParser parser;
  ChunkInfo info;
  std::string body;            // non-streaming body, or the start of an error body
  std::string protocol_error;  // first thing in the stream that broke the protocol
  bool got_done = false;
  // --cancel-rate (core/cancel): this request's cancel point, and why it was let go ("" = not).
  core::CancelPoint cancel;
  int64_t tokens_seen = 0;  // answer tokens so far: usage's running count, else text events
  std::string cancelled;
  int64_t events = 0;
  int64_t bytes = 0;

  int64_t now() const { return steady_now_ns() - origin_ns; }

  /// A fresh record for attempt `attempt` of `req`, intended at `scheduled`.
  void begin(int64_t scheduled, int attempt, size_t reserve_chunks) {
    rec = record::RequestRecord{};
    rec.chunks.reserve(reserve_chunks);
    rec.index = req.index;
    rec.warmup = req.warmup;
    if (!id_prefix.empty())
      rec.client_request_id = fmt::format("{}{}{}", id_prefix, req.warmup ? "w" : "", req.index);
    if (trace_seed != 0) rec.traceparent = traceparent(trace_seed, req.index, req.warmup, attempt);
    rec.expected_prompt_tokens = req.facts.expected_prompt_tokens;
    rec.requested_max_tokens = req.facts.requested_max_tokens;
    rec.ignore_eos_sent = req.facts.ignore_eos_sent;
    rec.model = req.facts.model;
    rec.images = req.facts.images;
    rec.documents = req.facts.documents;
    rec.session = req.facts.session;
    rec.turn = req.facts.turn;
    rec.session_start_ns = req.facts.session_start_ns;
    rec.last_turn = req.facts.last_turn;
    rec.ready_ns = req.facts.ready_ns;
    rec.tool_ns = req.facts.tool_ns;
    if (keep_text) rec.prompt_text = req.facts.prompt_text;
    rec.answer_key = req.facts.key;
    rec.tools = req.facts.tools;
    rec.tools_offered = rec.tools != nullptr;
    rec.json_schema = req.facts.json_schema;
    rec.tool_reference = req.facts.tool_call;
    rec.probe = req.facts.probe;
    cancel = req.warmup ? core::CancelPoint{} : req.facts.cancel;  // a warm-up runs to its end
    rec.cancel_planned = cancel.planned();
    tokens_seen = 0;
    cancelled.clear();
    too_large.clear();
    content_type.clear();
    head.clear();
    retry_after_ms = -1;
    retry_at_ns = record::kNone;
    rec.stream = stream;
    rec.attempts = attempt;
    rec.scheduled_ns = scheduled;
    framer.reset();
    parser.begin_response();
    body.clear();
    protocol_error.clear();
    got_done = false;
  }

  void on_event(std::string_view data, int64_t t) {
    if (got_done || !too_large.empty() || !cancelled.empty())
      return;  // nothing after [DONE] (or the client's cancel) belongs to this response
    if (data == "[DONE]") {  // OpenAI's end; APIs with an end event of their own ignore it (a proxy
                             // may add it)
      if (!parser.api().done_sentinel()) return;
      got_done = true;
      rec.done_ns = t;
      return;
    }
    ++events;
    if (rec.chunks.size() >= max_events) {
      // No flag raises it: a fixed cap that keeps memory bounded, far past any real generation.
      too_large = fmt::format(
          "more than {} SSE events in one response: a stream without end (check the server's "
          "max_tokens handling)",
          max_events);
      return;
    }
    std::string why;
    if (!parser.parse(data, info, &why)) {
      if (protocol_error.empty())
        protocol_error = fmt::format("invalid JSON in SSE event ({})", why);
      return;
    }
    if (!info.error.empty() && protocol_error.empty())
      protocol_error = fmt::format("error event in stream: {}", info.error);
    if (info.end) {  // the stream's own end event (message_stop, response.completed): not a chunk
                     // of the answer,
      got_done = true;  // though it may carry the answer's usage and how it ended
      rec.done_ns = t;
      take_usage();
      if (!info.finish_reason.empty()) rec.finish_reason = std::string(info.finish_reason);
      if (rec.request_id.empty() && !info.id.empty()) rec.request_id = std::string(info.id);
      return;
    }
    rec.choices = std::max(rec.choices, info.choices);
    record::ChunkEvent ev;
    ev.t_ns = t;
    ev.bytes = static_cast<int32_t>(data.size());
    ev.cum_tokens = static_cast<int32_t>(info.completion_tokens);
    ev.kind = info.kind;
    ev.choice = static_cast<int16_t>(std::min(info.choice, record::kMaxChoiceIndex));
    rec.chunks.push_back(ev);
    if (rec.first_event_ns == record::kNone) rec.first_event_ns = t;
    rec.last_event_ns = t;
    if (ev.has_text()) {
      if (rec.first_token_ns == record::kNone) rec.first_token_ns = t;
      rec.last_token_ns = t;
      rec.output_chars += info.text_bytes;
      if (keep_text) {
        rec.output_text.append(info.reasoning);
        rec.output_text.append(info.content);
        rec.output_text.append(info.tool_args);
        if (keep_content) rec.content_text.append(info.content);
      }
      tokens_seen = info.completion_tokens >= 0 ? info.completion_tokens : tokens_seen + 1;
      if (cancel.after_tokens >= 0 && tokens_seen >= cancel.after_tokens) {
        cancelled = fmt::format("cancelled by the client after {} answer token(s) (--cancel-rate)",
                                tokens_seen);
        rec.done_ns = t;  // let go as the read that brought it was handled
      }
    }
    take_tool_deltas(info);
    take_usage();
    if (!info.finish_reason.empty()) rec.finish_reason = std::string(info.finish_reason);
    if (rec.request_id.empty() && !info.id.empty()) rec.request_id = std::string(info.id);
    if (info.last) {  // a chunk that ends the stream (TGI's last token): nothing follows
      got_done = true;
      rec.done_ns = t;
    }
  }

  /// Assembles the answer's tool calls from its pieces (first choice only), when the body offered
  /// tools: a call's name comes once, its arguments in pieces, in the order they came. Bounded
  /// by record::kMaxToolCalls and kMaxToolCallBytes; what passes them is cut, and said.
  void take_tool_deltas(const ChunkInfo& in) {
    if (!rec.tools || in.choice != 0) return;
    rec.tool_calls_cut |= in.tool_deltas_dropped;
    for (uint8_t k = 0; k < in.tool_delta_count; ++k) {
      const ToolDelta& d = in.tool_deltas[k];
      if (d.index >= static_cast<int64_t>(record::kMaxToolCalls)) {
        rec.tool_calls_cut = true;
        continue;
      }
      if (static_cast<size_t>(d.index) >= rec.tool_calls.size())
        rec.tool_calls.resize(static_cast<size_t>(d.index) + 1);
      core::ToolCall& call = rec.tool_calls[static_cast<size_t>(d.index)];
      if (!d.name.empty() && call.name.empty()) call.name = std::string(d.name);
      if (call.arguments.size() + d.arguments.size() > record::kMaxToolCallBytes) {
        rec.tool_calls_cut = true;
        continue;
      }
      call.arguments.append(d.arguments);
    }
  }

  void take_usage() { take_usage_of(info); }
  void take_usage_of(const ChunkInfo& info) {
    if (info.completion_tokens >= 0) rec.completion_tokens = info.completion_tokens;
    if (info.prompt_tokens >= 0) rec.prompt_tokens = info.prompt_tokens;
    if (info.cached_tokens >= 0) rec.cached_tokens = info.cached_tokens;
    if (info.server_predicted_n >= 0) rec.server_predicted_n = info.server_predicted_n;
    if (info.server_prompt_ms >= 0)
      rec.server_prompt_us = static_cast<int64_t>(info.server_prompt_ms * 1000 + 0.5);
    if (info.server_predicted_ms >= 0)
      rec.server_predicted_us = static_cast<int64_t>(info.server_predicted_ms * 1000 + 0.5);
    if (info.server_load_ms >= 0)
      rec.server_load_us = static_cast<int64_t>(info.server_load_ms * 1000 + 0.5);
    if (info.server_queue_ms >= 0)
      rec.server_queue_us = static_cast<int64_t>(info.server_queue_ms * 1000 + 0.5);
  }

  /// The status of a response (a new one per interim 1xx response).
  void take_status(int code) { rec.http_status = code; }

  /// One response header; names are case-insensitive. Two matter to every API; the rest are
  /// the API's to read (TGI's /generate says its counts and times in headers).
  void take_header(std::string_view name, std::string_view value) {
    if (net::iequals(name, "retry-after")) {
      // Seconds (the HTTP-date form is rare from inference servers and is ignored).
      int64_t secs = -1;
      const size_t d = value.find_first_of("0123456789");
      if (d != std::string_view::npos)
        std::from_chars(value.data() + d, value.data() + value.size(), secs);
      if (secs >= 0) retry_after_ms = secs * 1000;
    } else if (net::iequals(name, "content-type")) {
      std::string v(value);
      for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      v.erase(0, v.find_first_not_of(" \t"));
      v.erase(v.find_last_not_of(" \t\r\n") + 1);
      content_type = v;
    } else {
      ChunkInfo said;
      if (parser.api().take_header(name, value, said)) take_usage_of(said);
    }
  }

  /// Body bytes of one read, stamped `t`. False once the response passed a cap, or the client's
  /// cancel point came: the transport then abandons the transfer (and closes its connection).
  bool take_body(std::string_view p, int64_t t) {
    bytes += static_cast<int64_t>(p.size());
    const bool error_status = rec.http_status < 200 || rec.http_status >= 300;
    if (!error_status && head.size() < kErrorBodyLimit)
      head.append(p.substr(0, kErrorBodyLimit - head.size()));
    if (error_status) {
      body.append(p.substr(0, kErrorBodyLimit - std::min(kErrorBodyLimit, body.size())));
    } else if (stream) {
      framer.feed(p, [&](std::string_view data) { on_event(data, t); });
      if (framer.too_large() && too_large.empty())
        too_large =
            fmt::format("an SSE line or event larger than {} bytes (raise --max-event-bytes)",
                        framer.max_bytes());
    } else if (body.size() + p.size() > max_body) {
      too_large =
          fmt::format("a response body larger than {} bytes (raise --max-body-bytes)", max_body);
    } else {
      body.append(p);
    }
    return too_large.empty() && cancelled.empty();
  }
};

}  // namespace tokbench::client
