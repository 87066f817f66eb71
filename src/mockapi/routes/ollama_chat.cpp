// mockapi/routes/ollama_chat: Ollama's native /api/chat, as its server writes it (api/types.go,
// server/routes.go): {"model", "messages", "stream" (true when left out), "options":
// {num_predict, temperature}} in; a stream of newline-delimited JSON (application/x-ndjson), a
// line per write — {"model", "created_at", "message": {"role": "assistant", "content"}, "done":
// false} — then a line with empty content, "done": true, "done_reason" and the counts
// (prompt_eval_count, eval_count). Its per-request durations are left out: the simulator has no
// per-request prefill and decode times of its own to report. Errors are {"error": "…"}. Its
// /api/generate is the same with a "prompt" in and each line's text a top-level "response".
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <simdjson.h>

#include <ctime>

#include "common/json_writer.hpp"
#include "mockapi/route.hpp"

namespace tokbench::mock {

namespace {

std::optional<CompletionRequest> parse_ollama_request(const std::string& body, bool chat,
                                                      std::string* why) {
  // The model and the messages as chat's; /api/generate's prompt as completions'.
  auto r = parse_request(body, chat, why);
  if (!r) return r;
  simdjson::dom::parser parser;
  simdjson::dom::object o;
  if (!body_object(parser, body, o, why)) return std::nullopt;
  bool stream = true;  // Ollama streams unless told not to
  if (o["stream"].get_bool().get(stream)) stream = true;
  r->stream = stream;
  r->include_usage = true;  // the done line always carries the counts
  r->max_tokens = -1;       // num_predict -1: until EOS
  r->min_tokens = -1;
  r->ignore_eos = false;  // not Ollama's
  simdjson::dom::object options;
  if (!o["options"].get_object().get(options)) {
    const int64_t n = int_field(options, "num_predict", -1);
    r->max_tokens = n < 0 ? -1 : n;
  }
  return r;
}

std::string created_at(int64_t unix_s) {
  const std::time_t t = static_cast<std::time_t>(unix_s);
  std::tm tm{};
  gmtime_r(&t, &tm);
  return fmt::format("{:%Y-%m-%dT%H:%M:%S}Z", tm);
}

// One line: the message so far's new content (/api/generate: its "response"), or (done) the
// closing line with the counts.
std::string chat_line(const Answer& a, std::string_view content, bool done, bool chat) {
  JsonWriter w;
  w.begin_object().field("model", a.cr.model).field("created_at", created_at(a.created));
  if (chat) {
    w.key("message").begin_object().field("role", "assistant").field("content", content);
    w.end_object();
  } else {
    w.field("response", content);
  }
  w.field("done", done);
  if (done) {
    w.field("done_reason", a.finish == "stop" ? "stop" : "length");
    w.field("prompt_eval_count", a.cr.prompt_tokens).field("eval_count", a.produced);
  }
  w.end_object();
  return w.take();
}

class OllamaRoute : public MockRoute {
 public:
  explicit OllamaRoute(bool chat) : chat_(chat) {}
  std::string_view path() const override { return chat_ ? "/api/chat" : "/api/generate"; }
  std::optional<CompletionRequest> parse(const std::string& body, std::string_view,
                                         std::string* why) const override {
    return parse_ollama_request(body, chat_, why);
  }
  std::string refusal(const std::string& why) const override {
    JsonWriter w;
    w.begin_object().field("error", why).end_object();
    return w.take();
  }
  std::string_view id_prefix() const override { return ""; }
  std::string_view stream_type() const override { return "application/x-ndjson"; }

  void piece(const Answer& a, std::string_view piece, int tokens, bool done,
             Events& ev) const override {
    if (!piece.empty()) ev.line(chat_line(a, piece, false, chat_), 'C', tokens);
    if (done) ev.line(chat_line(a, "", true, chat_), 'F', piece.empty() ? tokens : 0);
  }
  void end(const Answer&, bool, Events&) const override {}  // the done line ends it
  std::string body(const Answer& a) const override { return chat_line(a, a.text, true, chat_); }

 private:
  bool chat_;
};

}  // namespace

const MockRoute& ollama_chat_route() {
  static const OllamaRoute route(true);
  return route;
}

const MockRoute& ollama_generate_route() {
  static const OllamaRoute route(false);
  return route;
}

}  // namespace tokbench::mock
