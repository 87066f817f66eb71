#pragma once
// mockapi/route: the seam between the simulator and one API it serves, the mirror of client/api.
// A MockRoute says what differs between generating APIs — the path, the request it takes, the
// exact JSON of its stream events and bodies, its error body — and a OneShotRoute the same for
// APIs that answer once and generate nothing (embeddings, rerank); the simulator's engine
// (mock_server) does the timing, the same for every API, so a test can hold every API to one
// ground truth. One file per API under mockapi/routes/, listed once in mockapi/routes/registry.cpp.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mockapi/mock_response.hpp"

namespace tokbench::mock {

/// One answer at one moment of its generation: what its words are made of.
struct Answer {
  const CompletionRequest& cr;
  std::string_view id;
  int64_t created = 0;   ///< Unix seconds
  int64_t produced = 0;  ///< tokens generated so far (per choice)
  int64_t cached = -1;   ///< prompt tokens read from the prefix cache (-1: no prefix cache)
  std::string_view
      text;  ///< the answer so far: for bodies, and for stream events of routes that keep_text()
  std::string_view finish;  ///< "length" or "stop" once generation is done, else ""
  bool usage = true;        ///< a body may carry usage (false under --no-usage)
  /// Reasoning (--reasoning-tokens, routes that reasons()): a stream event's reasoning text
  /// before `piece`, or a body's whole reasoning before `text`.
  std::string_view reasoning;
};

/// The events of one write to the stream: their bytes, and for the trace each event's kind (R
/// role, C content, F finish, U usage, D the end marker) and the tokens it carries.
class Events {
 public:
  Events(std::string& payload, std::string& kinds, std::vector<int>& tokens)
      : payload_(payload), kinds_(kinds), tokens_(tokens) {}
  /// One SSE event: `data: JSON`, after `event: NAME` when a name is given (typed APIs).
  void add(std::string_view json, char kind, int tokens, std::string_view name = {}) {
    if (!name.empty()) {
      payload_ += "event: ";
      payload_ += name;
      payload_ += "\n";
    }
    payload_ += "data: ";
    payload_ += json;
    payload_ += "\n\n";
    kinds_.push_back(kind);
    tokens_.push_back(tokens);
  }
  /// One line of newline-delimited JSON (Ollama's streams), instead of an SSE event.
  void line(std::string_view json, char kind, int tokens) {
    payload_ += json;
    payload_ += "\n";
    kinds_.push_back(kind);
    tokens_.push_back(tokens);
  }
  /// OpenAI's end marker, data: [DONE].
  void done() {
    payload_ += "data: [DONE]\n\n";
    kinds_.push_back('D');
    tokens_.push_back(0);
  }
  /// Events of this response so far, every write counted (a sequence number).
  int64_t count() const { return static_cast<int64_t>(kinds_.size()); }

 private:
  std::string& payload_;
  std::string& kinds_;
  std::vector<int>& tokens_;
};

/// What a whole answer's server measured, for routes that say it in headers (TGI's /generate).
struct ServedTimes {
  int64_t queue_ns = 0;      ///< from arrival to a place in the batch
  int64_t inference_ns = 0;  ///< from there to the last token
  int64_t prompt_tokens = 0, generated_tokens = 0;
};

class MockRoute {
 public:
  virtual ~MockRoute() = default;
  /// The path it serves, e.g. "/v1/chat/completions".
  virtual std::string_view path() const = 0;
  /// Whether a body posted to its path is its API's (two APIs share /generate: TGI's `inputs`
  /// against SGLang's `text`); the first route of a path that claims a body serves it.
  virtual bool claims(const std::string& body) const { return true; }
  /// The request, or nullopt with *why set (the body of a 400). `base_model`: the served model.
  virtual std::optional<CompletionRequest> parse(const std::string& body,
                                                 std::string_view base_model,
                                                 std::string* why) const = 0;
  /// The body of a 400 answer in this API's error format.
  virtual std::string refusal(const std::string& why) const {
    return error_body(why, "BadRequestError", 400);
  }
  /// The answer id's prefix ("chatcmpl-"): the id is the prefix and the request's sequence number.
  virtual std::string_view id_prefix() const = 0;
  /// Whether it streams reasoning apart from the answer (--reasoning-tokens): vLLM's chat
  /// completions do (delta.reasoning_content); the rest answer with content alone here.
  virtual bool reasons() const { return false; }
  /// Whether its stream events need the answer so far in Answer::text (cumulative text, or a
  /// final event that repeats it).
  virtual bool keeps_text() const { return false; }
  /// A stream's Content-Type: SSE, or Ollama's newline-delimited JSON (Events::line).
  virtual std::string_view stream_type() const { return "text/event-stream"; }

  /// The events before the first token (a role chunk, message_start), in the first token's write.
  virtual void begin(const Answer& a, Events& ev) const {}
  /// The events of one write's new tokens (`piece`, `tokens` of them; empty with done = a
  /// finish alone); `a.produced` already counts them.
  virtual void piece(const Answer& a, std::string_view piece, int tokens, bool done,
                     Events& ev) const = 0;
  /// The events after the last token; `end_marker` false: the injected no-done fault drops the
  /// API's end marker.
  virtual void end(const Answer& a, bool end_marker, Events& ev) const = 0;
  /// The whole non-streaming answer.
  virtual std::string body(const Answer& a) const = 0;
  /// Headers of a whole answer beyond Content-Type and x-request-id (none, for most APIs).
  virtual void body_headers(const ServedTimes& t,
                            std::vector<std::pair<std::string, std::string>>& out) const {}
};

/// A request of a one-shot API, as its route read it. `texts` are what the model reads, one per
/// input of the model, and count for usage (--tokenizer's count, else the simple rule).
struct OneShotRequest {
  std::string model;
  std::vector<std::string>
      texts;                    ///< an embedding's inputs; a ranking's query beside each document
  int64_t token_id_tokens = 0;  ///< tokens of inputs given as token ids (embeddings)
  int64_t inputs = 0;           ///< embeddings to return, or documents to rank
  // A ranking's own (rerank): what its answer needs beside the counts.
  std::string query;
  std::vector<std::string> documents;
  int64_t top_n = -1;  ///< answer only the best N; -1 = every document
  bool return_documents = false;
};

/// What a one-shot answer is made of besides its request.
struct OneShotAnswer {
  std::string_view id;        ///< the route's prefix and the request's sequence number
  uint64_t seq = 0;           ///< the request's sequence number (seeds made-up vectors)
  int64_t prompt_tokens = 0;  ///< counted over the request's texts
  const MockSettings& s;
};

class OneShotRoute {
 public:
  virtual ~OneShotRoute() = default;
  virtual std::string_view path() const = 0;
  /// Whether it answers at `path`: its own, or another the engine it mirrors serves it at too.
  virtual bool serves(std::string_view at) const { return at == path(); }
  /// The request, or nullopt with *why set (the body of a 400).
  virtual std::optional<OneShotRequest> parse(const std::string& body, std::string* why) const = 0;
  virtual std::string_view id_prefix() const = 0;
  /// The whole answer, sent after the request's prefill time (--ttft-ms, jitter included).
  virtual std::string body(const OneShotRequest& r, const OneShotAnswer& a) const = 0;
};

/// `input` as OpenAI's embeddings take it — a string, a list of strings, token ids, or a list of
/// such lists — into r.texts, r.token_id_tokens and r.inputs, with the request's "model"; false
/// with *why when it is none of them. Embeddings, classify and pooling read their inputs so.
bool read_inputs(simdjson::dom::object o, OneShotRequest& r, std::string* why);
/// A made-up but steady relevance of `document` to `query` in (0, 1): the share of the query's
/// words the document holds (rerank, score).
double relevance(std::string_view query, std::string_view document);

/// Every generating API the simulator serves.
std::span<const MockRoute* const> all_routes();
/// The route of exactly this path, or null.
const MockRoute* route_of(std::string_view path);
/// The route of exactly this path that claims `body` (else the path's last one), or null.
const MockRoute* route_of(std::string_view path, const std::string& body);
/// Every one-shot API the simulator serves.
std::span<const OneShotRoute* const> all_one_shot_routes();
/// The one-shot route of exactly this path, or null.
const OneShotRoute* one_shot_route_of(std::string_view path);

}  // namespace tokbench::mock
