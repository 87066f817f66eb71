// client/api/ollama_chat: Ollama's native /api/chat, as its server writes it (api/types.go
// ChatRequest and ChatResponse, server/routes.go ChatHandler): {"model", "messages", "stream",
// "options": {num_predict, temperature}} in; a stream is newline-delimited JSON
// (application/x-ndjson, not SSE), a line per piece — {"model", "created_at", "message": {"role",
// "content", "thinking"}, "done": false} — and a last line with "done": true, "done_reason"
// (stop, length, ...) and its Metrics: prompt_eval_count and eval_count (the tokens), and
// prompt_eval_duration, eval_duration and load_duration (nanoseconds: the server's own times). An
// error is a line {"error": "…"}. A body (stream false) is one such object with the whole message.
// Its /api/generate is the same but for a prompt: {"model", "prompt", "stream", "options"} in,
// and each line's text is a top-level "response" (and "thinking"), not a message
// (api/types.go GenerateRequest and GenerateResponse, routes.go GenerateHandler).
#include "client/api.hpp"
#include "client/api/body_parts.hpp"
#include "client/api/json_read.hpp"

namespace tokbench::client {

namespace {

using namespace api_detail;
using record::ChunkKind;

class OllamaNative : public ApiAdapter {
 public:
  explicit OllamaNative(bool chat) : chat_(chat) {}
  std::string_view name() const override { return chat_ ? "ollama" : "ollama-generate"; }
  std::string_view title() const override {
    return chat_ ? "Ollama native /api/chat" : "Ollama native /api/generate";
  }
  std::string_view path() const override { return chat_ ? "/api/chat" : "/api/generate"; }
  ApiCaps caps() const override {
    ApiCaps c;
    c.conversation = chat_;
    c.ndjson = true;
    c.sampling_extensions = false;
    c.finish_reasons = "stop,length,load,unload";
    return c;
  }

  // stream is always sent: Ollama streams when it is left out. The cap is options.num_predict
  // (-1, its default, is no cap).
  void write_body(JsonWriter& w, const BodySettings& s,
                  const dataset::RequestSpec& spec) const override {
    if (!s.overridden("model")) w.field("model", spec.model.empty() ? s.model : spec.model);
    // Text turns only (its images go in a message's "images" list, which is not written: the
    // capabilities say no images, so validation refuses them before a body is made).
    if (chat_)
      write_conversation(w, "messages", s, spec, "text", [](JsonWriter&, const std::string&) {});
    else if (!s.overridden("prompt"))
      w.field("prompt", spec.prompt);
    if (!s.overridden("stream")) w.field("stream", s.stream);
    if (!s.overridden("options")) {
      w.key("options").begin_object();
      if (const int64_t cap = s.cap_for(spec); cap > 0) w.field("num_predict", cap);
      if (s.temperature) w.field("temperature", *s.temperature);
      w.end_object();
    }
  }

  void parse(simdjson::dom::element doc, ChunkInfo& out, StreamMemory&) const override {
    take_error(doc, out);  // {"error": "…"}
    if (!out.error.empty()) {
      out.end = true;  // nothing follows an error line
      return;
    }
    out.choices = 1;
    simdjson::dom::element message;
    if (!chat_) {  // /api/generate: the text is the line's own
      out.content = text_of(doc, "response");
      out.reasoning = text_of(doc, "thinking");
    } else if (!doc["message"].get(message) && message.is_object()) {
      out.content = text_of(message, "content");
      out.reasoning = text_of(message, "thinking");
    }
    bool done = false;
    if (doc["done"].get_bool().get(done)) done = false;
    if (done) {
      out.finish_reason = text_of(doc, "done_reason");
      out.prompt_tokens = int_or(doc, "prompt_eval_count");
      out.completion_tokens = int_or(doc, "eval_count");
      if (const int64_t ns = int_or(doc, "prompt_eval_duration"); ns >= 0)
        out.server_prompt_ms = static_cast<double>(ns) / 1e6;
      // From the request's arrival to a runner ready for it (routes.go's checkpointLoaded): a
      // model load or reload (changed options), else a few ms of reading the model's metadata.
      if (const int64_t ns = int_or(doc, "load_duration"); ns >= 0)
        out.server_load_ms = static_cast<double>(ns) / 1e6;
      if (const int64_t ns = int_or(doc, "eval_duration"); ns >= 0 && out.completion_tokens > 0) {
        out.server_predicted_ms = static_cast<double>(ns) / 1e6;
        out.server_predicted_n = out.completion_tokens;
      }
    }
    out.kind = kind_of(out, false);
    // The done line ends the stream: a chunk when it still carries text (a body's whole message),
    // else the end event, which brings the counts and the finish.
    if (done) (out.content.empty() && out.reasoning.empty() ? out.end : out.last) = true;
  }
  bool done_sentinel() const override { return false; }
  std::string_view end_of_stream() const override { return "a line with \"done\": true"; }

  void audit(simdjson::dom::object top, std::vector<AuditFinding>& out) const override {
    simdjson::dom::object o;
    const bool have_o = !top["options"].get_object().get(o);
    auto has = [&](std::string_view k) { return have_o && !o[k].error() && !o[k].is_null(); };
    if (!has("num_predict"))
      out.push_back({"note",
                     "no options.num_predict is sent: Ollama generates until EOS or its context "
                     "fills"});
    if (!has("temperature"))
      out.push_back({"note", "no temperature is sent: the model's Modelfile default applies"});
    if (!top["ignore_eos"].error() || !top["min_tokens"].error())
      out.push_back({"warning",
                     "ignore_eos / min_tokens are not Ollama parameters: it ignores them, and its "
                     "answers end at EOS"});
  }

 private:
  bool chat_;
};

}  // namespace

const ApiAdapter& ollama_chat_api() {
  static const OllamaNative api(true);
  return api;
}

const ApiAdapter& ollama_generate_api() {
  static const OllamaNative api(false);
  return api;
}

}  // namespace tokbench::client
