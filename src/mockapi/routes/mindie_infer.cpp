// mockapi/routes/mindie_infer: MindIE Service's native /infer, as its endpoint writes it
// (MindIE-LLM single_req_self_develop_infer_interface.cpp, utils/infer_param.cpp): {"inputs",
// "stream" (false when left out), "parameters": {max_new_tokens (20 when left out), details,
// temperature}} in; a stream of SSE events with no end marker — {"token": {"id", "text"}} per
// write, then a last event whose token's text is null and whose "generated_text" holds the whole
// answer, with details {finish_reason, generated_tokens, seed} when details was asked (else null) —
// or one body {"generated_text", "details"}. It ignores what MindIE's /infer does not read
// (ignore_eos, min_tokens) and refuses what it refuses (a temperature <= 0, max_new_tokens <= 0)
// with its
// {"error", "error_type"}. The per-step prefill_time and decode_time are left out: the simulator
// has no per-request server times of its own to report.
#include <simdjson.h>

#include "common/json_writer.hpp"
#include "mockapi/route.hpp"

namespace tokbench::mock {

namespace {

constexpr int64_t kDefaultMaxNewTokens = 20;  // MindIE's MAX_NEW_TOKENS_DFT

std::optional<CompletionRequest> parse_mindie_request(const std::string& body,
                                                      std::string_view base_model,
                                                      std::string* error) {
  simdjson::dom::parser parser;
  simdjson::dom::object o;
  if (!body_object(parser, body, o, error)) return std::nullopt;
  CompletionRequest r;
  r.chat = false;
  r.model = std::string(base_model);
  simdjson::dom::element inputs;
  if (o["inputs"].get(inputs) || inputs.is_null()) {
    *error = "Not found inputs.";
    return std::nullopt;
  }
  if (!inputs.is_string()) {
    *error = "The type of inputs is abnormal";
    return std::nullopt;
  }
  if (!count_content(inputs, r.prompt_tokens, r.rendered)) return std::nullopt;
  bool stream = false;
  if (o["stream"].get_bool().get(stream)) stream = false;
  r.stream = stream;
  r.max_tokens = kDefaultMaxNewTokens;
  simdjson::dom::object p;
  if (!o["parameters"].get_object().get(p)) {
    r.max_tokens = int_field(p, "max_new_tokens", kDefaultMaxNewTokens);
    r.include_usage = bool_field(p, "details");
    if (double t = 1; !p["temperature"].get_double().get(t) && t <= 0) {
      *error = "Parameter temperature must be in (0.0,2.0], got 0.";
      return std::nullopt;
    }
  }
  if (r.max_tokens <= 0) {
    *error = "Parameter max_new_tokens must be in (0,2147483647].";
    return std::nullopt;
  }
  return r;
}

void write_details(JsonWriter& w, const Answer& a) {
  w.key("details");
  if (!a.cr.include_usage) {
    w.null();
    return;
  }
  w.begin_object().field("finish_reason", a.finish == "stop" ? "eos_token" : "length");
  w.field("generated_tokens", a.produced).key("seed").null().end_object();
}

class MindieInferRoute : public MockRoute {
 public:
  std::string_view path() const override { return "/infer"; }
  std::optional<CompletionRequest> parse(const std::string& body, std::string_view base_model,
                                         std::string* why) const override {
    return parse_mindie_request(body, base_model, why);
  }
  std::string refusal(const std::string& why) const override {
    JsonWriter w;
    w.begin_object().field("error", why).field("error_type", "validation").end_object();
    return w.take();
  }
  std::string_view id_prefix() const override { return ""; }
  bool keeps_text() const override { return true; }  // the last event holds the whole text

  // A write's tokens in one event; the last write's event holds the whole text instead of its
  // own piece.
  void piece(const Answer& a, std::string_view piece, int tokens, bool done,
             Events& ev) const override {
    JsonWriter w;
    w.begin_object();
    if (done) {
      w.field("generated_text", a.text);
      write_details(w, a);
    }
    w.key("token").begin_object().field("id", a.produced).key("text");
    if (done)
      w.null();
    else
      w.value(piece);
    w.end_object().end_object();
    ev.add(w.take(), piece.empty() ? 'F' : 'C', tokens);
  }
  void end(const Answer&, bool, Events&) const override {}  // the last token's event ends it
  std::string body(const Answer& a) const override {
    JsonWriter w;
    w.begin_object().field("generated_text", a.text);
    write_details(w, a);
    w.end_object();
    return w.take();
  }
};

}  // namespace

const MockRoute& mindie_infer_route() {
  static const MindieInferRoute route;
  return route;
}

}  // namespace tokbench::mock
